"""torch.save / torch.load through io.BytesIO, out= arguments, forward hooks with kwargs and prepend, and
bfloat16: small programs run with torch and with the engine print the same (warnings included)."""

from __future__ import annotations

import collections
import io
import pickle

import numpy as np
import pytest

import engine
from tests.engine.programs import assert_matches_torch

torch = pytest.importorskip("torch")

SNIPPETS = {
    # --- torch.save / torch.load ---------------------------------------------------------------------------
    "save_load_state_dict": """
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0]])); lin.bias.fill_(3.0)
buf = io.BytesIO()
torch.save(lin.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf)
print(sd, type(sd).__name__)
other = torch.nn.Linear(2, 1)
print(other.load_state_dict(sd))
print(other(torch.ones(1, 2)))
""",
    "save_load_dtypes_and_flags": """
values = [torch.tensor(1.5), torch.tensor([1, 2], dtype=torch.int32), torch.tensor([True, False]),
          torch.tensor([1.5], dtype=torch.float64), torch.tensor([1.5, 2.25], dtype=torch.float16),
          torch.tensor([1.1, 2.2], dtype=torch.bfloat16), torch.tensor([255], dtype=torch.uint8),
          torch.arange(6.0).reshape(2, 3).t(), torch.arange(6.0).reshape(2, 3)[:, 1],
          torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2), requires_grad=False),
          torch.tensor([3.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True) * 2,
          torch.ones(3).expand(2, 3), torch.tensor([1 + 2j], requires_grad=True)]
for v in values:
    buf = io.BytesIO(); torch.save(v, buf); buf.seek(0)
    r = torch.load(buf)
    print(r, r.dtype, r.shape, r.requires_grad, r.is_leaf, type(r).__name__, r.stride(), r.element_size())
""",
    "save_load_containers_and_sharing": """
def rt(obj, **kw):
    b = io.BytesIO(); torch.save(obj, b); b.seek(0); return torch.load(b, **kw)
print(rt({"a": 1, 2: [1.5, None, "s", (True, 3)], "n": float("nan"), "i": float("-inf"), "big": 2 ** 70,
          "c": complex(1, -2), "b": b"\\x00x", "size": torch.Size([2, 3]), "dt": torch.bfloat16,
          "dev": torch.device("cpu"), "set": {1, 2}, "neg0": -0.0}))
x = torch.arange(6.0).reshape(2, 3)
r = rt(collections.OrderedDict([("w", x), ("v", x[0])]))
r["w"][0, 0] = 100.0
print(type(r).__name__, r["v"])
r = rt([x, x, x[1]])
print(r[0] is r[1]); r[0].mul_(2); print(r[2])
cyc = [1]; cyc.append(cyc); print(rt(cyc))
print(rt(torch.ones(2), map_location="cpu"), rt(torch.ones(2), map_location=torch.device("cpu")),
      rt(torch.ones(2), map_location={"cuda:0": "cpu"}), rt([1], map_location="cuda"),
      rt(torch.ones(1), map_location=lambda s, loc: s), rt(torch.ones(1), weights_only=False))
""",
    "save_load_optimizer": """
torch.manual_seed(0)
lin = torch.nn.Linear(2, 2)
opt = torch.optim.Adam(lin.parameters(), lr=0.1)
for _ in range(2):
    opt.zero_grad(); lin(torch.ones(1, 2)).sum().backward(); opt.step()
buf = io.BytesIO()
torch.save({"model": lin.state_dict(), "opt": opt.state_dict(), "epoch": 2}, buf)
buf.seek(0)
ckpt = torch.load(buf)
print(ckpt["opt"], ckpt["epoch"])
lin2 = torch.nn.Linear(2, 2); lin2.load_state_dict(ckpt["model"])
opt2 = torch.optim.Adam(lin2.parameters(), lr=0.1); opt2.load_state_dict(ckpt["opt"])
for o, m in ((opt, lin), (opt2, lin2)):
    o.zero_grad(); m(torch.ones(1, 2)).sum().backward(); o.step()
print(lin.weight, lin2.weight, torch.equal(lin.weight, lin2.weight))
""",
    "save_load_errors": """
def tr(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)
def saved(obj):
    b = io.BytesIO(); torch.save(obj, b); b.seek(0); return b
tr(lambda: torch.load(saved(torch.ones(2)), map_location="cuda"))
tr(lambda: torch.load(saved([torch.ones(2)]), map_location="cuda:0"))
tr(lambda: torch.load(saved(torch.nn.Linear(1, 1))))
tr(lambda: torch.load(saved([torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1)])))
tr(lambda: torch.load(saved({"r": range(3)})))
b = io.BytesIO(); torch.save([1], b)
tr(lambda: torch.load(b))
""",
    # --- out= ------------------------------------------------------------------------------------------------
    "out_autograd_error_names": """
a = torch.tensor([1.0, 2.0], requires_grad=True)
m = torch.ones(2, 2, requires_grad=True)
c = torch.empty(0)
for f in (lambda: torch.add(a, 1, out=c), lambda: torch.divide(a, 2, out=c), lambda: torch.multiply(a, a, out=c),
          lambda: torch.subtract(a, 1, out=c), lambda: torch.sum(a, 0, out=c), lambda: torch.mean(a, 0, out=c),
          lambda: torch.exp(a, out=c), lambda: torch.cat([a, a], out=c), lambda: torch.stack([a, a], out=c),
          lambda: torch.matmul(m, m, out=c), lambda: torch.mm(m, m, out=c), lambda: torch.clip(a, 0, 1, out=c),
          lambda: torch.square(a, out=c), lambda: torch.max(a, a, out=c), lambda: torch.norm(a, out=c),
          lambda: torch.sort(a, out=(c, torch.empty(0, dtype=torch.long))), lambda: torch.outer(a, a, out=c),
          lambda: torch.add(a.detach(), 1, out=torch.empty(2, requires_grad=True)), lambda: torch.sum(a, out=c)):
    try:
        f()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__ + ":", e)
print(torch.eq(a, a, out=torch.empty(2, dtype=torch.bool)))
""",
    "out_writes_and_returns": """
a = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.empty(2)
r = torch.add(a.detach(), 1, out=c)
print(r is c, c, c._version)
x = torch.tensor([1.0, 2.0])
print(torch.add(x, 1, out=x) is x, x, x._version)
with torch.no_grad():
    cg = torch.empty(2, requires_grad=True)
    print(torch.mul(a, 3, out=cg), cg.requires_grad, cg.is_leaf, cg._version)
base = torch.zeros(4); view = base[:2]
torch.add(x, 1, out=view); print(base)
f = torch.zeros(2)
print(torch.add(torch.tensor([1, 2]), 1, out=f), f.dtype)
d = torch.empty(2, dtype=torch.float64)
print(torch.add(x, 1, out=d))
v, i = torch.empty(0), torch.empty(0, dtype=torch.long)
r = torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(v, i))
print(r, v, i, r.values is v)
mn, mx = torch.empty(0), torch.empty(0)
print(torch.aminmax(torch.tensor([3.0, -1.0, 2.0]), out=(mn, mx)), mn, mx)
print(torch.cat([x, x], out=torch.empty(0)), torch.sum(torch.ones(2, 3), 1, out=torch.empty(2)))
""",
    "out_resize_and_dtype_errors": """
x = torch.tensor([1.0, 2.0])
c3 = torch.zeros(3)
print(torch.add(x, 1, out=c3), c3.shape)
c0 = torch.empty(0)
print(torch.exp(x, out=c0))
for f in (lambda: torch.add(x, 1, out=torch.empty(2, dtype=torch.long)),
          lambda: torch.mm(x[None], x[:, None], out=torch.empty(1, 1, dtype=torch.float64)),
          lambda: torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=torch.empty(0, dtype=torch.long)),
          lambda: torch.dot(x, x, out=torch.empty(0, dtype=torch.float64)),
          lambda: torch.exp(x, out=torch.empty(2, dtype=torch.int32))):
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError:", e)
""",
    # --- forward hooks -------------------------------------------------------------------------------------
    "forward_hooks_kwargs_prepend": """
lin = torch.nn.Linear(1, 1, bias=False)
with torch.no_grad():
    lin.weight.fill_(2.0)
h1 = lin.register_forward_hook(lambda m, i, o: print("A", o.item()))
h2 = lin.register_forward_hook(lambda m, i, o: print("B", o.item()), prepend=True)
h3 = lin.register_forward_pre_hook(lambda m, args, kwargs: print("kw", sorted(kwargs), len(args)), with_kwargs=True)
def pre2(m, args, kwargs):
    print("pre2", args[0].tolist())
    return (args[0] * 2,), kwargs
h4 = lin.register_forward_pre_hook(pre2, with_kwargs=True, prepend=True)
def fk(m, args, kwargs, out):
    print("fk", type(kwargs).__name__, out.item())
    return out + 1
h5 = lin.register_forward_hook(fk, with_kwargs=True)
print(lin(torch.tensor([[3.0]])).item())
h4.remove(); h5.remove()
print(lin(torch.tensor([[3.0]])).item())
h1.remove(); h2.remove(); h3.remove()
print(lin(torch.tensor([[1.0]])).item())
h = lin.register_forward_pre_hook(lambda m, a, k: 5, with_kwargs=True)
try:
    lin(torch.tensor([[1.0]]))
except RuntimeError as e:
    print("RuntimeError:", e)
h.remove()
lin.register_forward_hook(lambda m, i, o: print(type(i).__name__, len(i)))
lin.register_forward_pre_hook(lambda m, a, k: print("kwa", type(a).__name__, type(k).__name__), with_kwargs=True)
lin(input=torch.ones(1, 1))
""",
    "forward_hooks_always_call_and_kwargs": """
class Scale(torch.nn.Module):
    def forward(self, x, scale=1.0):
        if scale < 0:
            raise ValueError("negative scale")
        return x * scale
b = Scale()
b.register_forward_hook(lambda m, i, o: print("always", o), always_call=True)
b.register_forward_hook(lambda m, i, k, o: print("always kw", k, o), always_call=True, with_kwargs=True)
b.register_forward_hook(lambda m, i, o: print("normal", o))
def boom(m, i, o):
    raise KeyError("in hook")
print(b(torch.tensor(2.0), scale=3.0))
try:
    b(torch.tensor(2.0), scale=-1.0)
except ValueError as e:
    print("ValueError:", e)
c = Scale()
c.register_forward_hook(boom, always_call=True)
try:
    c(torch.tensor(1.0), scale=-1.0)
except ValueError as e:
    print("ValueError:", e)
d = Scale()
def pk(m, a, k):
    print("got", k)
    return a, {"scale": 5.0}
d.register_forward_pre_hook(pk, with_kwargs=True)
print(d(torch.tensor(1.0), scale=2.0))
e = Scale()
e.register_forward_pre_hook(lambda m, a: a[0] + 1)
print(e(torch.tensor(1.0), scale=2.0))
lin = torch.nn.Linear(1, 1)
lin.register_full_backward_pre_hook(lambda m, g: print("bp1"))
lin.register_full_backward_pre_hook(lambda m, g: print("bp2"), prepend=True)
lin.register_full_backward_hook(lambda m, gi, go: print("bh1"))
lin.register_full_backward_hook(lambda m, gi, go: print("bh2"), prepend=True)
lin(torch.ones(1, 1, requires_grad=True)).sum().backward()
""",
    "global_module_hooks": """
lin = torch.nn.Linear(1, 1, bias=False)
with torch.no_grad():
    lin.weight.fill_(2.0)
lin.register_forward_hook(lambda m, i, o: print("local", o.item()))
lin.register_forward_pre_hook(lambda m, i: print("local pre"))
mm = torch.nn.modules.module
g1 = mm.register_module_forward_hook(lambda m, i, o: print("global", type(m).__name__, o.item()))
g2 = mm.register_module_forward_pre_hook(lambda m, i: print("global pre", type(m).__name__))
g3 = mm.register_module_forward_hook(lambda m, i, k, o: print("global kw", k), with_kwargs=True)
seq = torch.nn.Sequential(lin, torch.nn.ReLU())
print(seq(torch.ones(1, 1)).item())
g1.remove(); g2.remove(); g3.remove()
print(seq(torch.ones(1, 1)).item(), mm.Module is torch.nn.Module)
""",
    # --- bfloat16 --------------------------------------------------------------------------------------------
    "bfloat16_creation_printing_promotion": """
x = torch.tensor([1.0, 2.5, 1 / 3, 3.14159, -7.77], dtype=torch.bfloat16)
print(x, x.dtype, x.element_size(), x.type(), x.is_floating_point())
print(torch.tensor(2.5, dtype=torch.bfloat16), torch.tensor([1e10, 1e-10, 123456.0], dtype=torch.bfloat16))
print(torch.tensor([[1.0, 2.0]], dtype=torch.bfloat16, requires_grad=True))
y = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5])
print(y.bfloat16(), y.to(torch.bfloat16), y.type(torch.bfloat16), x.float(), x.to(torch.float64), x.half())
print((x + y).dtype, (x + y.half()).dtype, (x + y.double()).dtype, (x + torch.tensor([1, 2, 3, 4, 5])).dtype)
print((x + torch.tensor(1.5)).dtype, (y + torch.tensor(1.5, dtype=torch.bfloat16)).dtype)
print(torch.promote_types(torch.bfloat16, torch.float16), torch.promote_types(torch.bfloat16, torch.int64))
print(torch.result_type(x, 1.0), torch.result_type(x, y), torch.half is torch.float16, torch.bfloat16)
print(torch.zeros(3, dtype=torch.bfloat16), torch.full((2,), 1 / 3, dtype=torch.bfloat16))
print(torch.arange(0, 1, 0.3, dtype=torch.bfloat16), torch.linspace(0, 1, 4, dtype=torch.bfloat16))
print(torch.linspace(-5.5, 2.25, 13, dtype=torch.bfloat16), torch.linspace(0.1, 3.7, 9, dtype=torch.bfloat16))
print(torch.tensor([float("nan"), float("inf"), 3.4e38, 1e-40], dtype=torch.bfloat16))
for d in (torch.bfloat16, torch.float64, torch.int32, torch.float16, torch.bool, torch.float32):
    print(torch.tensor(torch.ones(2, dtype=d)), torch.tensor([torch.tensor(1.5, dtype=d)]).dtype)
""",
    "bfloat16_arithmetic_rounded": """
x = torch.tensor([[0.3, -1.7, 2.2], [4.1, -0.05, 0.9]], dtype=torch.bfloat16)
y = torch.tensor([[1.3, 0.7, -2.9], [0.11, 3.3, 1.9]], dtype=torch.bfloat16)
print(x + y, x - y, x * y, x / y, x * 3, x + 1, 1 / y, x.abs() ** 1.5)
print(x.exp(), x.sin(), x.tanh(), x.sigmoid(), y.abs().sqrt(), y.abs().log())
print(x.sum(), x.sum(0), x.mean(1), x.max(1), x.softmax(1), x @ y.T, x.cumsum(1), x.norm(), x.std())
print(torch.where(x > 0, x, y), torch.cat([x, y]), x.reshape(3, 2), x[:, 1], x.clamp(-1, 1))
print(x + torch.ones(3), x * torch.tensor([1, 2, 3]), x * torch.tensor(1.1), x.sum(dtype=torch.float32))
print(torch.nn.functional.gelu(x), torch.nn.functional.mse_loss(x, y), (x * 10).round(), x.argmax(), x == y)
c = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
c.add_(0.1); print(c)
c.mul_(torch.tensor([1.1, 1.1])); print(c)
c[0] = 1.2345; print(c)
""",
    "bfloat16_autograd": """
x = torch.tensor([[0.3, -1.7, 2.2], [4.1, -0.05, 0.9]], dtype=torch.bfloat16, requires_grad=True)
w = torch.tensor([[1.3, 0.7], [-2.9, 0.11], [3.3, 1.9]], dtype=torch.bfloat16, requires_grad=True)
out = (x @ w).tanh().sum() + (x * x).mean() + x.exp().sum() / 7
out.backward()
print(out, x.grad, w.grad)
a = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
b = a.bfloat16()
c = (b * b * 3).sum()
c.backward()
print(b, c, a.grad, type(b.grad_fn).__name__)
e = torch.tensor([1.0, 2.0], dtype=torch.bfloat16, requires_grad=True)
f = e * 1.1
f.retain_grad()
(f * f).sum().backward()
print(f.grad, e.grad)
lin = torch.nn.Linear(3, 2).bfloat16()
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]))
    lin.bias.fill_(0.1)
y = lin(torch.ones(1, 3, dtype=torch.bfloat16))
y.sum().backward()
print(y, lin.weight.grad, lin.bias.grad, lin.weight.dtype)
""",
}

