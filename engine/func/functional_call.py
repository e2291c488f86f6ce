"""torch.func.functional_call and stack_module_state: a module run with parameters and buffers given."""

from __future__ import annotations

from typing import Any

import engine as torch
from engine.tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]


def _owner(module: Any, name: str) -> tuple[Any, str]:
    *path, leaf = name.split(".")
    for part in path:
        if part.startswith("_") or not hasattr(module, part):
            raise AttributeError(f"{type(module).__name__} has no attribute `{part}`")
        module = getattr(module, part)
    return module, leaf


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the named parameters and buffers replaced for the call only."""
    from engine.nn import Module

    if not isinstance(module, Module):
        raise AttributeError(f"'{type(module).__name__}' object has no attribute 'named_parameters'")
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    else:
        given = {}
        for d in parameter_and_buffer_dicts:
            repeated = set(given) & set(d)
            if repeated:
                raise ValueError(f"{sorted(repeated)} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            given.update(d)
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(given))
        unexpected = sorted(set(given) - names)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                type(module).__name__, "\n\t".join(parts)))
    saved = []
    try:
        for name, value in given.items():
            if not isinstance(value, Tensor):
                raise TypeError(f"{value!r} is not an instance of torch.Tensor")
            owner, leaf = _owner(module, name)
            for table in ("_parameters", "_buffers"):
                store = owner.__dict__.get(table)
                if store is not None and leaf in store:
                    saved.append((store, leaf, store[leaf]))
                    store[leaf] = value
                    break
            else:
                # Another attribute: only a public name, and only where no other kind of value lives.
                if leaf.startswith("_"):
                    raise AttributeError(f"functional_call: cannot set `{name}` (names starting with '_' are "
                                         "not allowed)")
                current = getattr(owner, leaf, _MISSING)
                if current is not _MISSING and not isinstance(current, Tensor):
                    raise TypeError(f"attribute `{leaf}`: {current} is not an instance of torch.Tensor")
                saved.append((owner.__dict__, leaf, owner.__dict__.get(leaf, _MISSING)))
                owner.__dict__[leaf] = value
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for store, leaf, old in reversed(saved):
            if old is _MISSING:
                store.pop(leaf, None)
            else:
                store[leaf] = old


_MISSING = object()


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """The parameters (and buffers) of same-shaped modules stacked along a new first dim."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: torch.stack([dict(m.named_parameters())[name] for m in models]).detach().requires_grad_(p.requires_grad)
              for name, p in models[0].named_parameters()}
    buffers = {name: torch.stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers

