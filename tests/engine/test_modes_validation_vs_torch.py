"""Grad-mode decorators, leaves that stop requiring grad, input validation and its error texts, numpy
interop and checkpoint recomputation: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.programs import assert_matches_torch

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

    # --- invalid input: torch's exception types and messages ----------------------------------------------
    "creation_errors": """
err(lambda: torch.zeros(-1)); err(lambda: torch.zeros((2, -3))); err(lambda: torch.ones(2, -1))
err(lambda: torch.empty(-2)); err(lambda: torch.full((-1,), 2.0)); err(lambda: torch.rand(-1))
err(lambda: torch.randn(3, -1))
err(lambda: torch.arange(0, 10, 0)); err(lambda: torch.arange(0, 10, -1)); err(lambda: torch.arange(10, 0))
err(lambda: torch.arange(0.0, 1.0, 0.0)); print(torch.arange(5, 0, -2), torch.arange(0, 0))
for d in ["abc", ["a"], [1, "a"], [[1], ["a"]], ("a",), [None], [[1, 2], None], b"ab", [b"a"], {1}, [{1}],
          [1, None], None, {1: 2}, [[1, 2], [3]]]:
    err(lambda: torch.tensor(d))
""",
    "cat_stack_gather_errors": """
err(lambda: torch.cat([torch.ones(2), torch.ones(2, 1)]))
err(lambda: torch.cat([torch.ones(2, 3), torch.ones(2)]))
err(lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 3), torch.ones(3)]))
err(lambda: torch.cat([torch.ones(2, 1), torch.ones(3, 2), torch.ones(2)]))
err(lambda: torch.cat([torch.ones(2), torch.ones(2, 1), torch.tensor(1.0)]))
err(lambda: torch.cat([torch.ones(0), torch.ones(2, 1), torch.ones(2)]))
err(lambda: torch.cat([torch.tensor(1.0), torch.tensor(2.0)]))
err(lambda: torch.cat([])); err(lambda: torch.stack([])); print(torch.cat([torch.ones(2, 3), torch.ones(0)]))
err(lambda: torch.stack([torch.ones(2), torch.ones(3)]))
err(lambda: torch.ones(2, 2).gather(1, torch.tensor([[0.0]])))
err(lambda: torch.ones(2, 2).gather(1, torch.tensor([[True]])))
err(lambda: torch.ones(2, 2).gather(1, torch.tensor([[1]], dtype=torch.uint8)))
print(torch.ones(2, 2).gather(1, torch.tensor([[0]], dtype=torch.int32)))
""",
    "loss_shape_errors": """
F = torch.nn.functional
for fn in [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss, F.binary_cross_entropy,
           F.binary_cross_entropy_with_logits, F.kl_div]:
    err(lambda: fn(torch.full((2, 2), 0.5), torch.full((3,), 0.5)))
err(lambda: F.mse_loss(torch.ones(2), torch.ones(3)))
err(lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3])))
err(lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1, 2])))
print(F.mse_loss(torch.ones(2, 1), torch.zeros(3)))
""",
    "where_mask_std_errors": """
err(lambda: torch.where(torch.tensor([1, 0]), torch.ones(2), torch.zeros(2)))
err(lambda: torch.where(torch.tensor([1.0, 0.0]), torch.ones(2), torch.zeros(2)))
err(lambda: torch.where(torch.tensor([1, 0]), 1.0, 0.0))
err(lambda: torch.ones(2).where(torch.tensor([1, 0]), 0.0))
print(torch.where(torch.tensor([1, 0])), torch.where(torch.tensor([True, False]), 1.0, 0.0))
err(lambda: torch.ones(3)[torch.tensor([True, False])])
err(lambda: torch.ones(3, 2)[torch.tensor([[True, False]])])
err(lambda: torch.ones(3, 2)[:, torch.tensor([True, False, True])])
err(lambda: torch.ones(3, 2)[..., torch.tensor([True, False, True])])
err(lambda: torch.ones(3, 2)[torch.tensor([True, False, True, False])])
err(lambda: torch.ones(3, 2)[0, torch.tensor([True, False, True])])
print(torch.ones(3, 2)[torch.tensor([True, False, True])], torch.ones(3, 2)[None, torch.tensor([True, False, True])])
def assign(requires_grad, key):
    t = torch.ones(3, 2, requires_grad=requires_grad) * 1
    t[key] = 0
    return t
