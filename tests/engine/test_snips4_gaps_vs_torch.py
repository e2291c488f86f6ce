"""Full backward hooks on modules whose outputs are changed in place (views made by BackwardHookFunction),
views made inside a custom Function, grad_fn._raw_saved_<name> (SavedTensor and its register_hooks) and
unsigned int64 saved attributes: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "full_backward_hook_inplace": """
x = torch.tensor([[1.0, -2.0]], requires_grad=True)
relu = torch.nn.ReLU(inplace=True)
h = relu.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
run("hooked inplace relu", lambda: relu(x * 1))
run("no input needs grad", lambda: relu(torch.ones(2)))
def under_no_grad():
    with torch.no_grad():
        return relu(x * 1)
run("under no_grad", under_no_grad)
h.remove()
run("hook removed", lambda: relu(x * 1))
lin = torch.nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: None)
run("output changed in place", lambda: lin(x).add_(1))
seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(inplace=True))
seq[0].register_full_backward_hook(lambda m, gi, go: print("linear hook"))
run("hooked layer then ReLU(inplace=True)", lambda: seq(x))
m = torch.nn.ReLU(inplace=True)
m.register_full_backward_pre_hook(lambda m, go: print("pre hook"))
run("pre hook", lambda: m(x * 1))
torch.manual_seed(0)
lin = torch.nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
y = lin(x)
print(y, y._base is not None, y.is_leaf, y.requires_grad, y._version)
y.sum().backward()
print(x.grad, lin.weight.grad)
with torch.no_grad():
    w = lin(x)
print(w, w._base is not None, w.requires_grad)
w.add_(1)
o = torch.nn.Sequential(torch.nn.ReLU(inplace=True), lin)(x * 1)
print(o)
""",
    "custom_function_view_output_inplace": """
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
class IdView(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([[1.0, -2.0]], requires_grad=True)
run("as-is relu_", lambda: Id.apply(x * 1).relu_())
run("view relu_", lambda: IdView.apply(x * 1).relu_())
run("view of a leaf", lambda: IdView.apply(x).mul_(2))
run("view, no grad needed", lambda: IdView.apply(torch.ones(2)).mul_(2))
y = IdView.apply(x * 1)
y.sum().backward()
print(x.grad, y.grad_fn)
""",
    "raw_saved_tensors": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
r = y.grad_fn._raw_saved_self
print(type(r).__name__, y.grad_fn._raw_saved_self is r, type(y.grad_fn._raw_saved_other).__name__)
def pack(t):
    print("pack", t)
    return t * 10
def unpack(t):
    print("unpack", t)
    return t
r.register_hooks(pack, unpack)
run("saved after hooks", lambda: y.grad_fn._saved_self)
run("register twice", lambda: r.register_hooks(pack, unpack))
run("not callable", lambda: type(y.grad_fn._raw_saved_other.register_hooks(1, 2)))
y.sum().backward()
print(x.grad)
run("raw after backward", lambda: type(y.grad_fn._raw_saved_self).__name__)
run("register after backward", lambda: y.grad_fn._raw_saved_other.register_hooks(pack, unpack))
z = (x * 1).exp()
z.grad_fn._raw_saved_result.register_hooks(lambda t: t.detach(), lambda t: t)
run("result after hooks", lambda: z.grad_fn._saved_result)
w = x * 1
v = w * w
v.grad_fn._raw_saved_self.register_hooks(lambda t: t * 2, lambda t: t)
run("non-leaf after hooks", lambda: v.grad_fn._saved_self)
v.sum().backward()
print(x.grad)
run("no such tensor", lambda: z.grad_fn._raw_saved_self)
run("sum saves no tensor", lambda: x.sum().grad_fn._raw_saved_self)
run("sizes are not tensors", lambda: x.sum().grad_fn._raw_saved_self_sym_sizes)
run("cat's list", lambda: torch.cat([x, x]).grad_fn._raw_saved_tensors)
l = torch.nn.functional.cross_entropy(torch.zeros(2, 3, requires_grad=True), torch.tensor([1, 0]))
run("ignore_index", lambda: l.grad_fn._saved_ignore_index)
nll = torch.nn.functional.nll_loss
run("ignore_index -5", lambda: nll(torch.zeros(2, 3, requires_grad=True), torch.tensor([1, 0]),
                                   ignore_index=-5).grad_fn._saved_ignore_index)
run("ignore_index 5", lambda: nll(torch.zeros(2, 3, requires_grad=True), torch.tensor([1, 0]),
                                  ignore_index=5).grad_fn._saved_ignore_index)
run("raw target", lambda: type(l.grad_fn._raw_saved_target).__name__)
run("raw weight (None)", lambda: type(l.grad_fn._raw_saved_weight).__name__)
run("undefined register", lambda: l.grad_fn._raw_saved_weight.register_hooks(pack, unpack))
run("raw total_weight", lambda: type(l.grad_fn._raw_saved_total_weight).__name__)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
