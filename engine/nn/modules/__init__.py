"""torch.nn.modules: the package torch's Module lives in (here: its module-global hook registration)."""

from engine.nn import Module
from engine.nn.modules import module

__all__ = ["Module", "module"]
