"""torch.optim.LBFGS: limited-memory BFGS over the flattened parameters, with an optional strong Wolfe search.

The vector arithmetic runs on engine tensors so that what lands in the state (tensors or Python numbers)
has the types torch gives it; the tracer is detached meanwhile, so only the closure's work and the
parameter writes show in a trace.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from engine import observe
from engine.grad_mode import enable_grad, no_grad
from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check_lr
from engine.tensor import Tensor


@contextlib.contextmanager
def _observer(current: Any) -> Iterator[None]:
    """Attaches `current` (the tracer, or None) for the block."""
    previous = observe.attach(current)
    try:
        yield
    finally:
        observe.detach(previous)


def _cubic_interpolate(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: Any = None) -> Any:
    """The minimiser of the cubic through two points with their slopes, kept within bounds."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if not d2_square >= 0:
        return (low + high) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, low), high)


class _Bracket:
    """Two trial steps of the line search, with their losses, gradients and directional derivatives."""

    def __init__(self, ts: list, fs: list, gs: list, gtds: list) -> None:
        self.t, self.f, self.g, self.gtd = ts, fs, gs, gtds

    def set(self, i: int, t: Any, f: Any, g: Any, gtd: Any) -> None:
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd

    def order(self) -> tuple[int, int]:
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)


def _strong_wolfe(obj_func: Callable, x: list, t: Any, d: Tensor, f: float, g: Tensor, gtd: Any,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple:
    """A step t along d meeting the strong Wolfe conditions: bracketing, then zooming by cubic steps."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], [gtd_new])
            done = True
            break
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        min_step = t + 0.01 * (t - t_prev)
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, t * 10))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])
    low, high = bracket.order()
    insufficient = False
    while not done and ls_iter < max_ls:
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket.t[0], bracket.f[0], bracket.gtd[0], bracket.t[1], bracket.f[1],
                               bracket.gtd[1])
        t, insufficient = _away_from_ends(t, bracket.t, insufficient)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket.f[low]:
            bracket.set(high, t, f_new, g_new.clone(), gtd_new)
            low, high = bracket.order()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket.t[high] - bracket.t[low]) >= 0:
                bracket.set(high, bracket.t[low], bracket.f[low], bracket.g[low], bracket.gtd[low])
            bracket.set(low, t, f_new, g_new.clone(), gtd_new)
    return bracket.f[low], bracket.g[low], bracket.t[low], evals


def _away_from_ends(t: Any, ends: list, insufficient: bool) -> tuple[Any, bool]:
    """Moves a trial step that lands too close to the bracket's ends (twice running, or outside) inward."""
    top, bottom = max(ends), min(ends)
    eps = 0.1 * (top - bottom)
    if not min(top - t, t - bottom) < eps:
        return t, False
    if not (insufficient or t >= top or t <= bottom):
        return t, True
    return (top - eps if abs(t - top) < abs(t - bottom) else bottom + eps), False


class LBFGS(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._tracer: Any = None

    def _gather_flat_grad(self) -> Tensor:
        views = [p._grad._data.reshape(-1) if p._grad is not None else np.zeros(p._data.size, p._data.dtype)
                 for p in self._params]
        return Tensor._make(np.concatenate(views))

    def _add_grad(self, step_size: Any, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            part = update._data[offset:offset + p._data.size].reshape(p._data.shape)
            self._write(p, k.add(p._data, part, step_size))
            offset += p._data.size

    def _set_param(self, params_data: list) -> None:
        for p, data in zip(self._params, params_data):
            self._write(p, data)

    def _write(self, p: Tensor, value: np.ndarray) -> None:
        with _observer(self._tracer):
            k.write_param(p, value)

    def _evaluate(self, closure: Callable) -> Any:
        """The user's closure, with gradients on and the tracer attached."""
        with _observer(self._tracer), enable_grad():
            return closure()

    def _directional_evaluate(self, closure: Callable, x: list, t: Any, d: Tensor) -> tuple[float, Tensor]:
        self._add_grad(t, d)
        loss = float(self._evaluate(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @no_grad()
    def step(self, closure: Callable) -> Any:  # type: ignore[override]
        """Up to max_iter quasi-Newton iterations, each re-evaluating `closure` for the loss and gradients."""
        self._tracer = observe.current
        try:
            with _observer(None):
                return self._iterate(closure)
        finally:
            self._tracer = None

    def _iterate(self, closure: Callable) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        if isinstance(lr, Tensor) and lr.dim() != 0:
            lr = lr.squeeze()
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        history = {key: state.get(key) for key in ("old_dirs", "old_stps", "ro", "H_diag")}
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                history = {"old_dirs": [], "old_stps": [], "ro": [], "H_diag": 1}
            else:
                d = self._direction(state, history, flat_grad, prev_flat_grad, d, t, group["history_size"])
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(x: list, t: Any, d: Tensor) -> tuple[float, Tensor]:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change):
                break
        state.update(d=d, t=t, **history, prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _direction(state: dict, history: dict, flat_grad: Tensor, prev_flat_grad: Tensor, d: Tensor, t: Any,
                   history_size: int) -> Tensor:
        """The two-loop recursion: -H·g from the stored curvature pairs, after adding the newest pair."""
        old_dirs, old_stps, ro = history["old_dirs"], history["old_stps"], history["ro"]
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            history["H_diag"] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = q.mul(history["H_diag"])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r
