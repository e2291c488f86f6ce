"""Gradients taken with create_graph against torch 2.13: the backward-op nodes PyTorch records
(TanhBackwardBackward0, ThresholdBackwardBackward0...), what they save, and the values of the
first, second and third derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import node_chain, to_np, torch, torch_saved

X = [0.5, -1.0, 2.0]
TARGET = [1.0, 0.0, 3.0]

# name -> code computing a scalar `y` from the leaf `x`; `T` is torch or the engine, `F` its functional
OPS = {
    "tanh": ("y = x.tanh().sum()", "TanhBackwardBackward0"),
    "sigmoid": ("y = T.sigmoid(x).sum()", "SigmoidBackwardBackward0"),
    "relu": ("y = T.relu(x).sum()", "ThresholdBackwardBackward0"),
    "softmax": ("y = (T.softmax(x, 0) * T.tensor([0.0, 1.0, 2.0])).sum()", "SoftmaxBackwardDataBackward0"),
    "log_softmax": ("y = (T.log_softmax(x, 0) * T.tensor([0.0, 1.0, 2.0])).sum()",
                    "LogSoftmaxBackwardDataBackward0"),
    "mse_loss": ("y = F.mse_loss(x, T.tensor(TARGET))", "MseLossBackwardBackward0"),
    "mse_loss_target": ("y = F.mse_loss(T.tensor(TARGET), x, reduction='sum')", "MseLossBackwardBackward0"),
    "gelu": ("y = F.gelu(x).sum()", "GeluBackwardBackward0"),
    "gelu_tanh": ("y = F.gelu(x, approximate='tanh').sum()", "GeluBackwardBackward0"),
    "cross_entropy": ("y = F.cross_entropy(x.unsqueeze(0), T.tensor([1]))", "SqueezeBackward1"),
    "nll_loss": ("y = F.nll_loss(x.unsqueeze(0), T.tensor([2]))", "SqueezeBackward1"),
    "leaky_relu": ("y = F.leaky_relu(x, 0.1).sum()", "LeakyReluBackwardBackward0"),
    "relu6": ("y = F.relu6(x).sum()", "HardtanhBackwardBackward0"),
    "hardtanh": ("y = F.hardtanh(x, -0.8, 1.5).sum()", "HardtanhBackwardBackward0"),
    "elu": ("y = F.elu(x, 0.7).sum()", "EluBackwardBackward0"),
    "selu": ("y = F.selu(x).sum()", "EluBackwardBackward0"),
    "silu": ("y = F.silu(x).sum()", "MulBackward0"),
    "softplus": ("y = F.softplus(x, beta=2.0, threshold=3.0).sum()", "SoftplusBackwardBackward0"),
    "logsigmoid": ("y = F.logsigmoid(x).sum()", "LogSigmoidBackwardBackward0"),
    "smooth_l1_loss": ("y = F.smooth_l1_loss(x, T.tensor(TARGET))", "SmoothL1LossBackwardBackward0"),
    "smooth_l1_loss_target": ("y = F.smooth_l1_loss(T.tensor(TARGET), x, beta=0.5, reduction='sum')",
                              "SmoothL1LossBackwardBackward0"),
    "huber_loss": ("y = F.huber_loss(x, T.tensor(TARGET), delta=1.5)", "HuberLossBackwardBackward0"),
    "huber_loss_target": ("y = F.huber_loss(T.tensor(TARGET), x, reduction='sum')", "HuberLossBackwardBackward0"),
    "l1_loss": ("y = F.l1_loss(x, T.tensor(TARGET))", "MulBackward0"),
    "abs": ("y = x.abs().sum()", "MulBackward0"),
    # maximum/minimum: where(self == other, grad / 2, grad).masked_fill_(loser, 0)
    "maximum": ("y = (T.maximum(x, T.tensor([0.0, 0.0, 2.0])) ** 2).sum()", "MaskedFillBackward0"),
    "minimum": ("y = (T.minimum(T.tensor([0.0, 0.0, 2.0]), x) ** 3).sum()", "MaskedFillBackward0"),
    "binary_cross_entropy": ("y = F.binary_cross_entropy(T.sigmoid(x), T.tensor(PROBS))",
                             "SigmoidBackwardBackward0"),
    "binary_cross_entropy_weighted": (
        "y = F.binary_cross_entropy(T.sigmoid(x), T.tensor(PROBS), weight=T.tensor([1.0, 2.0, 0.5]), "
        "reduction='sum')", "SigmoidBackwardBackward0"),
    "bce_with_logits": ("y = F.binary_cross_entropy_with_logits(x, T.tensor(PROBS))", "DivBackward1"),
    "bce_with_logits_pos_weight": (
        "y = F.binary_cross_entropy_with_logits(x, T.tensor(PROBS), weight=T.tensor([1.0, 2.0, 0.5]), "
        "pos_weight=T.tensor([2.0, 1.0, 0.5]), reduction='sum')", "MulBackward0"),
    # reductions and repeat: PyTorch's prod_backward, std_backward/var_backward, norm_backward and
    # repeat_backward composed of ordinary nodes
    "prod": ("y = x.prod()", "MulBackward0"),
    "prod_dim": ("y = x.prod(0)", "MulBackward0"),
    "prod_dim_2d": ("y = (x.view(1, 3).expand(2, 3) * T.tensor([[1.0], [2.0]])).prod(1).sum()", "ViewBackward0"),
    "std": ("y = x.std()", "MulBackward0"),
    "std_dim": ("y = x.std(0)", "MulBackward0"),
    "std_dim_2d": ("y = (x.view(1, 3).expand(2, 3) * T.tensor([[1.0], [2.0]])).std(1).sum()", "ViewBackward0"),
    "std_keepdim": ("y = (x.view(3, 1).std(0, keepdim=True, correction=0) * x).sum()", "AddBackward0"),
    "var": ("y = x.var()", "MulBackward0"),
    "var_dim": ("y = x.var(0)", "MulBackward0"),
    "var_dim_2d": ("y = (x.view(1, 3).expand(2, 3) * T.tensor([[1.0], [2.0]])).var(1).sum()", "ViewBackward0"),
    "norm": ("y = x.norm()", "MulBackward0"),
    "norm_dim": ("y = x.norm(dim=0)", "MulBackward0"),
    "norm_dim_2d": ("y = (x.view(1, 3).expand(2, 3) * T.tensor([[1.0], [2.0]])).norm(dim=1).sum()", "ViewBackward0"),
    "norm_keepdim": ("y = (x.norm(dim=0, keepdim=True) * x).sum()", "AddBackward0"),
    "norm_p1": ("y = x.norm(1)", "MulBackward0"),
    "norm_p3": ("y = x.norm(3)", "MulBackward0"),
    "norm_p1_5": ("y = x.norm(1.5)", "MulBackward0"),
    "norm_p0_5": ("y = x.norm(0.5)", "MulBackward0"),
    "norm_inf": ("y = x.norm(float('inf'))", "MulBackward0"),
    "repeat": ("y = (x.repeat(2) ** 2).sum()", "SumBackward1"),
    "repeat_lead": ("y = (x.repeat(2, 2) ** 2).sum()", "SumBackward1"),
    "repeat_lead_only": ("y = (x.repeat(3, 1) ** 2).sum()", "SumBackward1"),
    "repeat_ones": ("y = (x.repeat(1) ** 2).sum()", "MulBackward0"),
    "repeat_2d": ("y = (x.view(3, 1).repeat(2, 2, 3) ** 2).sum()", "ViewBackward0"),
}
PROBS = [0.2, 0.7, 0.4]
# The gradient's own graph is PyTorch's but its values are rounded in PyTorch's order, not in the
# plain backward's (which keeps the order it always had).
NOT_BIT_IDENTICAL = {"bce_with_logits", "bce_with_logits_pos_weight", "norm_p0_5"}
# Second derivatives whose values match but whose x-gradient sums SgnBackward0's zero gradient and
# the other term in the other order (AddBackward0's edges swapped).
SECOND_GRAPH_ORDER_DIFFERS = {"norm_p1_5", "norm_p0_5"}


def _derivatives(module: object, code: str, orders: int) -> list:
    """[g1, g2...]: each the gradient (create_graph) of the previous one's sum, starting from y."""
    functional = torch.nn.functional if module is torch else engine.nn.functional
    x = module.tensor(X, requires_grad=True)
    scope = {"T": module, "F": functional, "x": x, "TARGET": TARGET, "PROBS": PROBS}
    exec(code, scope)  # noqa: S102 - test code written here
    out, grads = scope["y"], []
    for _ in range(orders):
        (g,) = module.autograd.grad(out, x, create_graph=True)
        grads.append(g)
        if not g.requires_grad:
            break
        out = g.sum()
    return grads


