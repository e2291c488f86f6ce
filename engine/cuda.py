"""torch.cuda: the engine runs on the CPU only, so no GPU is ever available."""

from __future__ import annotations

__all__ = ["device_count", "is_available", "is_initialized", "manual_seed", "manual_seed_all"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds the (absent) GPU generators: nothing to do, as in PyTorch without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Seeds the (absent) GPU generators: nothing to do, as in PyTorch without CUDA."""
