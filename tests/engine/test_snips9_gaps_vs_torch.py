"""Gaps found by the ninth snippet sweep (advanced autograd and scientific use); small programs run with torch and
with the engine print the same (numbers compared to a tolerance where PyTorch's kernels round differently)."""

from __future__ import annotations

import re

import pytest

from tests.engine.programs import RUN, run_program

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "gradient_copied_under_create_graph_is_a_copybackwards_node": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x ** 3).sum().backward(create_graph=True)
print(x.grad, x.grad.grad_fn.name(), type(x.grad.grad_fn).__name__)
y = torch.zeros(2)
y.copy_(x)
print(y.grad_fn.name(), y)
""",
    "det_gradient_of_singular_matrices_outside_grad_mode": """
for M in ([[1.0, 2.0], [2.0, 4.0]], [[0., 0.], [0., 0.]], [[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], [[2., 1.], [4., 2.]],
          [[3., 1.], [1., 2.]]):
    for t in (False, True):
        A = torch.tensor(M)
        if t:
            A = A.t()
        A.requires_grad_()
        d = torch.linalg.det(A)
        d.backward()
        print(d, A.grad)
A = torch.tensor([[[1.0, 2.0], [2.0, 4.0]], [[3., 1.], [1., 2.]]], requires_grad=True)
torch.linalg.det(A).sum().backward()
print(A.grad)
A = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
torch.det(A).backward()
print(A.grad)
A = torch.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
g, = torch.autograd.grad(torch.det(A), A, create_graph=True)  # in grad mode: the adjugate (through the SVD)
print(g)
""",
    "functional_jacobian_and_hessian_strategy_options": """
jacobian, hessian = torch.autograd.functional.jacobian, torch.autograd.functional.hessian
for kw in [dict(strategy="forward-mode"), dict(strategy="bogus"), dict(vectorize=True, strict=True),
           dict(strategy="bogus", vectorize=True), dict(strategy="forward-mode", vectorize=True, create_graph=True),
           dict(strategy="forward-mode", strict=True), dict(strategy="forward-mode", vectorize=True)]:
    run(str(kw), lambda: jacobian(lambda x: x * 2, torch.tensor([1.0, 2.0]), **kw))
for kw in [dict(outer_jacobian_strategy="forward-mode"), dict(outer_jacobian_strategy="bogus"),
           dict(vectorize=True, outer_jacobian_strategy="bogus"), dict(vectorize=True, strict=True),
           dict(vectorize=True)]:
    run(str(kw), lambda: hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), **kw))
""",
}

_NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def _close(expected: str, actual: str) -> bool:
    """The same text with the same numbers to 1e-5 (a signed zero equals zero)."""
    if _NUMBER.sub("#", expected).replace(" ", "") != _NUMBER.sub("#", actual).replace(" ", ""):
        return False
    pairs = zip(_NUMBER.findall(expected), _NUMBER.findall(actual))
    return all(abs(float(a) - float(b)) <= 1e-6 + 1e-5 * abs(float(a)) for a, b in pairs)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    import engine

    code = PRELUDE + SNIPPETS[name]
    expected = run_program(torch, code)
    actual = run_program(engine, code)
    assert _close(expected, actual), (expected, actual)
