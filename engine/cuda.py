"""torch.cuda: the engine runs on the CPU only, so no GPU is ever available."""

from __future__ import annotations

from typing import Any

__all__ = ["current_device", "device_count", "empty_cache", "get_arch_list", "get_device_capability",
           "get_device_name", "get_device_properties", "get_rng_state", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_initialized", "manual_seed", "manual_seed_all",
           "max_memory_allocated", "mem_get_info", "memory_allocated", "memory_reserved", "seed", "seed_all",
           "synchronize"]


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


def _not_compiled(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("Torch not compiled with CUDA enabled")


# queries of a GPU fail as in a CPU-only PyTorch build
current_device = get_device_name = get_device_properties = get_device_capability = _not_compiled
synchronize = init = initial_seed = get_rng_state = mem_get_info = _not_compiled


def empty_cache() -> None:
    """Frees the (absent) GPU cache: nothing to do."""


def seed() -> None:
    """Seeds the (absent) GPU generator: nothing to do."""


def seed_all() -> None:
    """Seeds the (absent) GPU generators: nothing to do."""


def memory_allocated(device: Any = None) -> int:
    return 0


def memory_reserved(device: Any = None) -> int:
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def get_arch_list() -> list:
    return []
