"""Gaps found by the eighth snippet sweep (errors, warnings and printing); small programs run with torch and with
the engine print the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "index_errors_name_the_key_position": """
x = torch.zeros(2, 3, 4)
y = torch.zeros(3, 4)
for c in ["x[:, :, torch.tensor([5])]", "x[torch.tensor([0]), :, torch.tensor([5])]", "x[torch.tensor([2]), :, torch.tensor([1])]",
          "x[:, torch.tensor([0]), torch.tensor([7])]", "x[0, torch.tensor([9])]", "x[:, 1, torch.tensor([9])]",
          "x[..., torch.tensor([-9])]", "x[0, 5]", "x[1, 2, 4]", "x[:, 3]", "x[..., 4]", "x[None, 0, 3]", "x[:, :, -5]",
          "x[torch.tensor([[0, 3]])]", "x[1:, 5]", "x[torch.tensor([True, False]), 7]",
          "x[:, torch.tensor([True, False, True]), torch.tensor([4])]", "y[torch.tensor([1, 5, -9])]",
          "y[torch.tensor([-9, 5])]", "y[torch.tensor([0, 1]), torch.tensor([9, 0])]",
          "y[torch.tensor([0, 7]), torch.tensor([9, 0])]", "y[torch.tensor([[0], [7]]), torch.tensor([9, 0])]",
          "y[torch.tensor([1, 2]), 9]", "y[-4]", "y[0, -5]", "y[torch.tensor(5)]", "y[0, torch.tensor(7)]", "y[1, 2]"]:
    run(c, lambda: eval(c))
""",
    "matmul_batch_dims_that_do_not_broadcast": """
for a, b in [((2, 3, 4), (3, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 3, 4, 5)), ((7, 2, 3, 4), (6, 1, 4, 5)),
             ((2, 3, 4), (3, 5, 5)), ((1, 3, 4), (2, 4, 5)), ((3, 2, 4), (2, 4))]:
    for rg in (False, True):
        run(str((a, b, rg)), lambda: torch.matmul(torch.ones(a, requires_grad=rg), torch.ones(b)).shape)
""",
    "index_select_index_checks_and_reshape_of_nothing": """
for c in ['torch.zeros(2,3).index_select(1, torch.tensor([0.]))', 'torch.zeros(2,3).index_select(1, torch.tensor([[0]]))',
          'torch.zeros(2,3).index_select(1, torch.tensor([True]))', 'torch.zeros(2,3).index_select(1, torch.tensor([0], dtype=torch.int16))',
          'torch.zeros(2,3).index_select(1, torch.tensor([2], dtype=torch.int32))', 'torch.zeros(2,3).index_select(0, torch.tensor(1))',
          'torch.zeros(0, 3).reshape(-1, 0)', 'torch.zeros(0, 3).reshape(0, -1)', 'torch.zeros(0, 3).reshape(2, -1)',
          'torch.zeros(0,3).view(-1,0)', 'torch.zeros(0,3).reshape(-1, 2, 0)', 'torch.zeros(6).reshape(-1, 0)',
          'torch.zeros(6).view(0, -1)', 'torch.zeros(0).view(-1)', 'torch.zeros(0).reshape(3, -1, 0)']:
    run(c, lambda: eval(c).shape)
x = torch.arange(6.).reshape(2, 3).requires_grad_()
y = x.index_select(1, torch.tensor(2))
y.sum().backward()
run("0-d index", lambda: (y, x.grad))
""",
    "softmax_and_samplers_refuse_integer_dtypes_and_negative_std": """
F = torch.nn.functional
x = torch.tensor([[1, 2], [3, 4]])
for c in ["torch.softmax(x, 0)", "torch.softmax(x, 1)", "torch.softmax(x[0], 0)", "x.softmax(-1)", "torch.log_softmax(x, 0)",
          "torch.log_softmax(x, 1)", "F.softmax(x, dim=1)", "F.log_softmax(x, 1)", "torch.softmax(x.bool(), 1)",
          "torch.softmax(x, 1, dtype=torch.float32)", "torch.softmax(x.int(), 0)", "torch.softmax(torch.tensor(3), 0)",
          "F.cross_entropy(x, torch.tensor([0, 1]))", "torch.nn.Softmax(dim=0)(x)", "F.softmin(x, 1)", "torch.softmax(x, 5)",
          "torch.randn(2, dtype=torch.long)", "torch.rand(2, dtype=torch.long)", "torch.randn(2, dtype=torch.int32)",
          "torch.rand(2, dtype=torch.bool)", "torch.rand_like(x)", "torch.randn_like(x)", "torch.randn_like(x, dtype=torch.float64)",
          "torch.normal(0., -1., size=(2,))", "torch.normal(torch.zeros(2), -1.)", "torch.normal(0., -1e-7, size=(1,))",
          "torch.normal(torch.zeros(2), torch.tensor([1., -1.]))", "torch.normal(0., torch.tensor([-2., 1.]))",
          "torch.normal(torch.zeros(2), torch.tensor([]))", "torch.normal(2., 0., size=(2,))", "torch.normal(torch.tensor([0., 1.]), 0.5)",
          "torch.zeros(2).normal_(0, -1)", "torch.zeros(2, 2).normal_(0, -2.5)", "torch.zeros(2, dtype=torch.long).normal_()",
          "torch.zeros(2, dtype=torch.long).normal_(0, -1)", "torch.zeros(2, dtype=torch.long).uniform_()",
          "torch.empty(2, dtype=torch.int32).uniform_(0, 1)", "torch.nn.init.normal_(torch.zeros(2), 0, -1)",
          "torch.nn.init.uniform_(torch.zeros(2, dtype=torch.long))", "torch.zeros(2, dtype=torch.long).exponential_()"]:
    torch.manual_seed(0)
    run(c, lambda: eval(c))
