"""torch.distributions run with torch and with the engine: seeded samples, log_prob, entropy, rsample
gradients, KL divergences, reprs, graphs and validation errors must print the same."""

from __future__ import annotations

import importlib
import math
import re

import pytest

import engine
from conftest import torch
from tests.engine.test_snippets_vs_torch import _run

NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[+-]?\d+)?|inf|nan)")


def assert_same_output(actual: str, expected: str) -> None:
    """Equal text; numbers equal up to one unit in the last printed digit (float32 sums whose rounding
    depends on the BLAS kernel's fused multiply-adds can differ in the last bit)."""
    assert NUMBER.split(actual) == NUMBER.split(expected), (actual, expected)
    for a, e in zip(NUMBER.findall(actual), NUMBER.findall(expected)):
        x, y = float(a), float(e)
        assert (math.isnan(x) and math.isnan(y)) or x == y or abs(x - y) <= 1e-4 + 1e-4 * abs(y), (a, e, actual)


PRELUDE = """
D = torch.distributions
def graph(t, depth=0, limit=8):
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    if fn is None or depth > limit:
        return []
    out = ["  " * depth + type(fn).__name__]
    for nxt, _ in fn.next_functions:
        out += graph(nxt, depth + 1, limit)
    return out
def show(label, f):
    try:
        print(label, f())
    except Exception as e:
        print(label, type(e).__name__ + ":", e)
"""

# (id, constructor with parameters a and b that require grad, a value in the support)
DISTRIBUTIONS = [
    ("normal", "D.Normal(a, b)", "[0.3, -1.2]", "[0.5, -1.0]", "[1.0, 2.0]"),
    ("normal_batch", "D.Normal(a, b)", "[[0.3, -1.2], [0.0, 2.0]]", "[0.5, 1.5]", "[[1.0, 2.0], [0.5, 0.1]]"),
    ("normal_scalar_scale", "D.Normal(a, 2.0)", "[0.3, -1.2, 4.0]", "[0.5, -1.0, 0.0]", "[1.0, 2.0, 3.0]"),
    ("normal_0d", "D.Normal(a, b)", "0.25", "0.5", "1.5"),
    ("normal_big", "D.Normal(a, b)", "[0.1] * 20", "[0.0] * 20", "[1.5] * 20"),
    ("bernoulli_probs", "D.Bernoulli(probs=b)", "[1.0, 0.0, 1.0]", "[0.0, 0.0, 0.0]", "[0.2, 0.5, 0.9]"),
    ("bernoulli_logits", "D.Bernoulli(logits=b)", "[1.0, 0.0]", "[0.0, 0.0]", "[-1.0, 2.0]"),
    ("categorical_probs", "D.Categorical(probs=b)", "[0, 2]", "[0.0]", "[0.2, 0.3, 0.5]"),
    ("categorical_logits_batch", "D.Categorical(logits=b)", "[1, 0]", "[0.0]", "[[0.2, -1.0, 0.5], [1.0, 1.0, 0.0]]"),
    ("uniform", "D.Uniform(a, b)", "[0.5, 1.5]", "[0.0, 1.0]", "[1.0, 3.0]"),
    ("exponential", "D.Exponential(b)", "[0.5, 2.0]", "[0.0]", "[1.5, 0.3]"),
    ("laplace", "D.Laplace(a, b)", "[0.5, -2.0]", "[0.0, 1.0]", "[1.0, 0.5]"),
    ("onehot", "D.OneHotCategorical(probs=b)", "[[0.0, 1.0, 0.0]]", "[0.0]", "[0.2, 0.3, 0.5]"),
    ("onehot_logits", "D.OneHotCategorical(logits=b)", "[[1.0, 0.0], [0.0, 1.0]]", "[0.0]", "[[0.2, 0.3], [1.0, -1.0]]"),
    ("independent_normal", "D.Independent(D.Normal(a, b), 1)", "[[0.3, -1.2], [0.0, 2.0]]", "[[0.5, 1.5], [0.0, 0.0]]",
     "[[1.0, 2.0], [0.5, 0.1]]"),
    ("gamma", "D.Gamma(a, b)", "[0.3, 1.2]", "[0.5, 3.0]", "[1.0, 2.0]"),
    ("gamma_large", "D.Gamma(a, b)", "[10.0, 0.01]", "[12.0, 0.2]", "[1.0, 0.5]"),
    ("gamma_float64", "D.Gamma(a.double(), b.double())", "[0.3, 1.2]", "[0.5, 3.0]", "[1.0, 2.0]"),
    ("beta", "D.Beta(a, b)", "[0.3, 0.9]", "[0.5, 3.0]", "[2.0, 0.7]"),
    ("beta_large", "D.Beta(a, b)", "[0.4, 0.6]", "[9.0, 20.0]", "[12.0, 15.0]"),
    ("dirichlet", "D.Dirichlet(b)", "[0.2, 0.3, 0.5]", "[0.0]", "[[0.5, 1.0, 3.0], [2.0, 2.0, 2.0]]"),
    ("mvn_cov", "D.MultivariateNormal(a, covariance_matrix=b @ b.mT + torch.eye(2))", "[0.3, -1.2]", "[0.5, 1.5]",
     "[[1.0, 0.0], [0.5, 0.8]]"),
    ("mvn_tril_batch", "D.MultivariateNormal(a, scale_tril=b.tril() + torch.eye(2))", "[[0.3, -1.2], [1.0, 1.0]]",
     "[[0.5, 1.5], [0.0, 0.0]]", "[[1.0, 0.0], [0.5, 0.8]]"),
    ("mvn_precision", "D.MultivariateNormal(a, precision_matrix=b @ b.mT + torch.eye(2))", "[0.3, -1.2]",
     "[0.5, 1.5]", "[[1.0, 0.0], [0.5, 0.8]]"),
]


