"""Small gaps against PyTorch 2.13 (creation sizes, dtypes given as Python types, loss/activation argument checks,
scatter shape checks, 0-d reductions, inference tensors); programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "views_of_inference_tensors_are_inference_tensors": """
b = torch.ones(3, requires_grad=True)
c = torch.ones(3)
with torch.inference_mode():
    bv = b[1:]; cv = c.view(3); cd = c.detach()
    print(bv.is_inference(), bv.requires_grad, bv.grad_fn, cv.is_inference(), cd.is_inference())
    print((b * 2).requires_grad, (b * 2).is_inference())
    d = torch.ones(2, requires_grad=True)
    print(d.requires_grad, d[0:1].requires_grad, d.view(2).requires_grad, d.is_inference(), d[0:1].is_inference())
    a = torch.ones(2, 3)
print(bv.is_inference(), bv.requires_grad, cv.is_inference(), d[0:1].requires_grad, d[0:1].is_inference())
print(d.view(2).requires_grad, d.view(2).grad_fn, d.detach().is_inference())
print(a.view(3, 2).is_inference(), a.t().is_inference(), a.unsqueeze(0).is_inference(),
      [t.is_inference() for t in a.unbind(0)], a.expand(2, 2, 3).is_inference(), a.detach().is_inference(),
      a.reshape(6).is_inference(), a.clone().is_inference(), a[0].is_inference(), a[:, 1].is_inference())
with torch.no_grad():
    print(a[0].is_inference(), a.t().is_inference())
""",
    "reductions_over_dim_0_or_minus_1_of_0d_tensors": """
x = torch.tensor(3.)
for c in ["x.amax(0)", "x.amin(-1)", "x.amax((0,))", "x.amax([])", "x.amax(0, keepdim=True)", "x.sum(0)", "x.mean(0)",
          "x.max(0)", "x.min(-1)", "x.argmax(0)", "x.argmin(-1)", "x.logsumexp(0)", "x.prod(0)", "x.cumsum(0)",
          "x.softmax(0)", "x.norm(dim=0)", "x.any(0)", "x.all(0)", "x.median(0)", "x.sort(0)", "x.nansum(0)",
          "x.count_nonzero(0)", "x.aminmax(dim=0)", "x.nanmean(0)", "x.flip(0)", "x.unique(dim=0)", "x.unique(dim=-1)",
          "torch.linalg.vector_norm(x, dim=0)", "x.squeeze(0)", "x.squeeze(-1)", "x.sum(1)", "x.amax(1)", "x.amax((0, -1))",
          "x.amin(-2)", "x.sum(0, keepdim=True)", "x.mean((0,), keepdim=True)", "x.flip(-1)", "x.flip(1)"]:
    run(c, lambda: eval(c))
x = torch.tensor(3., requires_grad=True)
y = x.sum(0) + x.mean(-1) + x.amax(0) + x.logsumexp(0) + x.norm(dim=0) + x.nansum(0) + x.flip(0) + x.squeeze(0)
y = y + x.amin(0, keepdim=True).sum()
y.backward()
print(x.grad, x.sum(0).grad_fn._saved_dim, x.amax(-1).grad_fn._saved_dim, x.mean(0).grad_fn)
g, = torch.autograd.grad(x.logsumexp(0) * x.amax(-1, keepdim=True) * x.mean(0) * x.sum(-1), x, create_graph=True)
print(g)
g.backward()
print(x.grad)
""",
    "sizes_that_are_not_ints_raise_type_errors": """
import numpy as np
for f in ["zeros", "ones", "empty", "rand", "randn"]:
    for a in ["2.0", "2, 3.0", "2.0, 3", "(2.0,)", "(2, 3.0)", "[2.0]", "[2, 3.0]", "[2.0, 3]", "True", "torch.tensor(2.)",
              "torch.tensor(2)", "np.int64(2)", "np.float64(2)", "(2, True)", "2, True", "None", "'a'", "(2, None)",
              "2.0, dtype=torch.float64", "2.5, requires_grad=True", "torch.tensor([2, 3])", "(torch.tensor(2), 3)"]:
        c = f"torch.{f}({a})"
        run(c, lambda: tuple(eval(c).shape))
for c in ["torch.full((2.0,), 1)", "torch.full(2.0, 1)", "torch.full([2, 3.0], 1)", "torch.full(2, 1)", "torch.full((2,), 1)",
          "torch.randint(5, (2.0,))", "torch.randint(5, 2.0)", "torch.randint(5, (2, 3.0))", "torch.randint(5, [2, 3.0])",
          "torch.randint(5, (2, 3))"]:
    run(c, lambda: tuple(eval(c).shape))
