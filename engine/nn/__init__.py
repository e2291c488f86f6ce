"""torch.nn: Module, Parameter, layers, activations and losses."""

from __future__ import annotations

import functools
import math
import warnings
from collections import OrderedDict
from typing import Any, Iterator

from engine import creation, dtypes
from engine import devices as _devices
from engine import functions as _f
from engine.grad_mode import no_grad
from engine.node import RemovableHandle, add_hook
from engine.optim import zero_grad_in_place
from engine.nn import clip_grad, convert_parameters, functional, init
from engine.tensor import Parameter, Tensor

__all__ = ["Module", "Parameter", "Identity", "Linear", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d",
           "Flatten", "Dropout", "Embedding", "LayerNorm",
           "BatchNorm1d", "BatchNorm2d", "Sequential",
           "ModuleList", "ModuleDict", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "GELU", "ELU", "LeakyReLU",
           "Softplus", "Hardtanh", "LogSigmoid", "Softmax", "LogSoftmax", "Softsign", "SELU", "CELU", "Mish",
           "Hardswish", "Hardsigmoid", "Tanhshrink", "Threshold", "GLU", "MSELoss", "L1Loss",
           "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss",
           "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "Softmin", "PReLU", "Softshrink", "Hardshrink", "GroupNorm", "Dropout1d",
           "Dropout2d", "Unflatten", "ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d",
           "CosineSimilarity", "PairwiseDistance", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Bilinear", "ParameterList",
           "ParameterDict", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU",
           "functional", "init", "utils"]
__all__ += ["ConvTranspose1d", "ConvTranspose2d", "AlphaDropout", "FeatureAlphaDropout", "Upsample",
            "UpsamplingNearest2d", "UpsamplingBilinear2d", "MultiheadAttention"]
__all__ += ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
            "BatchNorm3d"]