@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(SNIPPETS[name], {"io": io, "collections": collections})


def test_bfloat16_rounding_matches_torch_bit_for_bit() -> None:
    rng = np.random.RandomState(0)
    for values in (rng.randn(20000).astype(np.float32) * 1e3, rng.randn(20000),  # float64: through float32
                   np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.39e38, 1e-40, 1.00390625, 1.01171875], np.float32)):
        ours = engine.tensor(values, dtype=engine.bfloat16).float()._data
        theirs = torch.tensor(values).bfloat16().float().numpy()
        assert np.array_equal(ours, theirs, equal_nan=True)


# --- what torch.load refuses: never pickle, never a tensor outside its storage, never a file --------------
def _saved(obj: object) -> io.BytesIO:
    buf = io.BytesIO()
    engine.save(obj, buf)
    buf.seek(0)
    return buf


class _Flag:
    called = False

    def __reduce__(self) -> tuple:
        return (_Flag.mark, ())

    @staticmethod
    def mark() -> None:
        _Flag.called = True


@pytest.mark.parametrize("weights_only", [True, False])
def test_load_never_unpickles(weights_only: bool) -> None:
    for payload in (pickle.dumps(_Flag()), pickle.dumps({"a": 1}), b"PK\x03\x04 a zip file"):
        with pytest.raises(pickle.UnpicklingError, match="never pickle data"):
            engine.load(io.BytesIO(payload), weights_only=weights_only)
    assert not _Flag.called


