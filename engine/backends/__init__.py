"""torch.backends: which accelerator backends exist (none; the engine runs on the CPU)."""

from engine.backends import mha, mps

__all__ = ["mha", "mps"]