class Module:
    """Base class of layers: registers parameters and submodules by attribute assignment."""

    training: bool
    _version: int = 1  # state_dict metadata: layouts changed since are loaded the old way

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        hooks = self.__dict__.get("_forward_hooks_by_kind")
        if not hooks and not (_global_forward_hooks["pre"] or _global_forward_hooks["post"]):
            return self.forward(*args, **kwargs)
        if not hooks:
            hooks = _NO_HOOKS
        result = None
        called: set = set()  # always_call hooks that ran
        try:
            for key, hook in (*_global_forward_hooks["pre"].items(), *hooks["pre"].items()):
                if key in hooks["with_kwargs"]:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {new}.")
                        args, kwargs = new
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            backward_hook = None
            if hooks["backward"] or hooks["backward_pre"]:
                from engine.utils.hooks import BackwardHook

                backward_hook = BackwardHook(self, list(hooks["backward"].values()),
                                             list(hooks["backward_pre"].values()))
                args = backward_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for key, hook in (*_global_forward_hooks["post"].items(), *hooks["post"].items()):
                if key in hooks["always"] or key in _global_forward_hooks["always"]:
                    called.add(key)
                if key in hooks["with_kwargs"] or key in _global_forward_hooks["with_kwargs"]:
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            if backward_hook is not None:
                outputs = backward_hook.setup_output_hook(result if isinstance(result, tuple) else (result,))
                result = outputs if isinstance(result, tuple) else outputs[0]
            if hooks["legacy"]:
                _attach_legacy_backward_hooks(self, list(hooks["legacy"].values()), args, result)
            return result
        except Exception:
            # torch runs the always_call forward hooks that did not run yet, then re-raises
            result = _call_always_hooks(self, _global_forward_hooks, "global module", called, args, kwargs, result)
            _call_always_hooks(self, hooks, "module", called, args, kwargs, result)
            raise

    def register_forward_pre_hook(self, hook: Any, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) runs before forward; a value it returns replaces the arguments. With
        `with_kwargs`, hook(module, args, kwargs) may return a new (args, kwargs)."""
        return self._add_forward_hook("pre", hook, prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook: Any, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) (or hook(module, args, kwargs, output) with `with_kwargs`) runs
        after forward; a value it returns replaces the output. `always_call` hooks also run when
        forward raises."""
        return self._add_forward_hook("post", hook, prepend, with_kwargs=with_kwargs, always_call=always_call)

    def register_full_backward_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) runs when the gradients of the module's inputs are
        computed; a tuple it returns replaces grad_input."""
        self._backward_hook_kind(full=True)
        return self._add_forward_hook("backward", hook, prepend)

    def register_backward_hook(self, hook: Any) -> RemovableHandle:
        """The deprecated form of register_full_backward_hook: hook(module, grad_input, grad_output)
        becomes a hook of the node that made the module's output, so grad_input holds that node's
        input gradients (not always the module's inputs'). Calls warn when that differs."""
        self._backward_hook_kind(full=False)
        return self._add_forward_hook("legacy", hook, False)

    def _backward_hook_kind(self, full: bool) -> None:
        """A module takes full or legacy backward hooks, not both (torch's _is_full_backward_hook)."""
        kind = self.__dict__.get("_is_full_backward_hook")
        if kind is not None and kind != full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    def register_full_backward_pre_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) runs when the gradients of the module's outputs are computed;
        a tuple it returns replaces grad_output."""
        return self._add_forward_hook("backward_pre", hook, prepend)

    def _add_forward_hook(self, kind: str, hook: Any, prepend: bool, with_kwargs: bool = False,
                          always_call: bool = False) -> RemovableHandle:
        """All of a module's call hooks in one dict, so that a call without hooks checks only it."""
        hooks = self.__dict__.get("_forward_hooks_by_kind")
        if hooks is None:
            hooks = _new_hook_registry()
            object.__setattr__(self, "_forward_hooks_by_kind", hooks)
        return _register_call_hook(hooks, kind, hook, prepend, with_kwargs, always_call)

    # --- attribute registry -------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params, buffers, modules = d.get("_parameters"), d.get("_buffers"), d.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove(name, d, buffers, modules, d.get("_non_persistent_buffers_set"))
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove(name, d, params, buffers, d.get("_non_persistent_buffers_set"))
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            # Protocol lookups (copy's __deepcopy__, NumPy's __array_interface__) are never served
            # from the registries, whatever names Sequential(OrderedDict) or ParameterDict were given.
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            registry = d.get(key)
            if registry is not None and name in registry:
                return registry[name]
        if name in _HOOK_DICTS:
            return _hook_dict(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for key in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(key, {}):
                del self.__dict__[key][name]
                if key == "_buffers":
                    self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)  # kept out of state_dict, as in torch

    def add_module(self, name: str, module: "Module | None") -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    # --- traversal ------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, module in modules:
            for name, p in module._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield mod_prefix + ("." if mod_prefix else "") + name, p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        for mod_prefix, module in self.named_modules(prefix=prefix):
            for name, b in module._buffers.items():
                if b is not None:
                    yield mod_prefix + ("." if mod_prefix else "") + name, b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers():
            yield b

    # --- state ------------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                zero_grad_in_place(p)

    def train(self, mode: bool = True) -> "Module":
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Any) -> "Module":
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _non_persistent_names(self) -> set[str]:
        """Qualified names of the buffers registered with persistent=False."""
        names = set()
        for prefix, module in self.named_modules():
            for name in module.__dict__.get("_non_persistent_buffers_set", ()):
                names.add(prefix + ("." if prefix else "") + name)
        return names

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> Any:
        """The parameters and persistent buffers by qualified name, into `destination` (a new OrderedDict with
        `_metadata` by default), module by module as PyTorch does (hooks after a module's children)."""
        if args:
            import warnings

            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                          "for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": type(self)._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        skip = self.__dict__.get("_non_persistent_buffers_set", ())
        for name, b in self._buffers.items():
            if b is not None and name not in skip:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(self.__dict__.get("_state_dict_hooks", {}).values()):
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:  # a (private) hook may hand back another dict
                destination = result
        return destination

    def _register_state_dict_hook(self, hook: Any) -> Any:
        """hook(module, state_dict, prefix, local_metadata), run after the module's entries are added."""
        from engine.node import add_hook

        return add_hook(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook: Any, with_module: bool = False) -> Any:
        """hook(state_dict, prefix, local_metadata, strict, missing, unexpected, errors) before loading."""
        from engine.node import add_hook

        if with_module:
            return add_hook(self._load_state_dict_pre_hooks, functools.partial(hook, self))
        return add_hook(self._load_state_dict_pre_hooks, hook)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copies matching entries module by module, as PyTorch does: a wrong shape or a non-tensor is an
        error (after the other entries were copied); missing and unexpected keys are errors when strict."""
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        missing: list = []
        unexpected: list = []
        errors: list = []

        if any(m.__dict__.get("_load_state_dict_pre_hooks") for m in self.modules()):
            state_dict = OrderedDict(state_dict)  # the hooks may rewrite keys, in a copy as PyTorch does
            if metadata is not None:
                state_dict._metadata = metadata  # type: ignore[attr-defined]

        def load(module: Module, prefix: str) -> None:
            local = (metadata or {}).get(prefix[:-1], {})
            for hook in list(module.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
                hook(state_dict, prefix, local, strict, missing, unexpected, errors)
            module._load_entries(state_dict, prefix, metadata, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        with no_grad():
            load(self, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def _load_entries(self, state_dict: Any, prefix: str, metadata: Any, missing: list, unexpected: list,
                      errors: list) -> None:
        """One module's part of load_state_dict (PyTorch's _load_from_state_dict)."""
        skip = self.__dict__.get("_non_persistent_buffers_set", ())
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items() if v is not None and k not in skip)
        version = (metadata or {}).get(prefix[:-1], {}).get("version") if metadata is not None else None
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if name == "num_batches_tracked" and (version is None or version < 2):
                    continue  # BatchNorm: checkpoints older than version 2 did not save it
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
                continue
            if param._data.ndim == 0 and value._data.ndim == 1:
                value = value[0]
            if value._data.shape != param._data.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {param.shape}.")
                continue
            dtypes.write(param._data, value._data)
            param._vc[0] += 1
        for key in state_dict:
            if key.startswith(prefix) and key != prefix + "_extra_state":
                parts = key[len(prefix):].split(".", 1)
                if parts[0] not in (self._modules if len(parts) > 1 else local):
                    unexpected.append(key)

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        from engine import devices, dtypes

        for a in (*args, kwargs.get("device")):
            if isinstance(a, str):
                dtypes.device(a)  # an unknown device type raises, as in PyTorch
        if self._has_tensors():
            devices.check_to(args, kwargs)
        target = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                target = a
        if target is not None:
            for p in self.parameters():
                p._data = dtypes.cast(p._data, target.np)
            for b in self.buffers():  # floating-point buffers (running statistics) too, not counters
                if b.is_floating_point():
                    b._data = dtypes.cast(b._data, target.np)
        from engine import meta

        if any(meta.is_meta_device(d) for d in meta.devices_named(args, kwargs)):
            meta.to_meta_in_place(self)
        return self

    def double(self) -> "Module":
        from engine import dtypes

        return self.to(dtypes.float64)

    def float(self) -> "Module":
        from engine import dtypes

        return self.to(dtypes.float32)

    def half(self) -> "Module":
        from engine import dtypes

        return self.to(dtypes.float16)

    def bfloat16(self) -> "Module":
        from engine import dtypes

        return self.to(dtypes.bfloat16)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device: Any = None) -> "Module":
        from engine import devices

        if self._has_tensors():
            devices.check_cuda(device)
        return self

    def _has_tensors(self) -> bool:
        return any(True for _ in self.parameters()) or any(True for _ in self.buffers())

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        children = [f"({name}): {_addindent(repr(module), 2)}" for name, module in self._modules.items()]
        lines = extra_lines + children
        if not lines:
            return f"{self._get_name()}()"
        if not children and len(extra_lines) == 1:
            return f"{self._get_name()}({extra})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules))


def _new_hook_registry() -> dict:
    """A module's (or the global) call hooks by kind, and the ids of hooks taking kwargs or always called."""
    return {"pre": OrderedDict(), "post": OrderedDict(), "backward": OrderedDict(), "backward_pre": OrderedDict(),
            "legacy": OrderedDict(), "with_kwargs": set(), "always": set()}


