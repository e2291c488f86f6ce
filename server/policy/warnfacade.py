"""A tiny `warnings` module for snippets: warn, catch_warnings (record=True), simplefilter, filterwarnings.

It drives Python's real warnings machinery, so warnings raised inside the engine (anomaly mode,
create_graph, ...) are recorded and filtered exactly like PyTorch's. What a snippet gets back is never
a real `warnings.WarningMessage` or a real `catch_warnings`: recorded warnings become `WarningMessage`
records holding only `message` (a fresh Warning of a built-in category), `category` (a built-in
Warning class), `filename`/`lineno` (the snippet's own, or "<torch>"/0 for warnings raised inside
the engine), `line` and `source` (None). Tracebacks inside messages (anomaly mode's forward stack)
keep only the snippet's own frames, like PyTorch run on a script would show.

The "error" action is emulated: the real filter says "always" and the hook that receives the shown
warning raises a fresh, path-free Warning instead, so the exception a snippet catches carries no
engine internals either. All state lives in the real `warnings` module and dies with the run's
process; the tracer's own `catch_warnings()` restores it for in-process runs.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from .errors import PolicyError

SNIPPET_FILENAMES = frozenset({"<snippet>"})
ENGINE_FILENAME = "<torch>"
ACTIONS = frozenset({"default", "error", "ignore", "always", "all", "module", "once"})

_FRAME_LINE = re.compile(r'^  File "(?P<file>[^"\n]*)", line \d+, in [^\n]*$')

# Real filter entries (tuples, as stored in warnings.filters) that stand for "error".
_error_filters: set = set()


def _builtin_category(category: Any) -> type:
    """The nearest built-in Warning class (never a class from NumPy or the engine)."""
    if isinstance(category, type) and issubclass(category, Warning):
        for cls in category.__mro__:
            if getattr(cls, "__module__", None) == "builtins" and issubclass(cls, Warning):
                return cls
    return UserWarning


def clean_text(text: str) -> str:
    """Drop traceback frames that are not the snippet's (and their source lines) from `text`."""
    if "File \"" not in text:
        return text
    out: list[str] = []
    skip_source = False
    for line in text.split("\n"):
        m = _FRAME_LINE.match(line)
        if m is not None:
            skip_source = m.group("file") not in SNIPPET_FILENAMES
            if not skip_source:
                out.append(line)
            continue
        if skip_source and line.startswith("    "):
            continue
        skip_source = False
        out.append(line)
    return "\n".join(out)


def _clean_args(args: tuple) -> tuple:
    return tuple(clean_text(a) if type(a) is str else a for a in args)


def _fresh_warning(message: Any, category: Any) -> Warning:
    cls = _builtin_category(category)
    args = message.args if isinstance(message, BaseException) else (str(message),)
    return cls(*_clean_args(tuple(args)))


class WarningMessage:
    """A recorded warning as a snippet sees it (see the module docstring)."""

    __slots__ = ("message", "category", "filename", "lineno", "line", "source")

    def __init__(self, real: Any) -> None:
        own = getattr(real, "filename", None) in SNIPPET_FILENAMES
        object.__setattr__(self, "message", _fresh_warning(real.message, real.category))
        object.__setattr__(self, "category", _builtin_category(real.category))
        object.__setattr__(self, "filename", real.filename if own else ENGINE_FILENAME)
        object.__setattr__(self, "lineno", int(real.lineno) if own and isinstance(real.lineno, int) else 0)
        object.__setattr__(self, "line", None)
        object.__setattr__(self, "source", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("recorded warnings are read-only")

    def __str__(self) -> str:
        return (f"{{message : {self.message!r}, category : {self.category.__name__!r}, "
                f"filename : {self.filename!r}, lineno : {self.lineno}, line : {self.line!r}}}")

    __repr__ = __str__


WARNING_MESSAGE_ATTRS = frozenset(WarningMessage.__slots__)


def _matching_action(real: Any) -> str | None:
    """The action of the first real filter matching a shown warning (mirrors warn_explicit)."""
    text = str(real.message)
    filename = real.filename or "<unknown>"
    module = "__main__" if filename in SNIPPET_FILENAMES else (filename[:-3] if filename.endswith(".py") else filename)
    for item in warnings.filters:
        action, msg, cat, mod, ln = item
        if ((msg is None or msg.match(text)) and issubclass(real.category, cat)
                and (mod is None or mod.match(module)) and (ln == 0 or real.lineno == ln)):
            return "error" if item in _error_filters else action
    return None


class _Show:
    """Replaces warnings._showwarnmsg_impl while a snippet runs: record, raise ("error") or drop."""

    def __init__(self, log: list | None) -> None:
        self.log = log

    def __call__(self, real: Any) -> None:
        if _error_filters and _matching_action(real) == "error":
            raise _fresh_warning(real.message, real.category)
        if self.log is not None:
            self.log.append(WarningMessage(real))
        # Not recording: PyTorch would print to stderr, which a trace does not show.


def _install(log: list | None) -> None:
    warnings._showwarnmsg_impl = _Show(log)  # type: ignore[attr-defined]
    warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]