@pytest.mark.parametrize("ident,make,value,a,b", DISTRIBUTIONS, ids=[d[0] for d in DISTRIBUTIONS])
def test_distribution_matches_torch(ident: str, make: str, value: str, a: str, b: str) -> None:
    code = PRELUDE + f"""
torch.manual_seed(11)
a = torch.tensor({a}, requires_grad=True)
b = torch.tensor({b}, requires_grad=True)
d = {make}
print(d, d.batch_shape, d.event_shape, d.has_rsample)
print(d.sample(), d.sample((2,)), d.sample([3, 1]).shape)
v = torch.tensor({value})
lp = d.log_prob(v)
print(lp)
print("\\n".join(graph(lp)))
lp.sum().backward(retain_graph=True)
print(a.grad, b.grad)
show("entropy", d.entropy)
show("mean", lambda: d.mean)
show("mode", lambda: d.mode)
show("variance", lambda: d.variance)
show("stddev", lambda: d.stddev)
show("support", lambda: d.support)
if d.has_rsample:
    a.grad = None; b.grad = None
    r = d.rsample((4,))
    print(r, "\\n".join(graph(r)))
    (r * r).sum().backward()
    print(a.grad, b.grad)
e = d.expand((3,) + d.batch_shape)
print(e, e.batch_shape, e.sample().shape)
show("expanded log_prob", lambda: e.log_prob(v).shape)
if not isinstance(d, D.Gamma):  # Gamma.cdf needs torch.special.gammainc, which the engine lacks
    show("cdf", lambda: d.cdf(v))
show("enumerate", lambda: d.enumerate_support())
show("perplexity", d.perplexity)
"""
    assert_same_output(_run(engine, code), _run(torch, code))