# torch's per-module hook dicts (handle id -> hook): the call hooks' are the registry's own dicts
# (see _add_forward_hook), the *_with_kwargs / *_always_called ones read-only copies of its id sets;
# the state-dict ones are plain OrderedDicts made on first use.
_HOOK_DICTS = {"_forward_pre_hooks": "pre", "_forward_hooks": "post", "_backward_pre_hooks": "backward_pre",
               "_backward_hooks": "backward", "_forward_pre_hooks_with_kwargs": ("pre", "with_kwargs"),
               "_forward_hooks_with_kwargs": ("post", "with_kwargs"),
               "_forward_hooks_always_called": ("post", "always"), "_state_dict_hooks": None,
               "_state_dict_pre_hooks": None, "_load_state_dict_pre_hooks": None,
               "_load_state_dict_post_hooks": None}


def _hook_dict(module: Module, name: str) -> OrderedDict:
    kind = _HOOK_DICTS[name]
    if kind is None:
        made: OrderedDict = OrderedDict()
        object.__setattr__(module, name, made)
        return made
    hooks = module.__dict__.get("_forward_hooks_by_kind")
    if hooks is None:
        hooks = _new_hook_registry()
        object.__setattr__(module, "_forward_hooks_by_kind", hooks)
    if isinstance(kind, tuple):
        return OrderedDict((key, True) for key in hooks[kind[0]] if key in hooks[kind[1]])
    if kind == "backward" and module.__dict__.get("_is_full_backward_hook") is False:
        kind = "legacy"  # torch keeps both kinds in _backward_hooks; a module holds one kind only
    return hooks[kind]


def _register_call_hook(hooks: dict, kind: str, hook: Any, prepend: bool, with_kwargs: bool,
                        always_call: bool) -> RemovableHandle:
    handle = add_hook(hooks[kind], hook, prepend)
    if with_kwargs:
        hooks["with_kwargs"].add(handle.id)
    if always_call:
        hooks["always"].add(handle.id)
    return handle


def _call_always_hooks(module: Module, hooks: dict, what: str, called: set, args: Any, kwargs: Any,
                       result: Any) -> Any:
    """After forward (or a hook) raised: the always_call forward hooks of `hooks` that did not run yet,
    their own errors turned into warnings, as torch does."""
    for key, hook in list(hooks["post"].items()):
        if key not in hooks["always"] or key in called:
            continue
        try:
            # torch passes kwargs to a module's with_kwargs hooks here, never to global ones
            if key in hooks["with_kwargs"] and what == "module":
                new = hook(module, args, kwargs, result)
            else:
                new = hook(module, args, result)
            if new is not None:
                result = new
        except Exception as e:
            warnings.warn(f"{what} forward hook with ``always_call=True`` raised an exception that was "
                          f"silenced as another error was raised in forward: {e}", stacklevel=3)
    return result


_NO_HOOKS = _new_hook_registry()  # what a module without hooks of its own runs with
# torch.nn.modules.module.register_module_forward_pre_hook / register_module_forward_hook: hooks of
# every module's call, run before each module's own
_global_forward_hooks = _new_hook_registry()


def register_module_forward_pre_hook(hook: Any) -> RemovableHandle:
    """A forward pre-hook common to all modules, run before each module's own."""
    return _register_call_hook(_global_forward_hooks, "pre", hook, False, False, False)


def register_module_forward_hook(hook: Any, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """A forward hook common to all modules, run before each module's own."""
    return _register_call_hook(_global_forward_hooks, "post", hook, False, with_kwargs, always_call)


def _attach_legacy_backward_hooks(module: Module, hooks: list, args: tuple, output: Any) -> None:
    """register_backward_hook's hooks on the grad_fn of the output's first tensor, as torch does."""
    var = output
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(functools.partial(hook, module))
    _warn_legacy_backward_hook(args, output, grad_fn)


_LEGACY_HOOK_WARNINGS = {
    "output": "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
              "Tensors is deprecated and will be removed in future versions. This hook will be missing some "
              "of the grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "input": "Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
             "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
             "missing some of the grad_input. Please use register_full_backward_hook to get the documented "
             "behavior.",
    "nested": "Using a non-full backward hook when outputs are nested in python data structure is "
              "deprecated and will be removed in future versions. This hook will be missing some "
              "grad_output.",
    "nodes": "Using a non-full backward hook when outputs are generated by different autograd Nodes is "
             "deprecated and will be removed in future versions. This hook will be missing some "
             "grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "forward": "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
               "deprecated and will be removed in future versions. This hook will be missing some "
               "grad_input. Please use register_full_backward_hook to get the documented behavior.",
}


def _warn_legacy_backward_hook(inputs: Any, result: Any, grad_fn: Any) -> None:
    """torch's _maybe_warn_non_full_backward_hook: a FutureWarning when the hook will not see the
    module's own grad_input or grad_output."""
    problem = _legacy_hook_problem(inputs, result, grad_fn)
    if problem is not None:
        warnings.warn(_LEGACY_HOOK_WARNINGS[problem], FutureWarning, stacklevel=4)


def _legacy_hook_problem(inputs: Any, result: Any, grad_fn: Any) -> str | None:
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return "output"
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return "input"
    out_fns = {id(r.grad_fn): r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and id(grad_fn) not in out_fns):
        return "nested"
    if len(out_fns) > 1:
        return "nodes"
    input_fns = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
    next_fns = {id(fn) for fn, _ in grad_fn.next_functions}  # None counts as an edge, as in torch
    return "forward" if input_fns != next_fns else None


class _IncompatibleKeys(tuple):
    def __new__(cls, missing: list, unexpected: list) -> "_IncompatibleKeys":
        obj = super().__new__(cls, (missing, unexpected))
        return obj

    @property
    def missing_keys(self) -> list:
        return self[0]

    @property
    def unexpected_keys(self) -> list:
        return self[1]

    def __repr__(self) -> str:
        if not self[0] and not self[1]:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self[0]}, unexpected_keys={self[1]})"


