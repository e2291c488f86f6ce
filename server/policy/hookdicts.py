"""A module's hook dicts as a snippet reads them (`m._forward_hooks`, `m._forward_pre_hooks`, ...).

PyTorch keeps each kind of module hook in an OrderedDict (handle id -> hook) that tutorials read: `len(...)`,
`for h in m._forward_hooks.values()`, `m._forward_hooks.clear()`. A snippet gets a `HookDict` over the
engine's own dict instead of the dict: it reads like an OrderedDict (len, iteration over the ids, `in`, `[id]`,
get, keys, values, items, copy, repr) and can drop hooks (clear, pop, `del d[id]`), which is what the hook's
`handle.remove()` does too. It cannot add or replace hooks (`d[id] = f` is refused: hooks are registered
through register_*_hook, which the engine controls), and every hook it hands back goes through the guards'
value check like any other value. Its own attributes are the listed methods only (see guards.py).
"""

from __future__ import annotations

import collections
import copy
from typing import Any, Callable

from .errors import PolicyError

# The hook dicts a snippet may read on an nn.Module instance (the engine serves them from Module.__getattr__).
HOOK_DICT_NAMES = frozenset({"_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                             "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                             "_load_state_dict_post_hooks"})
HOOK_DICT_METHODS = frozenset({"get", "items", "keys", "values", "copy", "clear", "pop"})
_MISSING = object()


class HookDict:
    """A read-and-remove view of one of a module's hook dicts."""

    __slots__ = ("_hooks", "_check")

    def __init__(self, hooks: dict, check: Callable[[Any, Any, str], Any]) -> None:
        object.__setattr__(self, "_hooks", hooks)
        object.__setattr__(self, "_check", check)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("hook dicts are read-only")

    def _snapshot(self) -> collections.OrderedDict:
        return collections.OrderedDict((k, self._check(v, self, "[]")) for k, v in list(self._hooks.items()))

    # -- reading, as an OrderedDict ---------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._hooks)

    def __iter__(self) -> Any:
        return iter(list(self._hooks))

    def __contains__(self, key: Any) -> bool:
        return key in self._hooks

    def __getitem__(self, key: Any) -> Any:
        return self._check(self._hooks[key], self, "[]")

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self._hooks else default

    def keys(self) -> Any:
        return self._snapshot().keys()

    def values(self) -> Any:
        return self._snapshot().values()

    def items(self) -> Any:
        return self._snapshot().items()

    def copy(self) -> collections.OrderedDict:
        return self._snapshot()

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, HookDict):
            other = other._snapshot()
        return self._snapshot() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._snapshot())

    def __copy__(self) -> collections.OrderedDict:
        return self._snapshot()

    def __deepcopy__(self, memo: Any) -> collections.OrderedDict:
        return copy.deepcopy(self._snapshot(), memo)

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("cannot pickle a module's hook dict")

    # -- removing hooks (what handle.remove() does) ---------------------------------------------------
    def clear(self) -> None:
        self._hooks.clear()

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        if key not in self._hooks:
            if default is _MISSING:
                raise KeyError(key)
            return default
        return self._check(self._hooks.pop(key), self, "[]")

    def __delitem__(self, key: Any) -> None:
        del self._hooks[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        raise PolicyError("hooks cannot be added to a hook dict directly: use the module's register_*_hook "
                          "methods")


__all__ = ["HOOK_DICT_METHODS", "HOOK_DICT_NAMES", "HookDict"]
