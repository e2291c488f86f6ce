"""Vetted standard-library modules for snippets: copy, random, itertools, functools, time and typing.

Each is a Facade holding an explicit list of names (never the real module), built by the Policy:
- `copy.copy` / `copy.deepcopy` run the real copy protocol (so values equal plain Python's) with a private
  memo: a snippet cannot pass its own (after a deep copy the memo holds the originals' own `__dict__`s, where
  an `__array_interface__` key would let NumPy read any address). The memo is seeded with the Policy and the builtins,
  so a copied guard (the snippet's `type`, `isinstance`...) stays itself, and `print`'s collector copies as
  itself (a copy would count output apart from the run's). The protocol's own lookups
  (`__deepcopy__`, `__reduce_ex__`, `__setstate__`) reach only what classes define: snippets cannot define or
  set '_' names, and nn.Module never serves them from its registries. Grad_fn nodes refuse to be copied, as in
  PyTorch; a Facade copies like a module (TypeError); the result goes through the guards' value check.
- `random`: the functions of one `random.Random` per run (CPython's generator: seeded values equal plain
  Python's). What `choice`/`sample`/`choices` pick goes through the value check like `seq[i]`, and `shuffle`
  writes only where the snippet's own `seq[i] = v` may. No getstate/setstate, no Random/SystemRandom class.
- `itertools`: the module's iterator classes (they only iterate and call what the snippet passes, as
  map/filter do); `chain.from_iterable` is the one class attribute readable.
- `functools`: partial, reduce and cmp_to_key. Not wraps/update_wrapper (they copy and set any attribute
  names they are given), nor lru_cache/cache/cached_property/singledispatch/total_ordering (decorators,
  which the compiler refuses anyway). A partial's attributes (`func`, `args`) stay unreadable: the guards
  themselves hand out partials of internal callables (str.format, checked super().__init__).
- `time`: time and perf_counter.
- Reading the clock, or a `random` draw before `random.seed(x)` (the generator starts from the OS's
  entropy), is noted (clock_or_entropy_read): the same code may print something else the next time, so
  its trace is not cached. `typing`: names for annotations (no NamedTuple/TypedDict/NewType/TypeVar/
  Generic/Protocol, which make classes past the class-statement check).
"""

from __future__ import annotations

import copy
import functools
import itertools
import random
import time
import typing
from typing import Any, Callable

from .errors import PolicyError

MODULES = frozenset({"copy", "random", "itertools", "functools", "time", "typing"})
ITERTOOLS_NAMES = ("accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count",
                   "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations",
                   "product", "repeat", "starmap", "takewhile", "tee", "zip_longest")
FUNCTOOLS_NAMES = ("partial", "reduce", "cmp_to_key")
TIME_NAMES = ("time", "perf_counter")
TYPING_NAMES = ("Any", "Callable", "Dict", "Iterable", "Iterator", "List", "Mapping", "Optional", "Sequence",
                "Set", "Tuple", "Type", "Union", "TYPE_CHECKING")
# Random methods returning numbers (or bytes) only.
RANDOM_NUMBERS = ("seed", "random", "uniform", "randint", "randrange", "getrandbits", "gauss", "normalvariate",
                  "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
                  "paretovariate", "weibullvariate", "triangular")
# Class attributes a snippet may read on these stdlib classes (everything else on them is refused).
CLASS_ATTRS: dict[type, frozenset[str]] = {itertools.chain: frozenset({"from_iterable"})}
_read = {"clock_or_entropy": False}


def clock_or_entropy_read() -> bool:
    """Whether this process read the clock or drew from an unseeded `random` since
    forget_clock_or_entropy()."""
    return _read["clock_or_entropy"]


def forget_clock_or_entropy() -> None:
    _read["clock_or_entropy"] = False


def _noting(fn: Callable[..., Any], name: str, when: Callable[[], bool] = lambda: True) -> Callable[..., Any]:
    """`fn` as a snippet calls it: each call first notes the read when `when()` holds."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if when():
            _read["clock_or_entropy"] = True
        return fn(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _module_attrs(module: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {n: getattr(module, n) for n in names if hasattr(module, n)}


def itertools_attrs() -> dict[str, Any]:
    return _module_attrs(itertools, ITERTOOLS_NAMES)


def functools_attrs() -> dict[str, Any]:
    return _module_attrs(functools, FUNCTOOLS_NAMES)


def time_attrs() -> dict[str, Any]:
    return {n: _noting(fn, n) for n, fn in _module_attrs(time, TIME_NAMES).items()}


def typing_attrs() -> dict[str, Any]:
    return _module_attrs(typing, TYPING_NAMES)


def copy_attrs(check: Callable[[Any, Any, str], Any], as_is: list) -> dict[str, Any]:
    """`copy` and `deepcopy`; `check(value, owner, name)` is the guards' value check, `as_is` the objects
    copies keep as they are (the Policy and the snippet's builtins)."""

    def copy_(x: Any) -> Any:
        if any(x is obj for obj in as_is):
            return x
        return check(copy.copy(x), x, "copy")

    def deepcopy(x: Any, memo: Any = None) -> Any:
        if memo is not None:
            raise PolicyError("copy.deepcopy(x, memo) is not allowed: call copy.deepcopy(x)")
        private = {id(obj): obj for obj in as_is}
        return check(copy.deepcopy(x, private), x, "deepcopy")

    copy_.__name__ = copy_.__qualname__ = "copy"
    deepcopy.__qualname__ = "deepcopy"
    return {"copy": copy_, "deepcopy": deepcopy}


def random_attrs(check: Callable[[Any, Any, str], Any],
                 check_setitem: Callable[[Any, Any], None]) -> dict[str, Any]:
    """The functions of a fresh `random.Random` (one per run)."""
    gen = random.Random()
    unseeded = [True]  # seeded from the OS's entropy until the snippet calls seed(x)

    def seed(a: Any = None, version: int = 2) -> None:
        gen.seed(a, version)
        unseeded[0] = a is None

    def unpredictable() -> bool:
        return unseeded[0]

    attrs = {n: _noting(getattr(gen, n), n, unpredictable) for n in RANDOM_NUMBERS if n != "seed"}
    attrs["seed"] = seed

    def choice(seq: Any) -> Any:
        return check(gen.choice(seq), seq, "[]")

    def sample(population: Any, k: Any, *, counts: Any = None) -> list:
        return [check(v, population, "[]") for v in gen.sample(population, k, counts=counts)]

    def choices(population: Any, weights: Any = None, *, cum_weights: Any = None, k: Any = 1) -> list:
        return [check(v, population, "[]") for v in gen.choices(population, weights, cum_weights=cum_weights, k=k)]

    def shuffle(x: Any) -> None:
        if type(x) is not list:
            check_setitem(x, 0)
        gen.shuffle(x)

    for fn in (choice, sample, choices, shuffle):
        attrs[fn.__name__] = _noting(fn, fn.__name__, unpredictable)
    return attrs


__all__ = ["CLASS_ATTRS", "copy_attrs", "functools_attrs", "itertools_attrs", "random_attrs", "time_attrs",
           "typing_attrs"]