# --- containers --------------------------------------------------------------------------------
def _module_index(idx: Any, size: int) -> int:
    """An index into a Sequential or ModuleList, with PyTorch's IndexError."""
    import operator

    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx


class _IndexedModules:
    """Item assignment, deletion, insert and pop shared by Sequential and ModuleList (keys "0".."n-1")."""

    _modules: dict

    def __setitem__(self, idx: int, module: Any) -> None:
        setattr(self, str(_module_index(idx, len(self._modules)) % len(self._modules)), module)

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_module_index(idx, len(keys))]]):
            delattr(self, key)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def pop(self, key: Any) -> Any:
        v = self[key]  # type: ignore[index]
        del self[key]
        return v

    def _insert(self, index: int, module: Any) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module


class Sequential(_IndexedModules, Module):
    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, idx: Any) -> Any:
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return mods[_module_index(idx, len(mods))]

    def __add__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        ret = Sequential()
        for layer in (*self, *other):
            ret.append(layer)
        return ret

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError("module should be of type: <class 'torch.nn.modules.module.Module'>")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        self._insert(index + n if index < 0 else index, module)
        return self

    def extend(self, sequential: Any) -> "Sequential":
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(_IndexedModules, Module):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        for m in modules or ():
            self.append(m)

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules: Any) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        self._insert(index, module)

    def __iadd__(self, modules: Any) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Any) -> "ModuleList":
        combined = ModuleList()
        for i, module in enumerate([*self, *other]):
            combined.add_module(str(i), module)
        return combined

    def __getitem__(self, idx: int) -> Any:
        mods = list(self._modules.values())
        return mods[idx] if isinstance(idx, slice) else mods[_module_index(idx, len(mods))]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __repr__(self) -> str:
        """Runs of equal modules print once, as `(0-2): 3 x Linear(...)`, like torch's ModuleList."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list] = []  # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = []
        for first, last, text in blocks:
            line = f"({first}): {text}" if first == last else f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        for k, m in (modules or {}).items():
            self.add_module(k, m)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()


# --- layers --------------------------------------------------------------------------------------
class Identity(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        from engine import meta

        if meta.is_meta_device(device):
            meta.to_meta_in_place(self)  # shapes and dtypes only: initialising them draws nothing
        else:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return _f.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


_PADDING_STRINGS = {"same", "valid"}  # a set built as PyTorch builds it: its message prints it (hash order)


class _ConvNd(Module):
    """Conv1d / Conv2d / Conv3d (weight (out_channels, in_channels / groups, *kernel_size)) and their transposed
    forms (weight (in_channels, out_channels / groups, *kernel_size)), initialised like torch's
    (kaiming_uniform_ with a=sqrt(5), bias uniform in ±1/sqrt(fan_in))."""

    _dims = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                    padding_mode, dtype)

    def _setup(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any,
               dilation: Any, transposed: bool, output_padding: Any, groups: int, bias: bool, padding_mode: str,
               dtype: Any) -> None:
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        stride = functional._ntuple(stride, n)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, "
                             f"but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = functional._ntuple(kernel_size, n)
        self.stride = stride
        self.padding = padding if isinstance(padding, str) else functional._ntuple(padding, n)
        self.dilation = functional._ntuple(dilation, n)
        self.transposed = transposed
        self.output_padding = functional._ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):  # F.pad's widths for a padding_mode: the last dim first
            self._reversed_padding_repeated_twice = [0, 0] * n
            if self.padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i:2 * i + 2] = [total // 2, total - total // 2]
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(self.padding) for _ in range(2))
        channels = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(*channels, *self.kernel_size, dtype=dtype))
        _optional_parameter(self, "bias", (out_channels,), bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        conv = getattr(functional, f"conv{self._dims}d")
        if self.padding_mode != "zeros":
            padded = functional.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    _dims = 1


class Conv2d(_ConvNd):
    _dims = 2


class Conv3d(_ConvNd):
    _dims = 3


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d / 2d / 3d: the input gradient of a convolution as a layer; forward may be
    given the output_size wanted (which picks the output padding)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        Module.__init__(self)
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                    groups, bias, padding_mode, dtype)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        n = self._dims
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.dim() == n + 2 else 1
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        min_sizes = [(input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
        return tuple(size - low for size, low in zip(output_size, min_sizes))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        conv = getattr(functional, f"conv_transpose{self._dims}d")
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3


class MaxPool2d(Module):
    _fn = staticmethod(functional.max_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    _fn = staticmethod(functional.avg_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool3d(MaxPool2d):
    _fn = staticmethod(functional.max_pool3d)


class AvgPool3d(AvgPool2d):
    _fn = staticmethod(functional.avg_pool3d)


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return functional.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, "Padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return functional.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                                    self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, sparse: bool = False) -> "Embedding":
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _optional_parameter(module: Module, name: str, shape: tuple, wanted: bool, dtype: Any) -> None:
    """An uninitialised parameter of `shape`, or a registered None when not wanted (bias=False)."""
    if wanted:
        setattr(module, name, Parameter(creation.empty(*shape, dtype=dtype)))
    else:
        module.register_parameter(name, None)


def _affine_parameters(module: Module, affine: bool, shape: tuple, bias: bool, dtype: Any) -> None:
    """A normalisation's `weight` and `bias` of `shape` (no bias when bias=False), or both None."""
    _optional_parameter(module, "weight", shape, affine, dtype)
    _optional_parameter(module, "bias", shape, affine and bias, dtype)


