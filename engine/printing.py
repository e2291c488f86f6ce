"""repr() of tensors the way PyTorch prints them (precision 4, sci mode, wrapping, summarizing)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses integer, fixed or scientific notation and a common width, as torch/_tensor_str.py."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat:
                self.max_width = max(self.max_width, len(_plain(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return  # like torch: no finite nonzero value, so no common width (0., nan, inf as is)
        absolute = np.abs(finite)
        lo, hi = float(absolute.min()), float(absolute.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                widths = [len(f"{v:.{PRECISION}e}") for v in finite]
            else:
                widths = [len(f"{v:.0f}") + 1 for v in finite]
        else:
            if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
                widths = [len(f"{v:.{PRECISION}e}") for v in finite]
            else:
                widths = [len(f"{v:.{PRECISION}f}") for v in finite]
        # Only finite nonzero values set the width, as in torch/_tensor_str.py (nan/inf may overflow).
        self.max_width = max([self.max_width, *widths])

    def _fixed_int(self, v: Any) -> str:
        v = float(v)
        return _special(v) if not math.isfinite(v) else f"{v:.0f}."

    def format(self, v: Any) -> str:
        if self.floating:
            v = float(v)
            if not math.isfinite(v):
                text = _special(v)
            elif self.sci_mode:
                text = f"{v:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{PRECISION}f}"
        else:
            text = _plain(v)
        return " " * (self.max_width - len(text)) + text


def _special(v: float) -> str:
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def _plain(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    return str(int(v)) if isinstance(v, (np.integer, int)) else str(v)


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items of every dimension, used to pick the number format of a long tensor."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        values = np.concatenate([values[:EDGEITEMS], values[-EDGEITEMS:]])
    return np.stack([_summarized(v) for v in values]) if values.ndim > 1 else values


def _body(values: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, fmt, indent, summarize)
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_body(values[i], fmt, indent + 1, summarize) for i in range(EDGEITEMS)]
        rows += ["..."]
        rows += [_body(values[i], fmt, indent + 1, summarize) for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_body(values[i], fmt, indent + 1, summarize) for i in range(n)]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _vector(values: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in values[:EDGEITEMS]] + [" ..."] + [
            fmt.format(v) for v in values[-EDGEITEMS:]
        ]
    else:
        items = [fmt.format(v) for v in values]
    lines = [", ".join(items[i: i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _default_dtype(t: Any) -> bool:
    kind = t._data.dtype
    return kind == np.float32 or kind == np.int64 or kind == np.bool_


def tensor_repr(t: Any, prefix: str = "tensor(") -> str:
    values = t._data
    indent = len(prefix)
    suffixes = []
    summarize = values.size > THRESHOLD
    if values.size == 0 and values.ndim != 1:
        body = "[]"
        suffixes.append(f"size={tuple(values.shape)}")
    elif values.size == 0:
        body = "[]"
    else:
        fmt = _Formatter(_summarized(values) if summarize else values)
        body = _body(values, fmt, indent, summarize)
    if not _default_dtype(t):
        suffixes.append(f"dtype=torch.{t.dtype.name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
