"""torch.utils: checkpoint and data."""

from engine.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