def _reset_affine(module: Module, affine: bool) -> None:
    """An affine normalisation's weight to ones and its bias, if it has one, to zeros."""
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LayerNorm(Module):
    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, shape, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input: Tensor) -> Tensor:
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(Module):
    """BatchNorm1d / 2d / 3d: batch statistics while training (updating the running ones with
    momentum, or a cumulative average when momentum is None), running statistics in eval mode."""

    _dims: tuple = ()
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None,
                 *, bias: bool = True) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, affine, (num_features,), bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._expected} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        training = self.training or (self.running_mean is None and self.running_var is None)
        tracked = not self.training or self.track_running_stats
        return functional.batch_norm(input, self.running_mean if tracked else None,
                                     self.running_var if tracked else None, self.weight, self.bias,
                                     training, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)
    _expected = "2D or 3D"


class BatchNorm2d(_BatchNorm):
    _dims = (4,)
    _expected = "4D"


class BatchNorm3d(_BatchNorm):
    _dims = (5,)
    _expected = "5D"


def _activation(name: str, fn: Any, params: tuple = (), defaults: tuple = (), show: tuple | None = None) -> type:
    show = params if show is None else show

    def __init__(self: Module, *args: Any, **kwargs: Any) -> None:
        Module.__init__(self)
        values = dict(zip(params, defaults))
        values.update(zip(params, args))
        values.update(kwargs)
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def forward(self: Module, input: Tensor) -> Tensor:
        return fn(input, **{k: getattr(self, k) for k in params})

    def extra_repr(self: Module) -> str:
        parts = []
        for k in show:
            v = getattr(self, k)
            if k == "inplace":
                if v:
                    parts.append("inplace=True")
                continue
            parts.append(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}")
        return ", ".join(parts)

    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                  "__module__": __name__})


ReLU = _activation("ReLU", functional.relu, ("inplace",), (False,))
# nn.ReLU6 is a Hardtanh(0.0, 6.0): its node saves float bounds (F.relu6 saves ints)
ReLU6 = _activation("ReLU6", lambda input, inplace: functional.hardtanh(input, 0.0, 6.0, inplace),
                    ("inplace",), (False,))
Sigmoid = _activation("Sigmoid", functional.sigmoid)
Tanh = _activation("Tanh", functional.tanh)
SiLU = _activation("SiLU", functional.silu, ("inplace",), (False,))
GELU = _activation("GELU", functional.gelu, ("approximate",), ("none",))
ELU = _activation("ELU", functional.elu, ("alpha", "inplace"), (1.0, False))
LeakyReLU = _activation("LeakyReLU", functional.leaky_relu, ("negative_slope", "inplace"), (0.01, False))
Softplus = _activation("Softplus", functional.softplus, ("beta", "threshold"), (1.0, 20.0))
Hardtanh = _activation("Hardtanh", functional.hardtanh, ("min_val", "max_val", "inplace"), (-1.0, 1.0, False))
LogSigmoid = _activation("LogSigmoid", functional.logsigmoid)
Softmax = _activation("Softmax", functional.softmax, ("dim",), (None,))
LogSoftmax = _activation("LogSoftmax", functional.log_softmax, ("dim",), (None,))
Softsign = _activation("Softsign", functional.softsign)
SELU = _activation("SELU", functional.selu, ("inplace",), (False,))
CELU = _activation("CELU", functional.celu, ("alpha", "inplace"), (1.0, False))
Mish = _activation("Mish", functional.mish, ("inplace",), (False,))
Hardswish = _activation("Hardswish", functional.hardswish, ("inplace",), (False,), show=())
Hardsigmoid = _activation("Hardsigmoid", functional.hardsigmoid, ("inplace",), (False,), show=())
Tanhshrink = _activation("Tanhshrink", functional.tanhshrink)
Threshold = _activation("Threshold", functional.threshold, ("threshold", "value", "inplace"),
                        (None, None, False))
GLU = _activation("GLU", functional.glu, ("dim",), (-1,))


# --- losses --------------------------------------------------------------------------------------
class _Loss(Module):
    _fn: Any = None
    _params: tuple = ()

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", **kw: Any) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = "none" if reduce is False else ("mean" if size_average in (None, True) else "sum")
        self.reduction = reduction
        for k, v in kw.items():
            if k in ("weight", "pos_weight"):
                self.register_buffer(k, v)
            else:
                setattr(self, k, v)

    _args: tuple = ("input", "target")

    def forward(self, *inputs: Any, **named: Any) -> Tensor:
        extra = {k: getattr(self, k) for k in self._params}
        return type(self)._fn(*_bind(type(self), inputs, named), reduction=self.reduction, **extra)


def _bind(cls: type, inputs: tuple, named: dict) -> list:
    """forward's arguments in order, with Python's TypeError for a call that does not fit its signature."""
    names, where = cls._args, f"{cls.__name__}.forward()"
    if len(inputs) > len(names):
        raise TypeError(f"{where} takes {len(names) + 1} positional arguments but {len(inputs) + 1} were "
                        "given")
    values = dict(zip(names, inputs))
    for k, v in named.items():
        if k not in names:
            raise TypeError(f"{where} got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{where} got multiple values for argument '{k}'")
        values[k] = v
    missing = [f"'{k}'" for k in names if k not in values]
    if missing:
        listed = missing[0] if len(missing) == 1 else (
            " and ".join(missing) if len(missing) == 2 else ", ".join(missing[:-1]) + ", and " + missing[-1])
        plural = "argument" if len(missing) == 1 else "arguments"
        raise TypeError(f"{where} missing {len(missing)} required positional {plural}: {listed}")
    return [values[k] for k in names]