KL_PAIRS = [
    "D.Normal(a, b), D.Normal(torch.tensor([0.5, 0.0]), torch.tensor([1.5, 1.0]))",
    "D.Normal(a, b), D.Laplace(0.0, 1.0)",
    "D.Normal(a, b), D.Uniform(0.0, 1.0)",
    "D.Normal(a, b), D.Exponential(1.0)",
    "D.Laplace(a, b), D.Laplace(torch.tensor([1.0, 0.0]), 2.0)",
    "D.Laplace(a, b), D.Normal(0.0, 2.0)",
    "D.Uniform(a - 1, a + b), D.Uniform(-3.0, 4.0)",
    "D.Uniform(a - 1, a + b), D.Uniform(0.0, 1.0)",
    "D.Uniform(a - 1, a + b), D.Normal(0.0, 2.0)",
    "D.Uniform(b, b + 1), D.Exponential(2.0)",
    "D.Uniform(a, a + 1), D.Exponential(2.0)",
    "D.Exponential(b), D.Exponential(torch.tensor([2.0, 0.5]))",
    "D.Exponential(b), D.Normal(0.0, 1.0)",
    "D.Bernoulli(probs=b / 2), D.Bernoulli(probs=torch.tensor([0.4, 0.0]))",
    "D.Bernoulli(logits=a), D.Bernoulli(logits=torch.tensor([0.4, -2.0]))",
    "D.Bernoulli(probs=torch.tensor([0.0, 1.0])), D.Bernoulli(probs=torch.tensor([0.5, 1.0]))",
    "D.Categorical(probs=b), D.Categorical(logits=torch.tensor([0.3, 0.1]))",
    "D.Categorical(probs=torch.tensor([0.0, 1.0])), D.Categorical(probs=torch.tensor([0.5, 0.5]))",
    "D.Categorical(logits=a), D.Categorical(probs=torch.tensor([0.0, 1.0]))",
    "D.OneHotCategorical(probs=b), D.OneHotCategorical(logits=torch.tensor([0.3, 0.1]))",
    "D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(torch.zeros(2), 2.0), 1)",
    "D.MultivariateNormal(a, scale_tril=torch.diag(b)), D.MultivariateNormal(torch.zeros(2), torch.eye(2) * 2)",
    "D.Gamma(b, b + 1), D.Gamma(torch.tensor([2.0, 0.5]), 1.0)",
    "D.Gamma(b, b + 1), D.Exponential(2.0)",
    "D.Gamma(b, b + 1), D.Normal(a, 2.0)",
    "D.Gamma(b, b + 1), D.Uniform(0.0, 1.0)",
    "D.Exponential(b), D.Gamma(2.0, 1.0)",
    "D.Beta(b, b + 1), D.Beta(torch.tensor([2.0, 0.5]), 1.0)",
    "D.Beta(b, b + 1), D.Normal(a, 2.0)",
    "D.Beta(b, b + 1), D.Gamma(2.0, 1.0)",
    "D.Beta(b, b + 1), D.Exponential(2.0)",
    "D.Beta(b, b + 1), D.Uniform(0.0, 1.0)",
    "D.Beta(b, b + 1), D.Uniform(-1.0, 2.0)",
    "D.Uniform(b / 4, b / 2), D.Beta(2.0, 3.0)",
    "D.Uniform(b / 4, b / 2), D.Gamma(2.0, 3.0)",
    "D.Normal(a, b), D.Gamma(2.0, 3.0)",
    "D.Laplace(a, b), D.Beta(2.0, 3.0)",
    "D.Dirichlet(torch.stack([b, b + 1])), D.Dirichlet(torch.tensor([0.5, 2.0]))",
    "D.Normal(a, b), D.Categorical(probs=torch.tensor([0.5, 0.5]))",
]


@pytest.mark.parametrize("pair", KL_PAIRS)
def test_kl_divergence_matches_torch(pair: str) -> None:
    code = PRELUDE + f"""
a = torch.tensor([0.3, -1.2], requires_grad=True)
b = torch.tensor([1.0, 0.5], requires_grad=True)
p, q = {pair}
show("kl", lambda: D.kl_divergence(p, q))
k = D.kl_divergence(p, q) if not isinstance(q, D.Categorical) or isinstance(p, D.Categorical) else None
if k is not None and k.requires_grad:
    print("\\n".join(graph(k)))
    k.sum().backward()
    print(a.grad, b.grad)
"""
    assert_same_output(_run(engine, code), _run(torch, code))


