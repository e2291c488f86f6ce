"""torch.utils: checkpoint."""

from engine.utils import checkpoint

__all__ = ["checkpoint"]