def _loss(name: str, fn: Any, params: dict | None = None, args: tuple = ("input", "target")) -> type:
    params = params or {}

    def __init__(self: _Loss, *args: Any, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", **kwargs: Any) -> None:
        values = dict(params)
        values.update(zip([k for k in params], args))
        values.update(kwargs)
        _Loss.__init__(self, size_average, reduce, reduction, **values)

    return type(name, (_Loss,), {"__init__": __init__, "_fn": staticmethod(fn), "_params": tuple(params),
                                 "_args": args, "__module__": __name__})


MSELoss = _loss("MSELoss", functional.mse_loss)
L1Loss = _loss("L1Loss", functional.l1_loss)
SmoothL1Loss = _loss("SmoothL1Loss", functional.smooth_l1_loss, {"beta": 1.0})
HuberLoss = _loss("HuberLoss", functional.huber_loss, {"delta": 1.0})
BCELoss = _loss("BCELoss", functional.binary_cross_entropy, {"weight": None})
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", functional.binary_cross_entropy_with_logits,
                          {"weight": None, "pos_weight": None})
NLLLoss = _loss("NLLLoss", functional.nll_loss, {"weight": None, "ignore_index": -100})
CrossEntropyLoss = _loss("CrossEntropyLoss", functional.cross_entropy,
                         {"weight": None, "ignore_index": -100, "label_smoothing": 0.0})
KLDivLoss = _loss("KLDivLoss", functional.kl_div, {"log_target": False})


MarginRankingLoss = _loss("MarginRankingLoss", functional.margin_ranking_loss, {"margin": 0.0},
                          ("input1", "input2", "target"))
HingeEmbeddingLoss = _loss("HingeEmbeddingLoss", functional.hinge_embedding_loss, {"margin": 1.0})
SoftMarginLoss = _loss("SoftMarginLoss", functional.soft_margin_loss)
CosineEmbeddingLoss = _loss("CosineEmbeddingLoss", functional.cosine_embedding_loss, {"margin": 0.0},
                            ("input1", "input2", "target"))
TripletMarginLoss = _loss("TripletMarginLoss", functional.triplet_margin_loss,
                          {"margin": 1.0, "p": 2.0, "eps": 1e-6, "swap": False},
                          ("anchor", "positive", "negative"))
PoissonNLLLoss = _loss("PoissonNLLLoss", functional.poisson_nll_loss, {"log_input": True, "full": False,
                                                                       "eps": 1e-8}, ("log_input", "target"))
GaussianNLLLoss = _loss("GaussianNLLLoss", functional.gaussian_nll_loss, {"full": False, "eps": 1e-6},
                        ("input", "target", "var"))
MultiLabelSoftMarginLoss = _loss("MultiLabelSoftMarginLoss", functional.multilabel_soft_margin_loss,
                                 {"weight": None})
MultiMarginLoss = _loss("MultiMarginLoss", functional.multi_margin_loss,
                        {"p": 1, "margin": 1.0, "weight": None})


# --- more layers ---------------------------------------------------------------------------------
Softmin = _activation("Softmin", functional.softmin, ("dim",), (None,))


class PReLU(Module):
    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return functional.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _Shrink(Module):
    _fn: Any = None

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    _fn = staticmethod(functional.softshrink)


class Hardshrink(_Shrink):
    _fn = staticmethod(functional.hardshrink)


class GroupNorm(Module):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        _affine_parameters(self, affine, (num_channels,), bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self, self.affine)

    def forward(self, input: Tensor) -> Tensor:
        return functional.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class Dropout1d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return functional.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return functional.dropout2d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return functional.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return functional.feature_alpha_dropout(input, self.p, self.training, self.inplace)


class Upsample(Module):
    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return functional.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                      recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear MultiheadAttention uses for its output projection."""


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention: packed in_proj_weight (or q/k/v_proj_weight when kdim or vdim differ
    from embed_dim), in_proj_bias, out_proj, optional bias_k / bias_v; initialised as torch does
    (xavier_uniform_ weights, zero biases, out_proj's weight as a Linear's)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(creation.empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(creation.empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(creation.empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(creation.empty(3 * embed_dim, embed_dim, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(creation.empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(creation.empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        is_batched = query.dim() == 3
        key_padding_mask = functional._canonical_mask(key_padding_mask, "key_padding_mask",
                                                      functional._none_or_dtype(attn_mask), "attn_mask",
                                                      query.dtype)
        attn_mask = functional._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # the transposes keep query, key and value one object when they were
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        attn_output, attn_output_weights = functional.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
            self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
            need_weights=need_weights, attn_mask=attn_mask, average_attn_weights=average_attn_weights,
            is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights


class Unflatten(Module):
    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return _f.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class _ConstantPadNd(Module):
    _dims = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return functional.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class _ZeroPad(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad):
    _dims = 1


class ZeroPad2d(_ZeroPad):
    _dims = 2


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return functional.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return functional.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class MaxPool1d(MaxPool2d):
    def forward(self, input: Tensor) -> Any:
        return functional.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = functional._ntuple(kernel_size, 1)
        self.stride = functional._ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = functional._ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return functional.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                     self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    _fn: Any = None

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    _fn = staticmethod(functional.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptivePool):
    _fn = staticmethod(functional.adaptive_avg_pool2d)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._fn(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    _fn = staticmethod(functional.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    _fn = staticmethod(functional.adaptive_max_pool2d)


class AdaptiveAvgPool3d(_AdaptivePool):
    _fn = staticmethod(functional.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    _fn = staticmethod(functional.adaptive_max_pool3d)


class Bilinear(Module):
    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(creation.empty(out_features, in1_features, in2_features, dtype=dtype))
        _optional_parameter(self, "bias", (out_features,), bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return functional.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


# --- parameter containers ------------------------------------------------------------------------
def _parameter_line(key: Any, value: Any, type_name: Any) -> str:
    """One line of a ParameterList / ParameterDict repr."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(s) for s in value.shape)
    return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}]"