err(lambda: assign(True, torch.tensor([True, False])))
err(lambda: assign(False, torch.tensor([True, False])))
err(lambda: assign(False, (slice(None), torch.tensor([True, False, True]))))
err(lambda: assign(False, (Ellipsis, torch.tensor([True, False, True]))))
print(assign(True, torch.tensor([True, False, True])))
err(lambda: torch.tensor([1, 2, 3]).std()); err(lambda: torch.tensor([1, 2, 3]).var(0))
err(lambda: torch.var_mean(torch.tensor([1, 2, 3]))); err(lambda: torch.std_mean(torch.tensor([True, False])))
err(lambda: torch.ones(3).masked_fill(torch.tensor([1, 0, 1]), 0.0))
""",
    "autograd_argument_errors": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
err(lambda: torch.autograd.grad((x * 2).sum(), []))
err(lambda: torch.autograd.grad((x * 2).sum(), ()))
err(lambda: (x * 2).sum().backward(inputs=[]))
err(lambda: torch.ones(1).register_post_accumulate_grad_hook(lambda p: None))
err(lambda: (x * 2).register_post_accumulate_grad_hook(lambda p: None))
err(lambda: torch.autograd.grad((x * 2).sum(), torch.ones(2)))
""",
    "scalar_conversion_errors": """
for f in [lambda: int(torch.ones(2)), lambda: float(torch.ones(2, 2)), lambda: int(torch.ones(0)),
          lambda: complex(torch.ones(2)), lambda: bool(torch.tensor([True, False])), lambda: len(torch.tensor(1.0)),
          lambda: torch.ones(3).item(), lambda: [t for t in torch.tensor(2.0)], lambda: [1, 2][torch.tensor([1, 0])],
          lambda: [1, 2][torch.tensor([1.0])], lambda: [1, 2][torch.tensor(1)]]:
    err(f)
print(int(torch.tensor([7.9])), bool(torch.tensor([0.0])), float(torch.tensor([[2]])), complex(torch.tensor(1.5)))
""",
    "setitem_whole_tensor": """
x = torch.ones(2, 2, requires_grad=True)
for k in [slice(None), Ellipsis, (slice(None), slice(None)), (Ellipsis, slice(None)), None, (slice(None), None),
          slice(0, 2), slice(None, None, 1), 0, (slice(None), 0), slice(0, 1)]:
    def f():
        x[k] = 0.0
    print(k, end=" "); err(f)
w = torch.ones(3, requires_grad=True)
z = torch.ones(3); z[:] = w * 2; print(z)
z2 = torch.ones(3); z2[...] = w; print(z2, type(z2.grad_fn).__name__)
t = w * 1; t[:] = 0; print(t)
t = w * 1; t[...] = w[1] * 3; print(t, t.grad_fn.next_functions[1][0].name()); t.sum().backward(); print(w.grad)
t = torch.zeros(2, dtype=torch.int64); t[:] = 2.7; print(t)
t = w * 1; t.fill_(w[0] * 2); print(t); err(lambda: t.fill_(torch.ones(2)))
with torch.no_grad():
    y = torch.ones(3); y[:] = 5; print(y)
""",

    "kl_div_zero_target": """
x = torch.tensor([[0.2, 0.8]]).log().requires_grad_(); t = torch.tensor([[0.0, 1.0]], requires_grad=True)
F = torch.nn.functional
r = F.kl_div(x, t, reduction="none"); print(r, [type(n).__name__ for n, _ in r.grad_fn.next_functions])
r.sum().backward(); print(x.grad, t.grad)
r = F.kl_div(x, t, reduction="none", log_target=True); print(r)
print(F.kl_div(x, t), F.kl_div(x, t, reduction="batchmean"), F.kl_div(x, t, reduction="sum"))
print(torch.nn.KLDivLoss(reduction="batchmean")(x, t))
""",

    "jacobian_vjp_strict": """
jacobian, vjp = torch.autograd.functional.jacobian, torch.autograd.functional.vjp
x = torch.tensor([1.0, 2.0]); y = torch.tensor([3.0])
err(lambda: jacobian(lambda t: torch.ones(2), x, strict=True))
err(lambda: jacobian(lambda t: t * 2, x, strict=True, vectorize=True))
err(lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True))
err(lambda: jacobian(lambda t: t * 2, x, strict=True, create_graph=True))
print(jacobian(lambda t: t ** 2, x, strict=True, create_graph=True), jacobian(lambda t: t * 2, x, strict=True))
print(jacobian(lambda t: torch.ones(2), x))
err(lambda: vjp(lambda a, b: a * 2, (x, y), torch.ones(2), strict=True))
err(lambda: vjp(lambda a: torch.ones(2), x, torch.ones(2), strict=True))
print(vjp(lambda a: a * 3, x, torch.ones(2), strict=True))
""",
    "sum_to_size_errors": """
x = torch.arange(24.0).reshape(2, 3, 4)
err(lambda: x.sum_to_size(5)); err(lambda: x.sum_to_size(1, 2, 3, 4)); err(lambda: x.sum_to_size(3, 2))
print(x.sum_to_size(3, 1), x.sum_to_size(2, 1, 4).shape, x.sum_to_size(1).shape, x.sum_to_size(()).shape)
""",
    "resize": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
