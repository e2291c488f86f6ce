"""Grad-mode decorators, leaves that stop requiring grad, input validation and its error texts, numpy
interop and checkpoint recomputation: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import contextlib
import io
import re
import types
import warnings

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")

# Each program may call err(f) to print the exception f raises as "Type: first lines of the message".
SNIPPETS = {
    # --- grad-mode decorators ------------------------------------------------------------------------------
    "no_grad_bare_and_called_decorators": """
class Model:
    def __init__(self):
        self.w = torch.tensor([1.0], requires_grad=True)
    @torch.no_grad()
    def predict(self, x):
        return self.w * x
    @torch.no_grad
    def predict2(self, x):
        return self.w * x
m = Model()
print(m.predict(2.0).requires_grad, m.predict2(2.0).requires_grad, (m.w * 2).requires_grad)
print(Model.predict2.__name__, torch.is_grad_enabled())
@torch.inference_mode
def g(x):
    return x * 2
x = torch.ones(1, requires_grad=True)
print(g(x).requires_grad, g(x).is_inference(), torch.is_inference_mode_enabled())
@torch.enable_grad
def f(x):
    return x * 2
with torch.no_grad():
    print(f(x).requires_grad, (x * 2).requires_grad)
""",
    "set_grad_enabled_decorator": """
x = torch.ones(1, requires_grad=True)
@torch.set_grad_enabled(False)
def g(x):
    return x * 2
print(g(x).requires_grad, torch.is_grad_enabled(), (x * 2).requires_grad)
print(repr(torch.set_grad_enabled(True)), str(torch.set_grad_enabled(True)))
torch.set_grad_enabled(False); print(torch.is_grad_enabled()); torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
with torch.no_grad():
    with torch.set_grad_enabled(True):
        print((x * 2).requires_grad)
    print((x * 2).requires_grad)
""",
    "decorated_generators_keep_their_mode": """
@torch.no_grad()
def batches(w):
    for i in range(2):
        yield torch.is_grad_enabled(), (w * i).requires_grad
w = torch.ones(1, requires_grad=True)
print(list(batches(w)), torch.is_grad_enabled())
@torch.enable_grad
def gen2(n):
    for i in range(n):
        got = yield torch.is_grad_enabled()
        print("got", got, torch.is_grad_enabled())
    return "done"
with torch.no_grad():
    g = gen2(3)
    print(next(g), torch.is_grad_enabled()); print(g.send(5), torch.is_grad_enabled())
    try:
        g.throw(ValueError("boom"))
    except ValueError as e:
        print("raised", e, torch.is_grad_enabled())
@torch.inference_mode()
def gen3():
    yield torch.is_inference_mode_enabled()
    yield torch.is_inference_mode_enabled()
it = gen3(); print(next(it), torch.is_inference_mode_enabled(), next(it))
""",
    "inference_mode_false_and_class_decoration": """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    with torch.inference_mode(False):
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled(), (x * 2).requires_grad)
with torch.inference_mode():
    with torch.inference_mode(mode=False):
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
@torch.no_grad()
class K:
    def __init__(self, t):
        self.y = t * 2
print(K(x).y.requires_grad, torch.is_grad_enabled())
""",
    # --- a leaf that stops requiring grad after the graph was built ---------------------------------------
    "requires_grad_false_after_graph": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
y = x * 2 * w
x.register_hook(lambda g: print("hook", g))
x.register_post_accumulate_grad_hook(lambda p: print("post", p.grad))
x.requires_grad_(False)
z = x * 2
print(y.requires_grad, z.requires_grad, x.is_leaf)
y.sum().backward(retain_graph=True)
print(x.grad, w.grad)
x.requires_grad_(True)
y.sum().backward(retain_graph=True)
print(x.grad, w.grad)
x.requires_grad_(False)
y.sum().backward(retain_graph=True)
print(x.grad, w.grad)
err(lambda: torch.autograd.grad(y.sum(), x))
a = torch.tensor(2.0, requires_grad=True); b = a * a; a.requires_grad_(False); b.backward(); print(a.grad)
x.detach_()
print(x.requires_grad)
""",

}

ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _run(module: types.ModuleType, code: str) -> str:
    out = io.StringIO()

    def show(message: Warning, category: type, *args: object, **kwargs: object) -> None:
        print(f"{category.__name__}: {message}", file=out)

    def err(f: object) -> None:
        try:
            print("no error:", f())
        except Exception as e:  # noqa: BLE001 - the message is what is compared
            print(f"{type(e).__name__}: {e}")

    names = {"torch": module, "np": np, "err": err}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        exec(code, names)  # noqa: S102 - test programs written above
    return ADDRESS.sub(" at 0x", out.getvalue())


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    expected = _run(torch, code)
    actual = _run(engine, code)
    assert actual == expected
