"""F.ctc_loss and nn.CTCLoss: the connectionist temporal classification loss with PyTorch's CPU kernel
(CtcLossBackward0) and its gradient."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.ops import rule
from engine.rules import kernel_gradient


def _target_rows(targets: np.ndarray, target_lengths: tuple) -> list:
    """Each batch entry's target labels: rows of a 2-d targets, or consecutive runs of a 1-d one."""
    if targets.ndim == 2:
        return [targets[b, :n] for b, n in enumerate(target_lengths)]
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]]).astype(int)
    return [targets[s:s + n] for s, n in zip(starts, target_lengths)]


def _primes(labels: np.ndarray, blank: int) -> np.ndarray:
    """The extended target: blank, l1, blank, l2, ..., blank."""
    out = np.full(2 * len(labels) + 1, blank, np.int64)
    out[1::2] = labels
    return out


def _exp(x: Any, dt: type) -> Any:
    """exp rounded once to the dtype (as the C library's expf / exp give)."""
    return dt(math.exp(x)) if x != -np.inf else dt(0)


def _log(x: Any, dt: type) -> Any:
    return dt(math.log(x)) if x > 0 else dt(-np.inf)


def _log_add3(a: Any, b: Any, c: Any, dt: type) -> Any:
    m = max(a, b, c)
    if m == -np.inf:
        m = dt(0)
    return _log(dt(dt(_exp(dt(a - m), dt) + _exp(dt(b - m), dt)) + _exp(dt(c - m), dt)), dt) + m


def _ctc_loss(log_probs: Any, targets: Any, input_lengths: tuple, target_lengths: tuple, blank: int = 0,
              zero_infinity: bool = False) -> tuple:
    """(neg_log_likelihood per batch entry, log_alpha) by PyTorch's CPU recursion, in the input's dtype."""
    lp = np.asarray(log_probs)
    dt = lp.dtype.type
    T, N, _ = lp.shape
    S = max(target_lengths, default=0) if np.ndim(targets) == 2 else max(target_lengths, default=0)
    log_alpha = np.full((N, T, 2 * S + 1), -np.inf, lp.dtype)
    nll = np.zeros(N, lp.dtype)
    for b, labels in enumerate(_target_rows(np.asarray(targets), target_lengths)):
        primes = _primes(labels, blank)
        il, tl = input_lengths[b], len(labels)
        la = log_alpha[b]
        if il > 0:
            la[0, 0] = lp[0, b, blank]
            if tl > 0:
                la[0, 1] = lp[0, b, primes[1]]
        for t in range(1, il):
            for s in range(2 * tl + 1):
                la1 = la[t - 1, s]
                la2 = la[t - 1, s - 1] if s > 0 else dt(-np.inf)
                la3 = la[t - 1, s - 2] if s > 1 and primes[s - 2] != primes[s] else dt(-np.inf)
                la[t, s] = dt(_log_add3(la1, la2, la3, dt) + lp[t, b, primes[s]])
        if tl == 0:
            nll[b] = -la[il - 1, 0]
        else:
            l1, l2 = la[il - 1, 2 * tl], la[il - 1, 2 * tl - 1]
            m = max(l1, l2)
            m = dt(0) if m == -np.inf else m
            nll[b] = -(_log(dt(_exp(dt(l1 - m), dt) + _exp(dt(l2 - m), dt)), dt) + m)
    return nll, log_alpha