err(lambda: x.resize_(3)); err(lambda: x.resize_as_(torch.ones(3))); err(lambda: (x * 2).resize_(2))
with torch.no_grad():
    err(lambda: x.resize_(3))
x.data = torch.tensor([5.0, 6.0, 7.0]); print(x, x.shape)
y = torch.tensor([1.0, 2.0, 3.0]); v = y[1:]; y.resize_(2); print(y, v, y._version)
z = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t(); z.resize_(3); print(z, z.stride())
w = torch.ones(2, 3); w.resize_as_(torch.ones(3)); print(w); print(w.resize_(2, 1).shape)
u = torch.arange(6.0); u2 = u[2:4]; u2.resize_(3); print(u2); u2[0] = 100; print(u)
k = torch.arange(4.0); k.resize_(2, 2); print(k); k.resize_(1); print(k, k._version)
print(torch.ones(2).resize_((3,)).shape, torch.ones(2).resize_(0), torch.ones(2).resize_(2, 2).shape)
""",
    "load_state_dict_errors": """
lin = torch.nn.Linear(2, 1)
for sd, strict in [({"weight": torch.zeros(2, 2), "bias": torch.zeros(1)}, True),
                   ({"weight": torch.zeros(1, 2), "bias": torch.zeros(1), "extra": torch.ones(1)}, True),
                   ({"weight": torch.zeros(1, 2)}, False), ({"weight": torch.zeros(1, 2)}, True)]:
    err(lambda: lin.load_state_dict(sd, strict=strict))
bn = torch.nn.BatchNorm1d(2)
err(lambda: bn.load_state_dict({k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}))
sd2 = bn.state_dict(); del sd2["num_batches_tracked"]
err(lambda: bn.load_state_dict(sd2))
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
sd = {"extra": torch.ones(1), "0.weight": torch.zeros(3, 2), "0.zzz": torch.ones(1), "2.bias": 5,
      "0.bias": torch.ones(2), "2.weight.x": torch.ones(1)}
