"""Sandboxed programs that read module hook dicts, write through `t.numpy()` and build NumPy arrays print what
PyTorch prints; NumPy arrays over the tensor element limit stop the run with the tensors' message."""

from __future__ import annotations

import json

import pytest

from server.sandbox import Sandbox
from tests.test_sandbox_keeps_legit_code import _run_like_a_script, _sandboxed

torch = pytest.importorskip("torch")

PROGRAMS = {
    "hook_dicts": """
import torch
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
acts = {}
def save(name):
    def hook(mod, inp, out):
        acts[name] = out.detach()
    return hook
hs = [layer.register_forward_hook(save(str(i))) for i, layer in enumerate(m)]
pre = m[0].register_forward_pre_hook(lambda mod, inp: None)
print(len(m[0]._forward_hooks), len(m[0]._forward_pre_hooks), len(m._forward_hooks), len(m[0]._backward_hooks))
print(type(m[0]._forward_hooks), bool(m[0]._backward_hooks), bool(m[0]._forward_hooks))
print(list(m[0]._forward_hooks) == [hs[0].id], hs[0].id in m[0]._forward_hooks, 12345 in m[0]._forward_hooks)
print([f.__name__ for f in m[0]._forward_hooks.values()], [k == hs[1].id for k, v in m[1]._forward_hooks.items()])
for h in m[1]._forward_hooks.values():
    print(h.__name__, callable(h))
m(torch.ones(1, 2))
print(sorted(acts))
k = list(m[0]._forward_hooks)[0]
print(m[0]._forward_hooks.get(k).__name__, m[0]._forward_hooks.get(999), m[0]._forward_hooks[k].__name__)
del m[0]._forward_hooks[k]
print(len(m[0]._forward_hooks), m[0]._forward_hooks.pop(999, 'none'))
print(m[1]._forward_hooks.pop(hs[1].id).__name__, len(m[1]._forward_hooks))
print(m[0]._forward_hooks == {}, dict(m[0]._forward_hooks), m[0]._forward_hooks)
hs[0].remove()
pre.remove()
print(m[0]._forward_pre_hooks, m[0]._state_dict_hooks, m[0]._backward_pre_hooks)
b = m[0].register_full_backward_hook(lambda mod, gi, go: None)
print(len(m[0]._backward_hooks))
m[0]._backward_hooks.clear()
print(len(m[0]._backward_hooks))
m(torch.ones(1, 2, requires_grad=True)).sum().backward()
try:
    m[0]._forward_hooks.pop(5)
except KeyError as e:
    print('KeyError', e)
lin = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))
print(len(lin._forward_pre_hooks), [type(h).__name__ for h in lin._forward_pre_hooks.values()])
""",
    "numpy_shares_memory": """
import torch
t = torch.ones(3)
n = t.numpy()
n[0] = 7
n += 1
d = t.detach().numpy()
d[1] = 5
print(t, n, t._version)
w = torch.zeros(2, 3, requires_grad=True)
a = w.detach().numpy()
a[:, 0] = 1.5
print(w)
b = w.numpy(force=True)
b[1, 1] = 2
print(w.sum().item())
e = torch.arange(6.).reshape(2, 3).t()
print(e.numpy().shape, e.numpy().T.tolist())
e.numpy()[0, 1] = 100
print(e)
z = torch.tensor(3.0)
zz = z.numpy()
zz += 1
print(z, zz)
s = torch.ones(4)[1:3]
s.numpy()[0] = 9
print(s)
x = torch.ones(3).expand(2, 3)
x.numpy()[0, 0] = 5
print(x)
g = torch.ones(2, requires_grad=True)
(g * 3).sum().backward()
g.grad.numpy()[0] = 0
print(g.grad)
r = torch.from_numpy(t.numpy())
r[2] = -1
print(t, r)
try:
    g.numpy()
except RuntimeError as e:
    print(e)
""",
}


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    with Sandbox(workers=2, timeout_s=10.0) as sb:
        yield sb


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_pytorch_prints(sandbox: Sandbox, name: str) -> None:
    code = PROGRAMS[name]
    assert _sandboxed(sandbox, code) == _run_like_a_script(code)


def test_hook_ids_count_from_zero_as_in_a_fresh_pytorch_process(sandbox: Sandbox) -> None:
    # The warm parent registers hooks of its own before forking; a run still starts at handle id 0.
    code = ("import torch\nm = torch.nn.Linear(1, 1)\nh = m.register_forward_hook(lambda *a: None)\n"
            "print(m._forward_hooks.keys(), h.id)\n")
    assert _sandboxed(sandbox, code) == "odict_keys([0]) 0\n"