def _crafted(root: object, storages: list | None = None, payload: bytes = b"\x00" * 16) -> io.BytesIO:
    import json

    from engine.serialization import MAGIC

    header = json.dumps({"storages": [["float32", 16]] if storages is None else storages, "root": root}).encode()
    return io.BytesIO(MAGIC + len(header).to_bytes(8, "little") + header + payload)


def _tensor_node(**fields: object) -> dict:
    node = {"t": "tensor", "id": 0, "storage": 0, "dtype": "float32", "shape": [4], "stride": [1], "offset": 0,
            "requires_grad": False, "param": False}
    node.update(fields)
    return node


@pytest.mark.parametrize("root,storages", [
    (_tensor_node(shape=[5]), None),
    (_tensor_node(offset=4), None),
    (_tensor_node(shape=[2], stride=[4]), None),
    (_tensor_node(stride=[-1], offset=3), None),
    (_tensor_node(shape=[2, 2], stride=[2]), None),
    (_tensor_node(shape=[4.0]), None),
    (_tensor_node(dtype="float64"), None),
    (_tensor_node(dtype="object"), [["object", 16]]),
    (_tensor_node(storage=1), None),
    (_tensor_node(), [["float32", 17]]),
    (_tensor_node(), [["float32", 32]]),
    (_tensor_node(dtype="int64", requires_grad=True), [["int64", 16]]),
    (_tensor_node(shape=[2 ** 40], stride=[0]), None),
    ({"t": "ref", "id": 3}, None),
    ({"t": "list", "id": 0, "v": [{"t": "nope"}]}, None),
    ({"t": "dict", "id": 0, "v": [[{"t": "list", "id": 1, "v": []}, 1]]}, None),
    ([1, 2], None),
])
def test_load_checks_every_field(root: object, storages: list | None) -> None:
    with pytest.raises(pickle.UnpicklingError):
        engine.load(_crafted(root, storages))


def test_load_of_a_well_formed_crafted_buffer_and_of_other_objects() -> None:
    t = engine.load(_crafted(_tensor_node(shape=[2, 2], stride=[0, 1], offset=2)))
    assert t.tolist() == [[0.0, 0.0], [0.0, 0.0]] and t.stride() == (0, 1)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL os.system was not an allowed global"):
        engine.load(_crafted({"t": "global", "v": "os.system"}))
    with pytest.raises(RuntimeError, match="cannot recreate"):
        engine.load(_saved(engine.nn.Linear(1, 1)), weights_only=False)
    with pytest.raises(EOFError):
        engine.load(io.BytesIO())


def test_paths_are_refused() -> None:
    import pathlib

    for target in ("model.pt", b"model.pt", pathlib.Path("model.pt")):
        with pytest.raises(RuntimeError, match="file paths are not available"):
            engine.save({"a": 1}, target)
        with pytest.raises(RuntimeError, match="file paths are not available"):
            engine.load(target)