def _as_parameter(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


class ParameterList(Module):
    def __init__(self, values: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _index(self, idx: int) -> str:
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._index(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Any) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value: Any) -> "ParameterList":
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Any) -> "ParameterList":
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(i, p, lambda t: t.dtype) for i, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, _parameter_key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, _parameter_key(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, _parameter_key(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Any:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Any:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def update(self, parameters: Any) -> None:
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, dict):
            pairs = sorted(parameters.items())
        else:
            pairs = list(parameters)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, _typename) for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")


def _parameter_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                        f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
    return key


from engine.nn.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402


from engine.nn import utils  # noqa: E402 - torch.nn.utils


# Where torch defines the layers this module provides: torch.typename names them by that path.
_TORCH_HOMES = {
    "torch.nn.modules.module": ("Module",),
    "torch.nn.modules.linear": ("Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"),
    "torch.nn.modules.container": ("ModuleDict", "ModuleList", "Sequential", "ParameterList",
                                   "ParameterDict"),
    "torch.nn.modules.flatten": ("Flatten", "Unflatten"),
    "torch.nn.modules.conv": ("Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "Conv3d",
                              "ConvTranspose3d"),
    "torch.nn.modules.pooling": ("AvgPool2d", "MaxPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
                                 "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d",
                                 "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d",
                                 "MaxUnpool2d", "MaxUnpool3d"),
    "torch.nn.modules.dropout": ("Dropout", "Dropout1d", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout"),
    "torch.nn.modules.sparse": ("Embedding",),
    "torch.nn.modules.upsampling": ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"),
    "torch.nn.modules.normalization": ("LayerNorm", "GroupNorm"),
    "torch.nn.modules.padding": ("ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d"),
    "torch.nn.modules.distance": ("CosineSimilarity", "PairwiseDistance"),
    "torch.nn.modules.rnn": ("RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM",
                             "GRU"),
    "torch.nn.modules.batchnorm": ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"),
    "torch.nn.modules.activation": ("CELU", "ELU", "GELU", "GLU", "Hardsigmoid", "Hardswish", "Hardtanh",
                                    "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "ReLU", "ReLU6",
                                    "SELU", "SiLU", "Sigmoid", "Softmax", "Softplus", "Softsign", "Tanh",
                                    "Tanhshrink", "Threshold", "Softmin", "PReLU", "Softshrink",
                                    "Hardshrink", "MultiheadAttention"),
    "torch.nn.modules.loss": ("BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss",
                              "L1Loss", "MSELoss", "NLLLoss", "SmoothL1Loss", "MarginRankingLoss",
                              "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
                              "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
                              "MultiLabelSoftMarginLoss", "MultiMarginLoss"),
}
_TORCH_HOME = {name: home for home, names in _TORCH_HOMES.items() for name in names}


def _typename(obj: Any) -> str:
    """torch.typename: 'torch.FloatTensor' for tensors, else the class's module and qualified name."""
    if isinstance(obj, Tensor):
        return f"torch.{obj.dtype.legacy}Tensor"
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    if module.startswith(__name__) and qualname in _TORCH_HOME:
        module = _TORCH_HOME[qualname]
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _check_name(kind: str, name: Any, module: Module, registry: dict) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if hasattr(module, name) and name not in registry:
        raise KeyError(f"attribute '{name}' already exists")


def _addindent(text: str, spaces: int) -> str:
    """Indents every line but the first by `spaces`, leaving blank lines empty (torch's _addindent)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])


def _remove(name: str, *registries: dict | set | None) -> None:
    for registry in registries:
        if isinstance(registry, set):
            registry.discard(name)
        elif registry is not None:
            registry.pop(name, None)


# --- padding layers with a mode (F.pad 'reflect' / 'replicate' / 'circular') and 3-d constant padding --------
class _ModePadNd(Module):
    _dims = 1
    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return functional.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    _dims, _mode = 3, "replicate"


class _CircularPadNd(_ModePadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        ndim = input._data.ndim
        if ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {ndim}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _dims = 1


class CircularPad2d(_CircularPadNd):
    _dims = 2


class CircularPad3d(_CircularPadNd):
    _dims = 3


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class ZeroPad3d(_ZeroPad):
    _dims = 3


__all__ += ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad3d", "ZeroPad3d"]


# --- instance normalization ----------------------------------------------------------------------------
class _InstanceNorm(_BatchNorm):
    """InstanceNorm1d/2d/3d: each sample's channels normalized on their own (F.instance_norm), no affine
    parameters nor running statistics unless asked."""

    _no_batch_dim = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        _devices.check(device, creating=True)
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return functional.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                        self.training or not self.track_running_stats,
                                        self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: Tensor) -> Tensor:
        ndim = input.dim()
        if ndim not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(f"expected {self._no_batch_dim}D or {self._no_batch_dim + 1}D input (got {ndim}D input)")
        feature_dim = ndim - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if ndim == self._no_batch_dim:
            return _f.squeeze(self._apply_instance_norm(_f.unsqueeze(input, 0)), 0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    _no_batch_dim = 4


__all__ += ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


# --- unpooling, pixel shuffle, fold / unfold, power-average pooling -----------------------------------------
class _MaxUnpoolNd(Module):
    _dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = functional._ntuple(kernel_size, self._dims)
        self.stride = functional._ntuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = functional._ntuple(padding, self._dims)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        unpool = getattr(functional, f"max_unpool{self._dims}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _dims = 3


class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return functional.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return functional.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return functional.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return functional.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class _LPPoolNd(Module):
    _dims = 1

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        pool = functional.lp_pool1d if self._dims == 1 else functional.lp_pool2d
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _dims = 1


class LPPool2d(_LPPoolNd):
    _dims = 2


__all__ += ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "PixelShuffle", "PixelUnshuffle", "Unfold", "Fold", "LPPool1d", "LPPool2d"]


from engine.nn.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402
                                   TransformerEncoder, TransformerEncoderLayer)

__all__ += ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
_TORCH_HOME.update(dict.fromkeys(("Transformer", "TransformerEncoder", "TransformerDecoder",
                                  "TransformerEncoderLayer", "TransformerDecoderLayer"),
                                 "torch.nn.modules.transformer"))

from engine.nn.embedding_bag import EmbeddingBag, embedding_bag as _embedding_bag  # noqa: E402

functional.embedding_bag = _embedding_bag
functional.__all__.append("embedding_bag")
__all__ += ["EmbeddingBag"]
_TORCH_HOME["EmbeddingBag"] = "torch.nn.modules.sparse"

from engine.grid_sample import affine_grid as _affine_grid, grid_sample as _grid_sample  # noqa: E402

functional.affine_grid = _affine_grid
functional.grid_sample = _grid_sample
functional.__all__ += ["affine_grid", "grid_sample"]

from engine.ctc_loss import ctc_loss as _ctc_loss  # noqa: E402

functional.ctc_loss = _ctc_loss
functional.__all__.append("ctc_loss")


class CTCLoss(Module):
    """The connectionist temporal classification loss (F.ctc_loss)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__()
        self.reduction = reduction
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any) -> Tensor:
        return _ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                         self.zero_infinity)