LIMITED = {
    "np.zeros(10**7)": "numpy.zeros() would create an array of shape [10000000]",
    "np.ones((4000, 4000))": "numpy.ones() would create an array of shape [4000, 4000]",
    "np.empty(10**7)": "numpy.empty() would create an array of shape [10000000]",
    "np.full((10**4, 10**3), 1.0)": "numpy.full() would create an array of shape [10000, 1000]",
    "np.zeros_like(np.ones(3), shape=(10**7,))": "numpy.zeros_like() would create an array of shape [10000000]",
    "np.arange(10**8)": "numpy.arange() would create an array of shape [100000000]",
    "np.arange(0, 1, 1e-8)": "numpy.arange() would create an array of shape [100000000]",
    "np.linspace(0, 1, 10**7)": "numpy.linspace() would create an array of shape [10000000]",
    "np.eye(3000)": "numpy.eye() would create an array of shape [3000, 3000]",
    "np.identity(2001)": "numpy.identity() would create an array of shape [2001, 2001]",
    "np.tile(np.ones(10), 10**6)": "numpy.tile() would create an array of shape [10000000]",
    "np.repeat(np.ones(10), 10**6)": "numpy.repeat() would create an array of shape [10000000]",
    "np.repeat([1, 2], [10**7, 1])": "numpy.repeat() would create an array of shape [10000001]",
    "np.broadcast_to(np.ones(1), (10**7,)).copy()": "numpy.broadcast_to() would create an array of shape [10000000]",
    "np.outer(np.ones(3000), np.ones(3000))": "numpy.outer() would create an array of shape [3000, 3000]",
    "np.kron(np.ones(3000), np.ones(3000))": "numpy.kron() would create an array of shape [3000, 3000]",
    "np.meshgrid(np.ones(2000), np.ones(2000))": "numpy.meshgrid() would create an array of shape [2000, 2000]",
    "np.diag(np.ones(2001))": "numpy.diag() would create an array of shape [2001, 2001]",
    "np.bincount([10**8])": "numpy.bincount() would create an array of shape [100000001]",
    "np.histogram([1.0], bins=10**7)": "numpy.histogram() would create an array of shape [10000000]",
    "np.add(np.ones((3000, 1)), np.ones((1, 3000)))": "numpy.add() would create an array of shape [3000, 3000]",
    "np.where(np.ones((3000, 1)) > 0, np.ones((1, 3000)), 0)": "numpy.where() would create an array of shape [3000, 3000]",
    "np.concatenate([np.ones(3 * 10**6), np.ones(3 * 10**6)])":
        "numpy.concatenate() would create an array of shape [6000000]",
    "np.matmul(np.ones((3000, 1)), np.ones((1, 3000)))": "numpy.matmul() would create an array of shape [3000, 3000]",
    "np.dot(np.ones((10**4, 1)), np.ones((1, 10**4)))": "numpy.dot() would create an array of shape [10000, 10000]",
    "np.matmul(np.ones((5, 3000, 1)), np.ones((1, 3000)))": "numpy.matmul() would create an array of shape [5, 3000, 3000]",
    "np.einsum('i,j->ij', np.ones(3000), np.ones(3000))": "numpy.einsum() would create an array of shape [3000, 3000]",
}


@pytest.mark.parametrize("expr", sorted(LIMITED))
def test_numpy_arrays_get_the_tensor_element_limit(sandbox: Sandbox, expr: str) -> None:
    trace = json.loads(sandbox.run(f"import numpy as np\nprint('before')\ntry:\n    a = {expr}\n"
                                   "except Exception:\n    print('swallowed')\n"))
    assert trace["status"] == "limit", trace
    assert trace["stdout"] == "before\n"
    assert trace["error"]["message"] == "tensor size limit (4,000,000 elements) reached: " + LIMITED[expr]


def test_the_tensor_limit_message_is_the_same(sandbox: Sandbox) -> None:
    trace = json.loads(sandbox.run("import torch\nx = torch.zeros(10**7)\n"))
    assert trace["error"]["message"].startswith("tensor size limit (4,000,000 elements) reached: ")


def test_numpy_arrays_up_to_the_limit_are_made(sandbox: Sandbox) -> None:
    code = """
import numpy as np
print(np.zeros(4_000_000).shape, np.arange(4_000_000).shape, np.ones((2000, 2000)).shape, np.tile([1, 2], 3).tolist())
print(np.repeat([1, 2], [2, 3]).tolist(), np.arange(0.0, 1.0, 0.25).tolist(), np.arange(5, 1, -1).tolist())
print(np.eye(2, 3).tolist(), np.linspace(0, 1).shape, np.meshgrid([1, 2], [3, 4, 5])[0].shape, np.diag([1, 2], 1).shape)
print(np.bincount([1, 2, 2]).tolist(), np.histogram([1.0, 2.0], bins=4)[0].tolist(), np.outer([1, 2], [3, 4]).tolist())
print(np.dot(np.ones((3, 2)), np.ones(2)).tolist(), np.dot(np.ones(2), np.ones((2, 4))).shape,
      np.matmul(np.ones((5, 2, 3)), np.ones((3, 4))).shape, np.dot(np.ones((2, 3, 4)), np.ones((5, 4, 6))).shape)
print(np.add(np.ones((2000, 1)), np.ones((1, 2000))).shape, np.full((2, 2), 7).tolist(), np.broadcast_to(1.0, (3,)).tolist())
"""
    expected = _run_like_a_script(code)
    assert _sandboxed(sandbox, code) == expected
