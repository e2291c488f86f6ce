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


HOOK_DICTS = """
lin = torch.nn.Linear(2, 2)
print(lin._forward_hooks, lin._forward_pre_hooks, lin._backward_hooks, lin._backward_pre_hooks, lin._state_dict_hooks,
      lin._load_state_dict_pre_hooks, lin._load_state_dict_post_hooks, lin._state_dict_pre_hooks)
f = lambda m, i, o: None
h1 = lin.register_forward_hook(f)
h2 = lin.register_forward_hook(lambda m, a, k, o: None, with_kwargs=True, always_call=True, prepend=True)
h3 = lin.register_forward_pre_hook(lambda m, i: None)
print(list(lin._forward_hooks) == [h2.id, h1.id], lin._forward_hooks[h1.id] is f, len(lin._forward_pre_hooks))
print(list(lin._forward_hooks_with_kwargs.values()), list(lin._forward_hooks_always_called.values()))
hb = lin.register_full_backward_hook(lambda m, gi, go: None)
hp = lin.register_full_backward_pre_hook(lambda m, g: None)
print(len(lin._backward_pre_hooks), len(lin._backward_hooks), type(hb).__name__)
lin._forward_hooks.clear()
print(lin(torch.ones(2)).shape, len(lin._forward_hooks))
h3.remove(); hb.remove(); hb.remove()
print(len(lin._forward_pre_hooks), len(lin._backward_hooks))
m2 = torch.nn.Linear(1, 1)
m2.register_backward_hook(lambda *a: None)
print(len(m2._backward_hooks), type(m2._backward_hooks).__name__)
"""


def test_module_hook_dicts_match_torch() -> None:
    """Module._forward_hooks, _forward_pre_hooks, _backward_hooks... are OrderedDicts keyed by handle id."""
    from tests.engine.programs import run_program

    assert run_program(engine, HOOK_DICTS) == run_program(torch, HOOK_DICTS)
