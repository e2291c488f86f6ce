"""torch.backends: which accelerator backends exist (none; the engine runs on the CPU)."""

from engine.backends import cudnn, mha, mps

__all__ = ["cudnn", "mha", "mps"]