""",
    "torch_range_is_inclusive_and_warns": """
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    run("plain", lambda: torch.range(0, 3))
    run("step", lambda: torch.range(1, 2, 0.5))
print([(x.category.__name__, str(x.message)) for x in w])
warnings.simplefilter("ignore")
for c in ['torch.range(0, 3, 0)', 'torch.range(3, 0)', 'torch.range(0, -3, 1)', 'torch.range(3)', 'torch.range(0, 0.9, 0.3)',
          'torch.range(0, 1, 0.1)', 'torch.range(0, 5, dtype=torch.long)', 'torch.range(1.5, 4)', 'torch.range(5, 1, -1.5)',
          'torch.range(0, 1, 0.1, dtype=torch.float64)', 'torch.range(-1, 1, 0.2).tolist()', 'torch.range(0, 4, 2, requires_grad=True)']:
    run(c, lambda: eval(c))
""",
    "shape_checks_of_addmm_baddbmm_outer_narrow_expand_and_where_of_numbers": """
x = torch.ones(2, 3)
for c in ["torch.addmm(torch.ones(2), x, x)", "torch.addmm(torch.ones(3), x, x.t())", "torch.addmm(torch.ones(2, 2), x, torch.ones(3))",
          "torch.addmm(torch.ones(5), x, x.t())", "torch.addmm(torch.ones(2,2), torch.ones(3), x)", "torch.addmm(torch.ones(2), x, x.t())",
          "torch.baddbmm(torch.ones(1), torch.ones(2,2,3), torch.ones(2,2,3))", "torch.baddbmm(torch.ones(1), torch.ones(2,2,3), torch.ones(3,3,2))",
          "torch.baddbmm(torch.ones(5), torch.ones(2,2,3), torch.ones(2,3,2))", "torch.baddbmm(torch.ones(2), torch.ones(2,2,3), torch.ones(2,3,2))",
          "torch.outer(x, x)", "torch.outer(torch.ones(2), x)", "torch.ger(torch.ones(2), torch.ones(3))",
          "torch.outer(torch.tensor(1.), torch.ones(2))", "x.narrow(1, 2, 2)", "x.narrow(1, -1, 1)", "x.narrow(1, 3, 0)", "x.narrow(1, 4, 0)",
          "x.narrow(1, -4, 1)", "x.narrow(0, 0, -1)", "x.narrow(1, 1, 2)", "torch.tensor(1.).narrow(0, 0, 1)",
          "x.expand_as(torch.ones(3, 2))", "x.expand(3, 4)", "x.expand(-1, 2, 3)", "torch.ones(3, 1).expand(2, 3, 5, -1)",
          "torch.ones(3, 1).expand(-1, 3, 2)", "torch.where(x > 0, 1, 0)", "torch.where(x > 0, True, False)", "torch.where(x > 0, 1, 2.5)",
          "torch.where(x > 0, 1, True)"]:
    run(c, lambda: eval(c))
""",
    "reductions_over_an_empty_dim": """
for c in ['torch.tensor([]).max(0)', 'torch.tensor([]).argmax()', 'torch.tensor([]).argmin()', 'torch.tensor([]).argmax(0)',
          'torch.tensor([]).min(dim=0)', 'torch.zeros(0, 3).max(0)', 'torch.zeros(0, 3).max(1)', 'torch.zeros(0,3).argmax(0)',
          'torch.zeros(0,3).argmax(1)', 'torch.zeros(0,3).amax(0)', 'torch.zeros(0,3).amax(1)', 'torch.zeros(0,3).amax()',
          'torch.zeros(0,3).amin((0, 1))', 'torch.zeros(0,3).amin((1, 0))', 'torch.tensor([]).max()', 'torch.tensor([]).min()',
          'torch.zeros(2,0).max(-1)', 'torch.tensor([]).median(0)', 'torch.tensor([]).nanmedian(0)', 'torch.tensor([]).mode(0)',
          'torch.zeros(0, 2).mode()', 'torch.zeros(2, 0).mode()', 'torch.tensor(3.).max(0)', 'torch.tensor(3.).argmax(0)',
          'torch.tensor([]).amax(-1)']:
    run(c, lambda: eval(c))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)


def test_transpose_properties_warn_once_per_process_as_torch() -> None:
    code = ("import warnings, {0} as torch\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    x = torch.arange(6.).reshape(1, 2, 3); s = torch.tensor(2.)\n"
            "    for _ in range(2):\n"
            "        print(x.T.shape, torch.ones(3).T.shape, s.T.shape, s.mT.shape, s.mH.shape, s.H.shape)\n"
            "    print(torch.ones(2, 2, 2, 2).T.shape)\n"
            "print([(x.category.__name__, str(x.message), x.lineno) for x in w])")
    root = Path(__file__).resolve().parents[2]
    outputs = [subprocess.run([sys.executable, "-c", code.format(name)], capture_output=True, text=True, cwd=root,
                              timeout=120, check=True).stdout for name in ("torch", "engine")]
    assert "is deprecated" in outputs[0]
    assert outputs[1] == outputs[0]
