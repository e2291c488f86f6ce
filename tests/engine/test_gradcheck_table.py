"""Finite-difference checks (float64) of every op case, and a check that every rule has one."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from cases import CASES
from conftest import RuleRecorder, case_arrays, run_case
from engine import ops

# Rules whose gradient is zero almost everywhere or not defined by finite differences at the
# sampled points are still checked: their analytical zeros must match numerical zeros.
NOT_TWICE = {"maximum_ties", "max_ties", "prod_zero", "remainder", "fmod", "hardsigmoid",
             # third derivatives through log(|grad|) are NaN where grad is 0, in PyTorch too
             "logcumsumexp_grad",
             # PyTorch does not implement cdist's double backward (its node raises)
             "cdist", "cdist_p1", "cdist_p3",
             # nor multi_margin_loss's (its backward is a NotImplemented node)
             "multi_margin_loss", "multi_margin_loss_p2",
             # nor the CPU flash attention kernel's (the gradients come from a NotImplemented node)
             "sdpa_flash", "sdpa_flash_mask", "multihead_attention",
             # _weight_norm's double backward treats the saved norms as constants, in PyTorch too
             "weight_norm_dim0", "weight_norm_last_dim",
             # embedding_bag's gradients are computed without a graph (per_sample_weights': NotImplemented)
             "embedding_bag_sum", "embedding_bag_mean", "embedding_bag_max",
             # nor _ctc_loss's (its gradient comes from a NotImplemented node)
             "ctc_loss", "ctc_loss_mean",
             # nor pdist's or multilabel_margin_loss's
             "pdist", "pdist_p1", "pdist_p3", "multilabel_margin_loss", "multilabel_margin_loss_none",
             # the engine computes linalg_eig's gradient without a graph (PyTorch's has one)
             "eig"}
# Rules whose gradient PyTorch does not implement: their node raises its error, which
# test_tutorial_snippets_vs_torch compares ("activations_more").
RAISES = {"hardsigmoid_backward", "unique", "unique_dim", "unique_consecutive", "cdist_backward",
          "_standard_gamma_grad", "geqrf", "acosh_", "asinh_", "atanh_", "pdist_backward"}
# Random draws (a fresh sample per call, with an approximate reparameterised gradient): compared with
# torch's values and gradients in test_ops_vs_torch instead.
DRAWS = {"_standard_gamma"}
COVERED: set[str] = set()


def _func(code: str):
    def fn(*leaves: engine.Tensor) -> engine.Tensor:
        return run_case(engine, code, [], leaves=list(leaves))[1]

    return fn


def _leaves(case_id: str, shapes: tuple, opts: dict) -> list:
    return [engine.tensor(a, dtype=engine.float64, requires_grad=True)
            for a in case_arrays(case_id, shapes, opts)]


@pytest.mark.parametrize("case_id,code,shapes,opts", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(case_id: str, code: str, shapes: tuple, opts: dict) -> None:
    if opts.get("fd") is False:
        pytest.skip("checked against torch only")
    leaves = _leaves(case_id, shapes, opts)
    fn = _func(code)
    eps, atol = opts.get("eps", 1e-6), opts.get("atol", 1e-5)
    assert engine.autograd.gradcheck(fn, leaves, eps=eps, atol=atol, rtol=1e-3)
    recorder = RuleRecorder()
    out = fn(*leaves)
    recorder.walk(out.grad_fn)
    if case_id not in NOT_TWICE:
        assert engine.autograd.gradgradcheck(fn, leaves, eps=eps, atol=max(atol, 1e-4), rtol=1e-3)
        # the graph of the gradient itself (nodes that appear under create_graph)
        seed = engine.ones_like(out).requires_grad_()
        grads = engine.autograd.grad(out, leaves, seed, create_graph=True, allow_unused=True)
        for g in grads:
            if g is not None:
                recorder.walk(g.grad_fn)
    COVERED.update(recorder.rules)


def test_every_rule_has_a_gradcheck_case() -> None:
    if len(COVERED) == 0:
        pytest.skip("run together with test_gradcheck")
    missing = sorted(set(ops.TABLE) - COVERED - RAISES - DRAWS)
    assert not missing, f"rules without a gradcheck case: {missing}"
