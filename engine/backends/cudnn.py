"""torch.backends.cudnn: never available here; its flags can be set (seeding code does) and do nothing."""

from __future__ import annotations

__all__ = ["is_available", "version", "enabled", "deterministic", "benchmark", "allow_tf32"]

enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
