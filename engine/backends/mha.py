"""torch.backends.mha: whether the Transformer encoder's inference fast path may be taken."""

from __future__ import annotations

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled = [True]


def get_fastpath_enabled() -> bool:
    """Whether TransformerEncoder(Layer) may use its fused inference path."""
    return _is_fastpath_enabled[0]


def set_fastpath_enabled(value: bool) -> None:
    _is_fastpath_enabled[0] = bool(value)