def _assert_same_graph(e: object, t: object, depth: int) -> None:
    assert e.requires_grad == t.requires_grad
    assert node_chain(e.grad_fn, depth) == node_chain(t.grad_fn, depth)
    if t.grad_fn is not None:
        assert sorted(e.grad_fn.saved_slots()) == torch_saved(t.grad_fn)
    np.testing.assert_allclose(to_np(e), to_np(t), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", OPS)
def test_first_derivative_node_matches_torch(op: str) -> None:
    code, node = OPS[op]
    (e,) = _derivatives(engine, code, 1)
    (t,) = _derivatives(torch, code, 1)
    assert type(e.grad_fn).__name__ == e.grad_fn.name() == t.grad_fn.name() == node
    _assert_same_graph(e, t, 2)


@pytest.mark.parametrize("op", OPS)
def test_second_derivative_matches_torch(op: str) -> None:
    code, _ = OPS[op]
    e = _derivatives(engine, code, 2)
    t = _derivatives(torch, code, 2)
    assert len(e) == len(t)
    # the values everywhere; the names where the second graph is one of PyTorch's formulas we follow
    np.testing.assert_allclose(to_np(e[-1]), to_np(t[-1]), rtol=1e-5, atol=1e-6)
    if op != "gelu_tanh" and op not in SECOND_GRAPH_ORDER_DIFFERS:
        _assert_same_graph(e[-1], t[-1], 2)


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "elu", "softplus", "logsigmoid", "binary_cross_entropy",
                                "bce_with_logits", "prod", "std", "norm", "norm_p3", "repeat"])
