"""torch.optim: SGD, Adam, AdamW, RMSprop and Adagrad, updating leaf parameters in place."""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain
from typing import Any, Callable, Iterable

import numpy as np

from engine import dtypes, observe
from engine.grad_mode import enable_grad, no_grad
from engine.node import RemovableHandle, add_hook
from engine.tensor import Tensor

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _hooked_step(step: Callable) -> Callable:
    """Runs the optimizer's step pre- and post-hooks around `step`, like torch's profile_hook_step."""

    @functools.wraps(step)
    def wrapper(self: "Optimizer", *args: Any, **kwargs: Any) -> Any:
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
        out = step(self, *args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__ and not getattr(cls.__dict__["step"], "hooked", False):
            cls.step = _hooked_step(cls.__dict__["step"])

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got " + _typename(params))
        # Like torch: a defaultdict of per-parameter dicts holding tensors (buffers and step counts).
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post", "load_state_dict_pre",
                     "load_state_dict_post"):
            self.__dict__.setdefault(f"_optimizer_{name}_hooks", OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                 + name)
            param_group.setdefault(name, default)
        if len(tensors) != len({id(p) for p in tensors}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this "
                          "will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        zero_grad_in_place(p)

    @_hooked_step
    def step(self, closure: Any = None) -> Any:
        """Evaluates `closure` (with gradients on) for the loss, then updates each parameter that has a gradient."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in self._params_with_grad(group):
                    self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict) -> None:
        """One parameter's update, in place, from its gradient and the group's options."""
        raise NotImplementedError

    # --- hooks ------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- state dict -------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """{"state": {index: {...}}, "param_groups": [{...options, "params": [indices]}]}, sharing tensors."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = _cast(id_map[k], v)
            else:
                state[k] = v
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for group in self.param_groups:  # options added since the state was saved
            for key, value in self.defaults.items():
                group.setdefault(key, value)
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _params_with_grad(self, group: dict) -> Iterable[Tensor]:
        for p in group["params"]:
            if p._grad is not None:
                yield p


def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
    """As torch loads state: tensors take the parameter's dtype (the same tensor if they already have it)."""
    if isinstance(value, Tensor):
        if key == "step" or not param.is_floating_point() or value.dtype == param.dtype:
            return value
        return value.to(dtype=param.dtype)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def zero_grad_in_place(p: Tensor) -> None:
    """zero_grad(set_to_none=False) for one parameter, as torch does it: detach the gradient, then zero it."""
    grad = p._grad
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


def _typename(obj: Any) -> str:
    from engine.nn import _typename as typename

    return typename(obj)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _scalar(value: Any) -> float:
    return value.item() if isinstance(value, Tensor) else value


def _fma(a: Any, b: Any, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the fused multiply-adds of torch's CPU kernels compute it."""
    dtype = c.dtype
    if dtype == np.float32:
        wide = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
        return (wide + c.astype(np.float64)).astype(np.float32)
    return np.asarray(np.asarray(a, dtype) * b + c, dtype)


def _lerp(start: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """torch.lerp's CPU kernel: fma(w, end - start, start) if |w| < 0.5, else fma(w - 1, end - start, end)."""
    w = np.asarray(weight, start.dtype)
    diff = end - start
    return _fma(w, diff, start) if abs(float(w)) < 0.5 else _fma(w - np.asarray(1, start.dtype), diff, end)


def _set(t: Tensor, value: np.ndarray, bumps: int = 1) -> None:
    """Writes `value` into t's storage in place (views see it) and counts the in-place ops torch performs."""
    t._data[...] = value
    t._vc[0] += bumps


def _write_param(p: Tensor, value: np.ndarray) -> None:
    """A parameter's in-place update, reported like any in-place op, so a trace shows the new weights."""
    _set(p, value)
    if observe.current is not None:
        observe.current.inplace_applied(p, None)


def _step_count() -> Tensor:
    """torch's step counts: 0-d float32 tensors (float64 when that is the default dtype)."""
    dtype = np.float64 if dtypes.default_float.np == np.float64 else np.float32
    return _state_tensor(np.zeros((), dtype))


def _state_tensor(array: np.ndarray) -> Tensor:
    """Optimizer state is made of plain tensors, as in torch (never raw arrays: user code prints them)."""
    return Tensor._make(array)


def _grad(p: Tensor, group: dict) -> np.ndarray:
    g = p._grad._data
    return -g if group["maximize"] else g


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(not lr < 0.0, f"Invalid learning rate: {lr}")
        _check(not momentum < 0.0, f"Invalid momentum value: {momentum}")
        _check(not weight_decay < 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        lr, momentum, wd = _scalar(group["lr"]), group["momentum"], group["weight_decay"]
        d = _grad(p, group)
        if wd != 0:
            d = _fma(wd, p._data, d)
        if momentum != 0:
            state = self.state[p]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = _state_tensor(np.array(d, p._data.dtype))
            else:
                buf = buffer._data * np.asarray(momentum, d.dtype)
                _set(buffer, _fma(1 - group["dampening"], d, buf), 2)  # mul_ and add_
            d = _fma(momentum, buffer._data, d) if group["nesterov"] else buffer._data
        _write_param(p, _fma(-lr, d, p._data))


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p: Tensor, group: dict) -> None:
        lr, (beta1, beta2), wd = _scalar(group["lr"]), group["betas"], group["weight_decay"]
        state = self.state[p]
        if not state:
            state["step"] = _step_count()
            state["exp_avg"] = _state_tensor(np.zeros_like(p._data))
            state["exp_avg_sq"] = _state_tensor(np.zeros_like(p._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _state_tensor(np.zeros_like(p._data))
        g = _grad(p, group)
        dtype = p._data.dtype
        _set(state["step"], state["step"]._data + 1)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                _write_param(p, p._data * np.asarray(1 - lr * wd, dtype))
            else:
                g = _fma(wd, p._data, g)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        _set(m, _lerp(m._data, g, 1 - beta1))
        # mul_ then addcmul_ (two versions)
        _set(v, _fma(np.asarray(1 - beta2, dtype) * g, g, v._data * np.asarray(beta2, dtype)), 2)
        step = float(state["step"]._data)
        bias1 = 1 - beta1 ** step
        bias2_sqrt = (1 - beta2 ** step) ** 0.5
        if group["amsgrad"]:
            peak = state["max_exp_avg_sq"]
            _set(peak, np.maximum(peak._data, v._data))
            v = peak
        denom = np.sqrt(v._data) / np.asarray(bias2_sqrt, dtype) + np.asarray(group["eps"], dtype)
        _write_param(p, p._data + np.asarray(-(lr / bias1), dtype) * m._data / denom)


class AdamW(Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


class RMSprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p: Tensor, group: dict) -> None:
        lr, alpha, momentum = _scalar(group["lr"]), group["alpha"], group["momentum"]
        wd = group["weight_decay"]
        dtype = p._data.dtype
        state = self.state[p]
        if not state:
            state["step"] = _step_count()
            state["square_avg"] = _state_tensor(np.zeros_like(p._data))
            if momentum > 0:
                state["momentum_buffer"] = _state_tensor(np.zeros_like(p._data))
            if group["centered"]:
                state["grad_avg"] = _state_tensor(np.zeros_like(p._data))
        g = _grad(p, group)
        _set(state["step"], state["step"]._data + 1)
        if wd != 0:
            g = _fma(wd, p._data, g)
        sq = state["square_avg"]
        _set(sq, _fma(np.asarray(1 - alpha, dtype) * g, g, sq._data * np.asarray(alpha, dtype)), 2)
        if group["centered"]:
            ga = state["grad_avg"]
            _set(ga, _lerp(ga._data, g, 1 - alpha))
            avg = np.sqrt(_fma(-ga._data, ga._data, sq._data))
        else:
            avg = np.sqrt(sq._data)
        avg = avg + np.asarray(group["eps"], dtype)
        if momentum > 0:
            buf = state["momentum_buffer"]
            _set(buf, buf._data * np.asarray(momentum, dtype) + g / avg, 2)  # mul_, addcdiv_
            _write_param(p, _fma(-lr, buf._data, p._data))
        else:
            _write_param(p, p._data + np.asarray(-lr, dtype) * g / avg)


class Adagrad(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:  # torch fills the state at construction
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_count()
                state["sum"] = _state_tensor(np.full_like(p._data, initial_accumulator_value))

    def _update(self, p: Tensor, group: dict) -> None:
        lr, wd = _scalar(group["lr"]), group["weight_decay"]
        state = self.state[p]
        dtype = p._data.dtype
        _set(state["step"], state["step"]._data + 1)
        step = float(state["step"]._data)
        g = _grad(p, group)
        if wd != 0:
            g = _fma(wd, p._data, g)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]
        _set(total, _fma(g, g, total._data))
        std = np.sqrt(total._data) + np.asarray(group["eps"], dtype)
        _write_param(p, p._data + np.asarray(-clr, dtype) * g / std)


from engine.optim import lr_scheduler  # noqa: E402 - the scheduler module needs Optimizer defined
