"""nn.Module registration details against torch: typenames in errors, non-persistent buffers."""

from __future__ import annotations

import pytest

import engine
from conftest import torch

STATEMENTS = [
    "m.p = t.nn.Parameter(t.zeros(1)); m.p = t.nn.ReLU()",
    "m.c = t.nn.Linear(1, 1); m.c = t.zeros(1)",
    "m.register_buffer('b', t.zeros(1)); m.b = t.nn.Tanh()",
    "m.register_parameter('p', t.nn.MSELoss())",
    "m.add_module('x', t.zeros(1))",
    "m.register_buffer('b', t.zeros(1), persistent=False); print(list(m.state_dict()))",
    "m.register_buffer('b', t.zeros(1), persistent=False); m.register_buffer('b', t.ones(1)); "
    "print(list(m.state_dict()))",
    "m.register_buffer('b', t.zeros(1), persistent=False); print([n for n, _ in m.named_buffers()])",
    "m.register_buffer('b', t.zeros(1), persistent=False); del m.b; m.register_buffer('b', t.ones(1)); "
    "print(list(m.state_dict()))",
    "m.register_buffer('b', t.zeros(1), persistent=False); m.b = t.nn.Parameter(t.ones(1)); "
    "print(list(m.state_dict()))",
    "m.s = t.nn.Sequential(t.nn.Linear(1, 1)); m.s[0].register_buffer('r', t.zeros(1), persistent=False); "
    "print(list(m.state_dict())); print(m.load_state_dict(m.state_dict()))",
]


def outcome(lib: object, statement: str, capsys) -> str:
    env = {"t": lib, "m": lib.nn.Module()}
    try:
        exec(statement, env)  # noqa: S102 - fixed test statements
    except Exception as exc:  # the error type and message are what is compared
        return f"{type(exc).__name__}: {exc}"
    return "ok: " + capsys.readouterr().out


@pytest.mark.parametrize("statement", STATEMENTS)
def test_module_registration_matches_torch(statement: str, capsys) -> None:
    assert outcome(engine, statement, capsys) == outcome(torch, statement, capsys)
