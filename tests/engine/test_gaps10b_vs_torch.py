"""Small gaps against PyTorch 2.13 (std/var without degrees of freedom, sizes given by keyword, scatter with a larger
src, conjugate views and numpy, out-of-range Python ints, tensor attributes, state_dict destinations, meta tensors);
programs run with torch and with the engine print the same, warnings included."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "std_var_without_degrees_of_freedom_warn": """
z = torch.tensor([1. + 1j])
for c in ["torch.tensor([1.]).std()", "torch.ones(1, 3).var(dim=0)", "torch.ones(2).var(correction=2)",
          "torch.std_mean(torch.ones(1))", "torch.var_mean(torch.ones(1, 2), 0)", "torch.ones(3).var(correction=5)",
          "torch.ones(0).var()", "torch.tensor([1., 2.]).var(correction=2)", "torch.tensor([1., 2.]).std(correction=3)",
          "torch.tensor([1., 2.]).std(unbiased=False)", "torch.tensor([[1., 2.]]).std(0, unbiased=True)",
          "torch.tensor([[1., 2.]]).std(1, keepdim=True)", "torch.tensor(3.).var()", "z.std()", "z.var()",
          "torch.std_mean(z)", "torch.tensor([1., 2.]).var(correction=1.5)", "torch.tensor([1., 2.]).var(correction=2.5)",
          "torch.ones(0, 3).var(0)", "torch.ones(0, 3).var(1)", "torch.ones(2, 0).std(0)", "torch.ones(2, 3).var(correction=-1)",
          "torch.ones(2, 3).var(dim=[0, 1], correction=6)", "torch.ones(2, 3, dtype=torch.float64).std(1, correction=3)",
          "torch.ones(0).mean()", "torch.var(torch.ones(1, 4), 0, True)", "torch.ones(2, 1).std(dim=1)"]:
    run(c, lambda: eval(c))
x = torch.tensor([1.], requires_grad=True)
x.std().backward()
print(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