err(lambda: net.load_state_dict(sd)); print(net[0].bias)
err(lambda: net.load_state_dict(sd, strict=False))
r = net.load_state_dict({"0.weight": torch.ones(2, 2, dtype=torch.float64)}, strict=False)
print(r, r.missing_keys, net[0].weight)
p = torch.nn.Module(); p.s = torch.nn.Parameter(torch.tensor(1.0)); print(p.load_state_dict({"s": torch.tensor([3.0])}), p.s)
err(lambda: torch.nn.Linear(1, 1).load_state_dict([1]))
print(net.load_state_dict(net.state_dict()), net.state_dict()._metadata)
""",

    # --- generator repr, numpy interop, fork_rng, checkpoint, Sequential ----------------------------------
    "generator_repr": """
print(torch.manual_seed(0)); print(repr(torch.Generator()), str(torch.default_generator))
""",
    "numpy_asarray": """
t = torch.tensor([1.0, 2.0])
a = np.asarray(t); print(a, a.dtype, a.shape)
print(np.array(torch.arange(3)).dtype, np.array(torch.ones(2, 2)).shape, np.asarray(t, dtype=np.float64).dtype)
w = torch.tensor([0.5, 1.5], requires_grad=True)
print(np.asarray(w.detach() * 2), np.array((w * 2).detach()).tolist())
err(lambda: np.asarray(w * 2)); err(lambda: np.asarray(w))
b = np.asarray(t); b[0] = 7.0; print(t)
""",
    "fork_rng": """
torch.manual_seed(123)
after0 = torch.rand(2)
with torch.random.fork_rng():
    torch.manual_seed(0)
    inner = torch.rand(2)
after = torch.rand(2)
torch.manual_seed(0)
print(inner, torch.equal(inner, torch.rand(2)), after0, after)
with torch.random.fork_rng(enabled=False):
    torch.manual_seed(5)
print(torch.rand(1))
try:
    with torch.random.fork_rng():
        torch.rand(3)
        raise ValueError("inside")
except ValueError:
    pass
print(torch.rand(1))
""",
    "checkpoint_non_reentrant_recomputes": """
calls = []
def block(t, w):
    calls.append(1)
    h = torch.sigmoid(t * w)
    return torch.nn.functional.dropout(h, 0.5) * h
torch.manual_seed(0)
x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True); w = torch.tensor([1.5, -0.5], requires_grad=True)
torch.manual_seed(1)
y = torch.utils.checkpoint.checkpoint(block, x, w, use_reentrant=False)
print(len(calls), y, torch.rand(1))
y.sum().backward(retain_graph=True)
print(len(calls), x.grad, w.grad, torch.rand(1))
y.sum().backward()
print(len(calls), x.grad)
torch.manual_seed(1); x2 = x.detach().requires_grad_(); w2 = w.detach().requires_grad_()
block(x2, w2).sum().backward(); print(torch.allclose(x.grad, 2 * x2.grad), torch.allclose(w.grad, 2 * w2.grad))
calls.clear()
y = torch.utils.checkpoint.checkpoint(lambda a: (calls.append(1), a + 1)[1], x, use_reentrant=False)
y.sum().backward(); print(len(calls), type(y.grad_fn).__name__)
""",
    "sequential_add_and_index": """
s = torch.nn.Sequential(torch.nn.ReLU())
print(s + torch.nn.Sequential(torch.nn.Tanh(), torch.nn.Sigmoid()), s[-1], len(s + s))
err(lambda: s[5]); err(lambda: s[-2]); err(lambda: torch.nn.ModuleList([torch.nn.ReLU()])[3])
""",

}

def _err(f: object) -> None:
    """`err(lambda: ...)` in the programs: the call's result, or the error it raises."""
    try:
        print("no error:", f())
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        print(f"{type(e).__name__}: {e}")


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(SNIPPETS[name], {"np": np, "err": _err})