__all__ += ["CTCLoss"]
_TORCH_HOME["CTCLoss"] = "torch.nn.modules.loss"


class RMSNorm(Module):
    """Root mean square normalisation over the last dims (functional.rms_norm), with a weight of ones."""

    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        _devices.check(device, creating=True)
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _optional_parameter(self, "weight", shape, elementwise_affine, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return functional.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


__all__ += ["RMSNorm"]
_TORCH_HOME["RMSNorm"] = "torch.nn.modules.normalization"

from engine.nn.lazy import UninitializedParameter, make_lazy_linear as _make_lazy_linear  # noqa: E402

LazyLinear = _make_lazy_linear(Linear, Module)
__all__ += ["LazyLinear", "UninitializedParameter"]
_TORCH_HOME["LazyLinear"] = "torch.nn.modules.linear"


class Dropout3d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return functional.dropout3d(input, self.p, self.training, self.inplace)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (C, H, W) or (N, C, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return functional.softmax(input, -3)


__all__ += ["Dropout3d", "Softmax2d"]
_TORCH_HOME.update({"Dropout3d": "torch.nn.modules.dropout", "Softmax2d": "torch.nn.modules.activation"})


def _get_submodule(self: Module, target: str) -> Module:
    """The submodule a dotted path names ("" is the module itself), with PyTorch's AttributeErrors."""
    if target == "":
        return self
    mod = self
    for item in target.split("."):
        if not hasattr(mod, item):
            raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
        mod = getattr(mod, item)
        if not isinstance(mod, Module):
            raise AttributeError("`" + item + "` is not an nn.Module")
    return mod


def _member(self: Module, target: str) -> tuple[Module, str, Any]:
    """The module a dotted path's prefix names, the last name, and that attribute of the module."""
    module_path, _, name = target.rpartition(".")
    mod = self.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name, getattr(mod, name)


def _get_parameter(self: Module, target: str) -> Parameter:
    _, name, param = _member(self, target)
    if not isinstance(param, Parameter):
        raise AttributeError("`" + name + "` is not an nn.Parameter")
    return param


def _get_buffer(self: Module, target: str) -> Tensor:
    mod, name, buffer = _member(self, target)
    if name not in mod._buffers:
        raise AttributeError("`" + name + "` is not a buffer")
    return buffer


Module.get_submodule = _get_submodule  # type: ignore[attr-defined]
Module.get_parameter = _get_parameter  # type: ignore[attr-defined]
Module.get_buffer = _get_buffer  # type: ignore[attr-defined]


from engine.nn import more_modules as _more_modules  # noqa: E402

globals().update(_more_modules.make_modules(globals()))
MultiLabelMarginLoss = _loss("MultiLabelMarginLoss", functional.multilabel_margin_loss)
__all__ += ["LocalResponseNorm", "RReLU", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss"]
_TORCH_HOME.update({"LocalResponseNorm": "torch.nn.modules.normalization", "RReLU": "torch.nn.modules.activation",
                   "MultiLabelMarginLoss": "torch.nn.modules.loss", "TripletMarginWithDistanceLoss": "torch.nn.modules.loss"})


from engine.nn.lazy import UninitializedBuffer, make_lazy_conv as _make_lazy_conv  # noqa: E402
from engine.nn.lazy import make_lazy_norm as _make_lazy_norm  # noqa: E402

LazyConv1d, LazyConv2d, LazyConv3d = (_make_lazy_conv(c, False) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _make_lazy_conv(c, True) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    _make_lazy_norm(c) for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _make_lazy_norm(c) for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
_LAZY = {"torch.nn.modules.conv": ("LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                                   "LazyConvTranspose2d", "LazyConvTranspose3d"),
         "torch.nn.modules.batchnorm": ("LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"),
         "torch.nn.modules.instancenorm": ("LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d")}
__all__ += [name for names in _LAZY.values() for name in names] + ["UninitializedBuffer"]
_TORCH_HOME.update({name: home for home, names in _LAZY.items() for name in names})
