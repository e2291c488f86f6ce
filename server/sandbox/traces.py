"""Well-formed traces for runs that did not produce their own (timeouts, kills, crashes, oversize)."""

from __future__ import annotations

import json
import math

import orjson
from typing import Any

from server.limits import TRACE_VERSION


def status_trace(code: str, status: str, message: str, error_type: str = "LimitExceeded",
                 stdout: str = "", line: int | None = None) -> dict:
    return {
        "version": TRACE_VERSION,
        "status": status,
        "code": code,
        "stdout": stdout,
        "error": {"type": error_type, "message": message, "line": line, "col": None,
                  "end_line": None, "end_col": None},
        "tensors": [],
        "nodes": [],
        "edges": [],
        "events": [],
        "notes": [],
    }


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _plain(obj: Any) -> Any:
    """json's fallback for NumPy values (see server.encode): float32 numbers in their shortest form."""
    if hasattr(obj, "tolist"):
        if getattr(obj, "ndim", 0):
            return [_plain(v) for v in obj]
        return float(str(obj)) if obj.dtype.kind == "f" else obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def encode(trace: dict) -> bytes:
    """Compact UTF-8 JSON; non-finite floats become the schema's strings, lone surrogates escaped."""
    try:
        # Every float in a trace went through server.encode, which spells NaN and infinity as
        # strings, so orjson never meets one (it would write null).
        return orjson.dumps(trace, option=orjson.OPT_SERIALIZE_NUMPY)
    except (orjson.JSONEncodeError, TypeError):  # lone surrogates and the like: the careful path
        pass
    dump = {"separators": (",", ":"), "ensure_ascii": False, "allow_nan": False, "default": _plain}
    try:
        text = json.dumps(trace, **dump)
    except ValueError:
        text = json.dumps(_finite(trace), **dump)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=True).encode("ascii")


def plain(trace: dict) -> dict:
    """A trace with plain JSON types (a recorder's has NumPy float32 values): what encoding and parsing it gives."""
    payload = encode(trace)
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:  # escaped lone surrogates, which orjson refuses
        return json.loads(payload)


def encode_status(code: str, status: str, message: str, error_type: str = "LimitExceeded",
                  stdout: str = "") -> bytes:
    try:
        return encode(status_trace(code, status, message, error_type, stdout))
    except Exception:  # pragma: no cover - code with unencodable content
        return encode(status_trace("", status, message, error_type))


def fmt_seconds(t: float) -> str:
    return f"{t:g} s"
