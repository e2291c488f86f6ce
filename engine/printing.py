"""repr() and format() of tensors the way PyTorch prints them, with torch.set_printoptions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes, grad_mode


class PrintOptions:
    """torch's PRINT_OPTS: precision, summarising threshold, edge items, line width, sci mode."""

    def __init__(self) -> None:
        self.precision = 4
        self.threshold: float = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode: bool | None = None


OPTIONS = PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None, profile: str | None = None,
                     sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: a profile first, then each option given; sci_mode is always set."""
    if profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(OPTIONS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    return {"precision": OPTIONS.precision, "threshold": OPTIONS.threshold, "edgeitems": OPTIONS.edgeitems,
            "linewidth": OPTIONS.linewidth, "sci_mode": OPTIONS.sci_mode}


class _Formatter:
    """Chooses integer, fixed or scientific notation and a common width, as torch/_tensor_str.py."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return  # no finite nonzero value: no common width (0., nan, inf print as they are)
        absolute = np.abs(finite).astype(np.float64)
        lo, hi = float(absolute.min()), float(absolute.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if OPTIONS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = bool(OPTIONS.sci_mode)
        precision = OPTIONS.precision
        values_list = finite.astype(np.float64).tolist()
        if self.sci_mode:
            widths = [len(f"{v:.{precision}e}") for v in values_list]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in values_list]  # room for the trailing "."
        else:
            widths = [len(f"{v:.{precision}f}") for v in values_list]
        self.max_width = max([self.max_width, *widths])

    def format(self, v: Any) -> str:
        if self.floating:
            v = float(v)
            if self.sci_mode:
                text = f"{v:{self.max_width}.{OPTIONS.precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}"
                if math.isfinite(v):
                    text += "."
            else:
                text = f"{v:.{OPTIONS.precision}f}"
        else:
            text = str(v)
        return " " * (self.max_width - len(text)) + text


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items of every dimension, used to pick the number format of a long tensor."""
    edge = OPTIONS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            # values[-0:] is everything, so with edgeitems=0 torch formats the whole row
            return np.concatenate([values[:edge], values[-edge:]])
        return values
    if not edge:
        return np.empty((0,) * values.ndim, values.dtype)
    if values.shape[0] > 2 * edge:
        values = np.concatenate([values[:edge], values[-edge:]])
    return np.stack([_summarized(v) for v in values])


class _ComplexFormatter:
    """torch's pair of formatters for a complex tensor: one for the real parts, one for the
    imaginary parts (followed by "j", its sign always shown)."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)
        self.max_width = self.real.max_width + self.imag.max_width + 1  # the element width torch lays out

    def format(self, v: Any) -> str:
        v = complex(v)
        real = self.real.format(v.real)
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _body(values: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, fmt, indent, summarize)
    n, edge = values.shape[0], OPTIONS.edgeitems
    if summarize and n > 2 * edge:
        rows = [_body(values[i], fmt, indent + 1, summarize) for i in range(edge)]
        rows += ["..."]
        rows += [_body(values[i], fmt, indent + 1, summarize) for i in range(n - edge, n)]
    else:
        rows = [_body(values[i], fmt, indent + 1, summarize) for i in range(n)]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _vector(values: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / element_length)))
    n, edge = values.shape[0], OPTIONS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and n > 2 * edge:
        items = [fmt.format(v) for v in values[:edge].tolist()] + [" ..."]
        items += [fmt.format(v) for v in values[-edge:].tolist()]
    else:
        items = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(items[i: i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def tensor_repr(t: Any, prefix: str = "tensor(") -> str:
    """torch/_tensor_str.py's _str_intern for a dense CPU tensor."""
    values = t._data
    indent = len(prefix)
    suffixes = []
    dtype = dtypes.from_numpy(values.dtype)
    if t.is_meta:  # no data: "..." with the device, size and (other than the default float) dtype
        suffixes.append("device='meta'")
        suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.default_float:
            suffixes.append(f"dtype={dtype!r}")
        body = "..."
    elif values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.default_float:  # nothing printed shows the dtype, so always name it
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype not in (dtypes.default_float, dtypes.default_complex(), dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dtype!r}")
        summarize = values.size > OPTIONS.threshold
        shown = _summarized(values) if summarize else values
        fmt = _ComplexFormatter(shown) if values.dtype.kind == "c" else _Formatter(shown)
        body = _body(values, fmt, indent, summarize)
    if t.grad_fn is not None:
        name = type(t.grad_fn).__name__
        if name == "CppFunction":
            name = t.grad_fn.name().rsplit("::", 1)[-1]
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    if grad_mode.state.dual:
        from engine.autograd.forward_ad import tangent_of

        tangent = tangent_of(t)
        if tangent is not None:
            suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_format(t: Any, spec: str) -> str:
    """Tensor.__format__: a plain 0-d tensor formats as its Python number, anything else as object does."""
    from engine.tensor import Tensor

    if type(t) is Tensor and t._data.ndim == 0:
        return format(t._data.item(), spec)
    if spec:
        raise TypeError(f"unsupported format string passed to {type(t).__name__}.__format__")
    return str(t)
