"""The sandbox must not break legitimate code: PyTorch programs run sandboxed print what PyTorch prints.

Two sets: the engine suite's programs (tests/engine/test_snippets_vs_torch.py SNIPPETS; the two that
use `exec` as a testing trick run here with their exec loops unrolled into plain statements, since
the sandbox refuses `exec`), and our own tutorial-style programs (tests/legit_snippets.py).
A mismatch caused outside the policy (engine or tracer) is an xfail(strict=True) naming the cause,
so it starts failing the day the cause is fixed.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import pytest

from server.policy.warnfacade import _PYTHON_DEFAULT_FILTERS
from server.sandbox import Sandbox
from tests.engine.programs import ADDRESS
from tests.engine.test_snippets_vs_torch import SNIPPETS, _run
from tests.legit_snippets import TUTORIAL_SNIPPETS

torch = pytest.importorskip("torch")

# The engine suite's exec-based programs, unrolled: the same statements, one try block each.
UNROLLED = {
    "errors_misc": """
x = torch.randn(3, requires_grad=True)
try:
    torch.ones(3).item()
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.optim.SGD([x * 2], lr=0.1)
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.autograd.backward([x * 2, x * 3], [torch.ones(3)])
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    (x * 2).sum().backward(inputs=[])
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.randn(3).retain_grad()
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)])
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    (torch.randn(3) * 2).sum().backward()
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    x.grad = torch.ones(4)
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    x.view(2, 2)
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.ones(2, 3).t().view(6)
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.cat([torch.ones(2, 3), torch.ones(2, 2)])
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.stack([torch.ones(2), torch.ones(3)])
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    torch.ones(3)[5]
except Exception as e:
    print(type(e).__name__ + ":", e)
print(torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)], allow_unused=True)[1])
print(torch.autograd.grad((x * 2).sum(), [x, torch.ones(2, requires_grad=True)], materialize_grads=True)[1])
a = torch.tensor([1.0, 2.0], requires_grad=True); w = torch.tensor([3.0, 4.0], requires_grad=True)
(a * w).sum().backward(inputs=[w]); print(a.grad, w.grad)
""",
    "inplace_errors": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    x.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x[0] = 5.0
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x[:2].mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid(); c = b * 2; b.mul_(2)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
b = a * 1; c = b * b; b.add_(1)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = a.sin(); a.detach().mul_(2)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
b = a * 1
print(b._version, b.add_(1)._version, b.grad_fn, b.grad_fn.next_functions[0][0])
v = b.view(3); v.add_(1); print(b._version, v._version)
b = a * 1
try:
    b.unbind(0)[0].mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
y = a * 1; z = y.sin(); y[:].add_(1)
try:
    z.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = a * 1; v = y[1:3]; v.mul_(5)
print(y.grad_fn.name(), type(v.grad_fn).__name__)
y.sum().backward(); print(a.grad)
""",
}

# Mismatches whose cause is outside the policy (see the report of the sandbox work).
NOT_POLICY = {
}


def _param(name: str) -> object:
    if name in NOT_POLICY:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_POLICY[name]))
    return name


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    with Sandbox(workers=2, timeout_s=10.0) as sb:
        yield sb


def _sandboxed(sandbox: Sandbox, code: str) -> str:
    trace = json.loads(sandbox.run(code))
    assert trace["status"] == "ok", trace["error"]
    return ADDRESS.sub(" at 0x", trace["stdout"])


def _run_like_a_script(code: str) -> str:
    """Real PyTorch with the warning filters a plain `python script.py` starts with."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(record=True):  # shown warnings go to a list nobody reads, like stderr
        warnings.resetwarnings()
        for action, category, module in reversed(_PYTHON_DEFAULT_FILTERS):
            warnings.filterwarnings(action, "", category, module)
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})  # noqa: S102 - our own programs
    return ADDRESS.sub(" at 0x", out.getvalue())


@pytest.mark.parametrize("name", [_param(n) for n in sorted(SNIPPETS)])
def test_program_prints_what_pytorch_prints(sandbox: Sandbox, name: str) -> None:
    code = UNROLLED.get(name, SNIPPETS[name])
    expected = _run(torch, code)
    if name in UNROLLED:  # the unrolling is faithful: PyTorch prints the same for both versions
        assert expected == _run(torch, SNIPPETS[name])
    assert _sandboxed(sandbox, "import torch\n" + code) == expected


def test_only_exec_programs_are_unrolled() -> None:
    for name, code in SNIPPETS.items():
        assert ("exec(" in code) == (name in UNROLLED), name
    assert not any("exec(" in code for code in UNROLLED.values())


def test_there_are_many_tutorial_programs() -> None:
    assert len(TUTORIAL_SNIPPETS) >= 40


@pytest.mark.parametrize("name", [_param(n) for n in TUTORIAL_SNIPPETS])
def test_tutorial_program_prints_what_pytorch_prints(sandbox: Sandbox, name: str) -> None:
    code = TUTORIAL_SNIPPETS[name]
    assert _sandboxed(sandbox, code) == _run_like_a_script(code)