def _ctc_loss_backward(grad: Any, log_probs: Any, targets: Any, input_lengths: tuple, target_lengths: tuple,
                       neg_log_likelihood: Any, log_alpha: Any, blank: int, zero_infinity: bool) -> np.ndarray:
    """PyTorch's ctc_loss_backward_cpu: exp(lp) - exp(log(sum alpha*beta) + nll - lp), times grad, per entry
    (the gradient with respect to the logits that log_softmax turned into log_probs)."""
    lp = np.asarray(log_probs)
    dt = lp.dtype.type
    T, N, C = lp.shape
    g_out = np.asarray(grad)
    out = np.zeros(lp.shape, lp.dtype)
    for b, labels in enumerate(_target_rows(np.asarray(targets), target_lengths)):
        nll = neg_log_likelihood[b]
        if zero_infinity and nll == np.inf:
            continue
        primes = _primes(labels, blank)
        il, tl = input_lengths[b], len(labels)
        if il == 0:
            continue
        la = log_alpha[b]
        lb = np.full((T, 2 * tl + 1), -np.inf, lp.dtype)
        acc = np.full((T, C), -np.inf, lp.dtype)
        lb[il - 1, 2 * tl] = lp[il - 1, b, blank]
        acc[il - 1, blank] = la[il - 1, 2 * tl] + lb[il - 1, 2 * tl]
        if tl > 0:
            cur = primes[2 * tl - 1]
            lb[il - 1, 2 * tl - 1] = lp[il - 1, b, cur]
            acc[il - 1, cur] = la[il - 1, 2 * tl - 1] + lb[il - 1, 2 * tl - 1]
        for t in range(il - 2, -1, -1):
            for s in range(2 * tl, -1, -1):
                lb1 = lb[t + 1, s]
                lb2 = lb[t + 1, s + 1] if s < 2 * tl else dt(-np.inf)
                lb3 = lb[t + 1, s + 2] if s < 2 * tl - 1 and primes[s + 2] != primes[s] else dt(-np.inf)
                lb[t, s] = dt(_log_add3(lb1, lb2, lb3, dt) + lp[t, b, primes[s]])
                both = dt(la[t, s] + lb[t, s])
                c = primes[s]
                if acc[t, c] == -np.inf:
                    acc[t, c] = both
                else:
                    m = max(acc[t, c], both)
                    acc[t, c] = _log(dt(_exp(dt(acc[t, c] - m), dt) + _exp(dt(both - m), dt)), dt) + m
        gr = g_out[b]
        with np.errstate(over="ignore"):
            e1 = np.exp(lp[:il, b].astype(np.float64)).astype(lp.dtype)
            e2 = np.exp((acc[:il] + nll - lp[:il, b]).astype(np.float64)).astype(lp.dtype)
            res = (e1 - e2) * gr
        out[:il, b] = res.astype(lp.dtype)
    return out


def _grad(F: Any, grad: Any, blank: int, input_lengths: tuple, log_probs: Any, result0: Any, result1: Any,
          target_lengths: tuple, targets: Any, zero_infinity: bool) -> Any:
    out = _ctc_loss_backward(F.raw(grad[0]), F.raw(log_probs), targets, input_lengths, target_lengths,
                             np.asarray(F.raw(result0)), np.asarray(F.raw(result1)), blank, zero_infinity)
    return kernel_gradient(F, "_ctc_loss_backward", out, (grad[0], log_probs))


CTC_LOSS = rule("_ctc_loss", "CtcLossBackward0", _ctc_loss, (_grad,),
                ("(exp(log_probs) - exp(log sum alpha*beta + nll - log_probs)) * grad",), inputs=("log_probs",),
                outputs=2, differentiable_outputs=(0,), output_names=("result0", "result1"),
                defaults={"blank": 0, "zero_infinity": False})


def _lengths(name: str, value: Any) -> tuple:
    from engine.tensor import Tensor

    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(v) for v in value._data.reshape(-1))
    if isinstance(value, int):
        return (value,)
    return tuple(int(v) for v in value)


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """The CTC loss of log_probs (T, N, C) or (T, C) against targets (N, S) or concatenated (sum(target_lengths))."""
    from engine import creation
    from engine import functions as f
    from engine.nn.functional import _reduction
    from engine.rules import apply

    red = _reduction(reduction)
    il = _lengths("input_lengths", input_lengths)
    tl = _lengths("target_lengths", target_lengths)
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(il) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    tg = targets._data.astype(np.int64)
    if tg.ndim == 2 and tl and tg.shape[1] < max(tl):
        raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, but got size "
                           f"{tg.shape[1]} for argument #2 'targets' (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    for n in il:
        if n > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {n} (while "
                               "checking arguments for ctc_loss_allocate_outputs)")
    res = apply(CTC_LOSS, (lp,), {"targets": tg, "input_lengths": il, "target_lengths": tl, "blank": blank,
                                  "zero_infinity": bool(zero_infinity)})[0]
    if zero_infinity:
        inf = res == float("inf")
        res = f.where(inf, creation.zeros((), dtype=res.dtype), res)
    if red == 1:
        lengths = creation.tensor(list(tl), dtype=res.dtype).clamp_min(1)
        return (res / lengths).mean()
    if red == 2:
        return res.sum()
    return res if batched else res.squeeze(0)