def test_third_derivative_matches_torch(op: str) -> None:
    code, node = OPS[op]
    e = _derivatives(engine, code, 3)
    t = _derivatives(torch, code, 3)
    assert len(e) == len(t) == 3
    assert e[0].grad_fn.name() == node
    _assert_same_graph(e[2], t[2], 3)


def test_relu_second_derivative_is_zeros_not_an_error() -> None:
    for module in (engine, torch):
        x = module.tensor(X, requires_grad=True)
        (g,) = module.autograd.grad(module.relu(x).sum(), x, create_graph=True)
        assert g.requires_grad
        (g2,) = module.autograd.grad(g.sum(), x)
        np.testing.assert_array_equal(to_np(g2), np.zeros(3, np.float32))


@pytest.mark.parametrize("op", [op for op in OPS if op not in NOT_BIT_IDENTICAL])
def test_plain_and_create_graph_backward_give_the_same_bits(op: str) -> None:
    """Both paths run the one NumPy kernel of each backward op (NOT_BIT_IDENTICAL: ops where
    PyTorch's create_graph formula is made of ordinary nodes, in another order)."""
    code, _ = OPS[op]
    functional = engine.nn.functional
    results = []
    for create_graph in (False, True):
        x = engine.tensor(X, requires_grad=True)
        scope = {"T": engine, "F": functional, "x": x, "TARGET": TARGET, "PROBS": PROBS}
        exec(code, scope)  # noqa: S102 - test code written here
        (g,) = engine.autograd.grad(scope["y"], x, create_graph=create_graph)
        results.append(g._data)
    assert results[0].dtype == results[1].dtype
    assert results[0].tobytes() == results[1].tobytes()
