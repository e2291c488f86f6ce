"""torch.backends: which accelerator backends exist (none; the engine runs on the CPU)."""

from engine.backends import mps

__all__ = ["mps"]