def _check_category(category: Any) -> type:
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'")
    return category


def _check_action(action: Any) -> str:
    if type(action) is not str or action not in ACTIONS:
        raise ValueError(f"invalid action: {action!r}")
    return "always" if action == "all" else action


def _check_lineno(lineno: Any) -> int:
    if type(lineno) is not int or lineno < 0:
        raise ValueError("lineno must be an int >= 0")
    return lineno


def _add(action: str, message: str, category: type, module: str, lineno: int, append: bool) -> None:
    real_action = "always" if action == "error" else action
    warnings.filterwarnings(real_action, message, category, module, lineno, append)
    # The tuple warnings.filterwarnings stores (compiled patterns compare equal by pattern and flags).
    item = (real_action, re.compile(message, re.I) if message else None, category,
            re.compile(module) if module else None, lineno)
    if action == "error":
        _install_if_needed()
        _error_filters.add(item)
    else:
        _error_filters.discard(item)


def _install_if_needed() -> None:
    if not isinstance(getattr(warnings, "_showwarnmsg_impl", None), _Show):
        _install(None)


def warn(message: Any, category: Any = None, stacklevel: Any = 1, source: Any = None) -> None:
    """warnings.warn for snippets (no `source`, no `skip_file_prefixes`)."""
    if source is not None:
        raise PolicyError("warnings.warn(source=...) is not allowed")
    if category is not None:
        _check_category(category)
    if type(stacklevel) is not int:
        raise TypeError("stacklevel must be an int")
    if isinstance(message, Warning):
        message = _builtin_category(type(message))(*message.args)
    elif isinstance(message, BaseException):
        raise TypeError("message must be a string or a Warning")
    _install_if_needed()
    warnings.warn(message, category, max(1, stacklevel) + 1)


def simplefilter(action: Any, category: Any = Warning, lineno: Any = 0, append: Any = False) -> None:
    _add(_check_action(action), "", _check_category(category), "", _check_lineno(lineno), bool(append))


def filterwarnings(action: Any, message: Any = "", category: Any = Warning, module: Any = "",
                   lineno: Any = 0, append: Any = False) -> None:
    if type(message) is not str or type(module) is not str:
        raise TypeError("message and module must be strings")
    if len(message) > 200 or len(module) > 200:
        raise ValueError("message and module patterns are limited to 200 characters")
    _add(_check_action(action), message, _check_category(category), module, _check_lineno(lineno),
         bool(append))


def resetwarnings() -> None:
    warnings.resetwarnings()
    _error_filters.clear()


class catch_warnings:  # noqa: N801 - the name PyTorch code uses
    """`with warnings.catch_warnings(record=True) as caught:`; a list of WarningMessage records."""

    __slots__ = ("_record", "_real", "_saved_errors", "_pending")

    def __init__(self, *, record: Any = False, action: Any = None, category: Any = Warning,
                 lineno: Any = 0, append: Any = False) -> None:
        pending = None
        if action is not None:
            pending = (_check_action(action), _check_category(category), _check_lineno(lineno), bool(append))
        object.__setattr__(self, "_record", bool(record))
        object.__setattr__(self, "_real", warnings.catch_warnings())
        object.__setattr__(self, "_saved_errors", None)
        object.__setattr__(self, "_pending", pending)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("catch_warnings objects are read-only")

    def __enter__(self) -> list | None:
        if self._saved_errors is not None:
            raise RuntimeError(f"Cannot enter {self!r} twice")
        object.__setattr__(self, "_saved_errors", set(_error_filters))
        self._real.__enter__()
        log: list | None = [] if self._record else None
        _install(log)
        if self._pending is not None:
            simplefilter(*self._pending)
        return log

    def __exit__(self, *exc: Any) -> None:
        if self._saved_errors is None:
            raise RuntimeError(f"Cannot exit {self!r} without entering first")
        self._real.__exit__(*exc)
        _error_filters.clear()
        _error_filters.update(self._saved_errors)
        object.__setattr__(self, "_saved_errors", None)

    def __repr__(self) -> str:
        return "catch_warnings(record=True)" if self._record else "catch_warnings()"


# Python's own start-up filters (3.11, no -W options): what a PyTorch script runs with.
_PYTHON_DEFAULT_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


def start_run() -> None:
    """On a snippet's first `import warnings`: Python's default filters instead of the tracer's blanket
    "ignore", and shown warnings go to the hook (recorded, raised for "error", or dropped) rather
    than to stderr."""
    warnings.resetwarnings()
    for action, category, module in reversed(_PYTHON_DEFAULT_FILTERS):
        warnings.filterwarnings(action, "", category, module)
    _error_filters.clear()
    _install(None)


def facade_attrs() -> dict[str, Any]:
    """The names `import warnings` gives a snippet."""
    return {
        "warn": warn,
        "simplefilter": simplefilter,
        "filterwarnings": filterwarnings,
        "resetwarnings": resetwarnings,
        "catch_warnings": catch_warnings,
    }


__all__ = ["WARNING_MESSAGE_ATTRS", "WarningMessage", "catch_warnings", "clean_text", "facade_attrs", "start_run"]