""",
    "round_with_decimals_of_integer_and_bool_tensors": """
for c in ["torch.round(torch.tensor([1, 2]), decimals=1)", "torch.tensor([1, 2]).round(decimals=2)",
          "torch.tensor([15, 25]).round(decimals=-1)", "torch.tensor([1, 2]).round()", "torch.round(torch.tensor([1, 2]), decimals=0)",
          "torch.tensor([True]).round()", "torch.tensor([True]).round(decimals=1)", "torch.tensor([1], dtype=torch.uint8).round(decimals=1)",
          "torch.tensor([1], dtype=torch.int32).round(decimals=0)", "torch.tensor([1]).round_(decimals=1)",
          "torch.tensor([1]).round_(decimals=0)", "torch.tensor([1]).round_()", "torch.tensor([1.5, 2.5]).round(decimals=0)",
          "torch.tensor([1.25, 2.35]).round_(decimals=1)", "torch.round_(torch.tensor([1.26]), decimals=1)"]:
    run(c, lambda: eval(c))
x = torch.tensor([1.5, 2.25], requires_grad=True)
print(x.round(decimals=0).grad_fn.name(), x.round().grad_fn.name(), torch.round(x, decimals=1))
""",
    "scatter_checks_index_shape_against_self_and_src": """
z = torch.zeros(3, 3)
for c in ["z.scatter(0, torch.tensor([[0,1,2,0]]), torch.ones(1,3))", "z.scatter(0, torch.tensor([[0,1,2]]), torch.ones(1,2))",
          "z.scatter(0, torch.tensor([[0,1,2,0]]), 1.0)", "z.scatter(0, torch.tensor([[0,1,2]]), 1.0)",
          "z.scatter(1, torch.tensor([[0],[1],[2],[0]]), 1.0)", "z.scatter(0, torch.tensor([0,1]), torch.ones(3))",
          "z.scatter(0, torch.tensor([[[0]]]), torch.ones(1,1,1))", "z.scatter(0, torch.tensor([[0]]), torch.ones(3))",
          "z.scatter(0, torch.tensor([[5]]), torch.ones(1,1))", "z.scatter(0, torch.tensor([[5, 1, 1, 1]]), torch.ones(1,3))",
          "z.scatter_add(0, torch.tensor([[0,1,2,0]]), torch.ones(1,3))", "z.scatter_add(1, torch.tensor([[0,1]]), torch.ones(1,1))",
          "z.scatter_reduce(0, torch.tensor([[0,1,2,0]]), torch.ones(1,3), 'sum')",
          "z.scatter_reduce(0, torch.tensor([[0,1]]), torch.ones(2,1), 'amax')",
          "z.scatter(0, torch.tensor([[0,1,2,0]]), torch.ones(1,3), reduce='add')",
          "z.scatter(0, torch.tensor([[0,1]]), torch.ones(1,1), reduce='multiply')",
          "z.scatter(0, torch.tensor([[0,1,0]]), torch.ones(2,4))", "torch.zeros(3).scatter(0, torch.tensor([0,1,2,0]), torch.ones(3))",
          "torch.zeros(3).scatter(0, torch.tensor([0,1,2,0]), 2.)", "torch.zeros(3).scatter_(0, torch.tensor([0,1,2,0]), torch.ones(5))",
          "z.scatter(0, torch.tensor([[0,1,2,0]]).int(), torch.ones(1,3))",
          "z.scatter(0, torch.tensor([[0,1,2,0]]), torch.ones(1,3).double())", "z.scatter_(-1, torch.tensor([[0,1,2,0]]), 2.)",
          "z.scatter(0, torch.zeros(1, 5, dtype=torch.long)[:, :0], torch.ones(1, 1))"]:
    run(c, lambda: eval(c))
z = torch.zeros(3, 3, requires_grad=True)
s = torch.tensor([[1., 2.]], requires_grad=True)
y = z.scatter(1, torch.tensor([[0, 1]]), s)  # an index smaller than self writes only where it has entries
print(y, z.scatter(-1, torch.tensor([[0, 1]]), 2.), torch.zeros(3, 3).scatter_add(0, torch.tensor([[1, 2]]), torch.ones(1, 2)))
(y * torch.arange(9.).reshape(3, 3)).sum().backward()
print(z.grad, s.grad)
y = z.scatter(-1, torch.tensor([[2], [0]]), 5.)
g, = torch.autograd.grad((y ** 2 * z).sum(), z, create_graph=True)
print(y, g)
""",
    "loss_and_activation_argument_checks": """
