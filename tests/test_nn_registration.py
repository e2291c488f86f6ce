"""nn.Module registration: PyTorch's checks and messages, and registered buffers surviving reassignment."""

from __future__ import annotations

import pytest

import engine

torch = pytest.importorskip("torch")

CASES = [
    "m.register_buffer('', t.zeros(1))",
    "m.register_buffer('a.b', t.zeros(1))",
    "m.register_buffer('b', 5)",
    "m.register_parameter('p', t.zeros(1))",
    "m.add_module('a.b', t.nn.ReLU())",
    "m.add_module('x', 3)",
    "m.register_buffer('training', t.zeros(1))",
    "m.register_buffer('b', t.zeros(1)); m.b = 3",
    "m.c = t.nn.ReLU(); m.c = 4",
]


def outcome(lib: object, statement: str) -> str:
    env = {"t": lib, "m": lib.nn.Module()}
    try:
        exec(statement, env)  # noqa: S102 - fixed test statements
    except Exception as exc:  # the error type and message are what is compared
        return f"{type(exc).__name__}: {exc}"
    return "ok"


@pytest.mark.parametrize("statement", CASES)
def test_registration_errors_match_pytorch(statement: str) -> None:
    assert outcome(engine, statement) == outcome(torch, statement)


@pytest.mark.parametrize("lib", [engine, torch], ids=["engine", "torch"])
def test_reassigned_buffer_stays_registered(lib: object) -> None:
    m = lib.nn.Module()
    m.register_buffer("b", lib.zeros(1))
    m.b = lib.ones(1)
    assert list(m.state_dict()) == ["b"]
    assert m.b.tolist() == [1.0]