SNIPPETS = {
    "scalars_and_reprs": """
print(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0).sample().shape, D.Normal(0.0, 1.0).batch_shape)
print(D.Normal(torch.tensor([0.0]), torch.tensor([1.0])), D.Normal(torch.zeros(2, 3), 1.0))
print(D.Bernoulli(0.3), D.Bernoulli(logits=torch.tensor(0.3)), D.Categorical(torch.tensor([0.5, 0.5])))
print(D.Uniform(0.0, 1.0), D.Exponential(2.0), D.Laplace(0.0, 1.0), D.Independent(D.Normal(torch.zeros(3), 1.0), 1))
print(D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.OneHotCategorical(logits=torch.zeros(3)))
print(D.Normal(torch.tensor([0.0], requires_grad=True), 1.0))
torch.manual_seed(0)
print(D.Normal(torch.zeros(3, dtype=torch.float64), 1.0).sample(), D.Uniform(0.0, 1.0).sample((2,)))
print(D.Exponential(torch.ones(2, dtype=torch.float64)).rsample((2,)))
print(D.Laplace(torch.zeros(20), 1.0).sample())
print(D.Bernoulli(torch.full((3, 4), 0.3)).sample())
""",
    "validation_errors": """
show("scale", lambda: D.Normal(0.0, -1.0))
show("nan loc", lambda: D.Normal(torch.tensor([float("nan")]), 1.0))
show("probs", lambda: D.Bernoulli(probs=torch.tensor([1.5])))
show("both", lambda: D.Bernoulli(probs=0.5, logits=0.1))
show("neither", lambda: D.Categorical())
show("simplex", lambda: D.Categorical(probs=torch.tensor([-0.1, 1.1])))
show("0-d probs", lambda: D.Categorical(probs=torch.tensor(0.5)))
show("uniform", lambda: D.Uniform(1.0, 0.0))
show("rate", lambda: D.Exponential(torch.tensor([0.0])))
show("not a tensor", lambda: D.Normal(0.0, 1.0).log_prob(0.5))
show("event shape", lambda: D.MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.zeros(3)))
show("broadcast", lambda: D.Normal(torch.zeros(2), 1.0).log_prob(torch.zeros(3)))
show("support", lambda: D.Bernoulli(torch.tensor([0.5])).log_prob(torch.tensor([0.5])))
show("support cat", lambda: D.Categorical(torch.tensor([0.5, 0.5])).log_prob(torch.tensor([3])))
show("support exp", lambda: D.Exponential(1.0).log_prob(torch.tensor(-1.0)))
show("support uniform", lambda: D.Uniform(0.0, 1.0).log_prob(torch.tensor(2.0)))
show("support onehot", lambda: D.OneHotCategorical(torch.tensor([0.5, 0.5])).log_prob(torch.tensor([0.5, 0.5])))
show("not pd", lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
show("not symmetric", lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [0.0, 1.0]])))
show("not tril", lambda: D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 2.0], [0.0, 1.0]])))
show("no matrix", lambda: D.MultivariateNormal(torch.zeros(2)))
show("0-d loc", lambda: D.MultivariateNormal(torch.tensor(0.0), torch.eye(2)))
show("independent", lambda: D.Independent(D.Normal(torch.zeros(2), 1.0), 2))
show("off", lambda: D.Normal(0.0, -1.0, validate_args=False).log_prob(torch.tensor(0.0)))
show("uniform off", lambda: D.Uniform(0.0, 1.0, validate_args=False).log_prob(torch.tensor([-1.0, 0.5])))
show("no kl", lambda: D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5)))
""",
    "categorical_sampling_and_multinomial": """
torch.manual_seed(3)
p = torch.tensor([0.1, 0.2, 0.7])
print(torch.multinomial(p, 5, replacement=True), torch.multinomial(p, 2), torch.multinomial(p, 3))
print(torch.multinomial(torch.tensor([[0.5, 0.5], [0.9, 0.1]]), 1).tolist())
print(torch.multinomial(torch.tensor([[0.5, 0.5], [0.9, 0.1]], dtype=torch.float64), 4, True))
print(torch.multinomial(torch.rand(3, 40), 30), torch.multinomial(torch.rand(2, 9) ** 4, 25, True))
print(D.Categorical(probs=p).sample((4,)), D.Categorical(logits=torch.randn(3, 4)).sample((2, 2)))
print(D.OneHotCategorical(p).sample((2,)), D.Categorical(p).sample())
show("too many", lambda: torch.multinomial(p, 4))
show("zero", lambda: torch.multinomial(torch.zeros(2), 1))
show("negative", lambda: torch.multinomial(torch.tensor([-0.1, 0.5]), 1))
show("negative, replacement", lambda: torch.multinomial(torch.tensor([-0.1, 0.5]), 2, True))
show("inf, replacement", lambda: torch.multinomial(torch.tensor([float("inf"), 0.5]), 2, True))
show("none", lambda: torch.multinomial(p, 0))
show("3-d", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
show("ints", lambda: torch.multinomial(torch.tensor([1, 2]), 1))
show("row of zeros", lambda: torch.multinomial(torch.tensor([[0.5, 0.5], [0.0, 0.0]]), 3, True))
print(torch.rand(2))
g = torch.Generator().manual_seed(7)
print(torch.multinomial(p, 6, True, generator=g), p.multinomial(2))
""",
    "graphs_of_formulas": """
n = D.Normal(torch.tensor([0.0], requires_grad=True), torch.tensor([1.0], requires_grad=True))
print(n.log_prob(torch.tensor([1.0])), n.entropy(), n.cdf(torch.tensor([0.5])), n.icdf(torch.tensor([0.2])))
print("\\n".join(graph(n.log_prob(torch.tensor([1.0])))), "\\n".join(graph(n.entropy())))
m = D.Normal(torch.tensor(0.0, requires_grad=True), 2.0)
print("\\n".join(graph(m.log_prob(torch.tensor(1.0)))))
c = D.Categorical(logits=torch.tensor([0.3, 0.2], requires_grad=True))
print("\\n".join(graph(c.log_prob(torch.tensor(1)))), "\\n".join(graph(c.entropy())), c.probs)
b = D.Bernoulli(probs=torch.tensor([0.3], requires_grad=True))
print("\\n".join(graph(b.log_prob(torch.tensor([1.0])))), "\\n".join(graph(b.entropy())), b.logits)
u = D.Uniform(torch.tensor([0.0], requires_grad=True), torch.tensor([2.0], requires_grad=True))
print("\\n".join(graph(u.log_prob(torch.tensor([1.0])))), u.cdf(torch.tensor([0.5])), u.icdf(torch.tensor([0.5])))
e = D.Exponential(torch.tensor([2.0], requires_grad=True))
print(e.cdf(torch.tensor([1.0])), e.icdf(torch.tensor([0.5])), "\\n".join(graph(e.rsample())))
l = D.Laplace(torch.tensor([0.0], requires_grad=True), torch.tensor([2.0], requires_grad=True))
print(l.cdf(torch.tensor([1.0])), l.icdf(torch.tensor([0.3])), "\\n".join(graph(l.rsample())))
st = D.OneHotCategoricalStraightThrough(probs=torch.tensor([0.2, 0.8], requires_grad=True))
torch.manual_seed(1)
s = st.rsample((3,)); print(s, "\\n".join(graph(s)))
""",
    "gamma_draws": """
torch.manual_seed(5)
print(torch._standard_gamma(torch.tensor([0.05, 0.3, 1.0, 2.5, 40.0])), torch.rand(2))
print(torch._standard_gamma(torch.tensor([0.05, 0.3, 1.0, 2.5, 40.0], dtype=torch.float64)), torch.rand(2))
print(torch._sample_dirichlet(torch.tensor([[0.1, 1.0, 5.0], [3.0, 3.0, 3.0]])), torch.rand(2))
a = torch.tensor([0.7, 3.0], requires_grad=True)
s = torch._standard_gamma(a); print(s, s.grad_fn, s.grad_fn._saved_self, s.grad_fn._saved_result)
b = torch.ones(2, requires_grad=True)
g, = torch.autograd.grad(s, a, b, create_graph=True); print(g, "\\n".join(graph(g)))
show("second order", lambda: g.sum().backward())
x = torch.tensor([[0.2, 0.8], [0.5, 0.5]]); c = torch.tensor([[0.5, 2.0], [9.0, 7.0]])
print(torch._dirichlet_grad(x, c, c.sum(-1, True).expand_as(c)), torch._standard_gamma_grad(c, x * 10))
d = D.Dirichlet(c.requires_grad_()); r = d.rsample((2,)); print(r, type(r.grad_fn).__name__)
r.sum().backward(); print(c.grad)
show("twice", lambda: torch.autograd.grad(d.rsample().pow(2).sum(), c, create_graph=True)[0].sum().backward())
""",
    "mvn_details": """
torch.manual_seed(2)
A = torch.randn(3, 3)
cov = (A @ A.mT + torch.eye(3)).requires_grad_()
loc = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
m = D.MultivariateNormal(loc, covariance_matrix=cov)
print(m.sample(), m.sample((2,)), m.mean, m.variance, m.scale_tril, m.entropy(), m.precision_matrix)
lp = m.log_prob(torch.tensor([[0.5, 0.5, 0.5], [1.0, 0.0, 0.0]]))
print(lp); lp.sum().backward(); print(loc.grad, cov.grad)
L = torch.linalg.cholesky(cov.detach()).requires_grad_()
m2 = D.MultivariateNormal(torch.zeros(2, 3), scale_tril=L)
print(m2.sample(), m2.log_prob(torch.ones(4, 2, 3)), m2.covariance_matrix, m2.entropy())
print("\\n".join(graph(m2.log_prob(torch.ones(4, 2, 3)))))
r = m2.rsample((2,)); r.sum().backward(); print(L.grad)
print(D.kl_divergence(m, m2), D.kl_divergence(m2, m))
print(m.expand((2,)).sample(), m.expand((2,)).batch_shape)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_matches_torch(name: str) -> None:
    code = PRELUDE + SNIPPETS[name]
    assert_same_output(_run(engine, code), _run(torch, code))


@pytest.mark.parametrize("module", ["constraints", "kl", "normal", "bernoulli", "categorical", "uniform",
                                    "exponential", "laplace", "multivariate_normal", "one_hot_categorical",
                                    "independent", "utils", "distribution", "exp_family", "gamma", "beta",
                                    "dirichlet"])
def test_submodules_import_like_torchs(module: str) -> None:
    """`import torch.distributions.normal` and friends: the same public names as torch's modules."""
    ours = importlib.import_module(f"engine.distributions.{module}")
    theirs = importlib.import_module(f"torch.distributions.{module}")
    missing = [n for n in getattr(ours, "__all__", []) if n not in getattr(theirs, "__all__", dir(theirs))]
    assert not missing
    assert engine.distributions.Normal is importlib.import_module("engine.distributions.normal").Normal


def test_validate_args_default_can_be_switched_off() -> None:
    code = PRELUDE + """
D.Distribution.set_default_validate_args(False)
try:
    print(D.Normal(0.0, -1.0).log_prob(torch.tensor(0.0)))
finally:
    D.Distribution.set_default_validate_args(True)
show("on again", lambda: D.Normal(0.0, -1.0))
"""
    assert_same_output(_run(engine, code), _run(torch, code))