F = torch.nn.functional
for c in ["F.binary_cross_entropy(torch.tensor([0.5, 0.3]), torch.tensor([1.5, 0.]))",
          "F.binary_cross_entropy(torch.tensor([0.5, 0.3]), torch.tensor([-0.5, 0.]))",
          "F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.5]))",
          "F.binary_cross_entropy(torch.tensor([float('nan')]), torch.tensor([0.5]))",
          "F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([float('nan')]))",
          "F.binary_cross_entropy(torch.tensor([0.5, 0.2]), torch.tensor([1.0, 0.]))",
          "F.binary_cross_entropy(torch.tensor([0.5], requires_grad=True), torch.tensor([2.]))",
          "torch.nn.BCELoss()(torch.tensor([0.5]), torch.tensor([-1.]))",
          "F.huber_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), delta=0.)",
          "F.huber_loss(torch.tensor([1., 2.]), torch.tensor([0., 0., 0.]), delta=0.)",
          "F.huber_loss(torch.tensor([1, 2]), torch.tensor([0, 0]), delta=0.)",
          "F.huber_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), delta=-1., reduction='none')",
          "torch.nn.HuberLoss(delta=-1.)(torch.tensor([1., 2.]), torch.tensor([0., 0.]))",
          "F.huber_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), delta=0.5)",
          "F.smooth_l1_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), beta=-1.)",
          "torch.nn.SmoothL1Loss(beta=-0.5)(torch.tensor([1., 2.]), torch.tensor([0., 0.]))",
          "F.smooth_l1_loss(torch.tensor([1, 2]), torch.tensor([0, 0]), beta=-1.)",
          "F.smooth_l1_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), beta=0.)",
          "F.gelu(torch.tensor([1.]), approximate='bad')", "F.gelu(torch.tensor([1.]), approximate='Tanh')",
          "torch.nn.GELU(approximate='x')(torch.tensor([1.]))", "F.gelu(torch.tensor([1]), approximate='bad')",
          "F.gelu(torch.tensor([1.]), approximate='tanh')"]:
    run(c, lambda: eval(c))
for fn in ["F.leaky_relu", "F.leaky_relu_", "torch.nn.LeakyReLU()", "torch.nn.LeakyReLU(inplace=True)", "F.mish", "F.hardswish",
           "F.hardsigmoid", "F.logsigmoid", "F.hardshrink", "F.softshrink", "F.glu", "F.hardtanh", "F.relu6", "F.gelu", "F.relu"]:
    for a in ["torch.tensor([1, -2])", "torch.tensor([True, False])", "torch.tensor([1, 2], dtype=torch.uint8)",
              "torch.tensor([1, -2], dtype=torch.int32)", "torch.tensor([1.5, -2.5])"]:
        c = f"{fn}({a})"
        run(c, lambda: eval(c))
""",
    "python_types_as_dtypes_numpy_conversions_and_pinning": """
import numpy as np
for c in ["torch.tensor([1, 2], dtype=float)", "torch.tensor([1, 2], dtype=int)", "torch.tensor([1, 2], dtype=bool)",
          "torch.tensor([1, 2], dtype=complex)", "torch.zeros(2, dtype=float)", "torch.ones(2, dtype=int)",
          "torch.tensor([1.5]).to(float)", "torch.tensor([1.5]).to(int)", "torch.arange(3, dtype=float)",
          "torch.tensor([1, 2]).type(float)", "torch.tensor([1, 2]).type(int)", "torch.full((2,), 1, dtype=float)",
          "torch.tensor([1.5], dtype=float).dtype", "torch.from_numpy([1, 2])", "torch.from_numpy(3)",
          "torch.from_numpy(torch.tensor([1]))", "torch.from_numpy(np.float64(1))", "torch.from_numpy(None)",
          "torch.from_numpy(np.array([1., 2.]))", "torch.tensor([1., 2.]).to(torch.bfloat16).numpy()",
          "torch.tensor([1.], requires_grad=True).bfloat16().numpy()", "torch.tensor([1., 2.]).bfloat16().numpy(force=True)", "torch.tensor([1., 2.]).half().numpy()",
          "torch.tensor([1.]).bfloat16().tolist()", "torch.tensor([1.]).pin_memory()", "torch.tensor([1.]).is_pinned()"]:
    run(c, lambda: eval(c))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
