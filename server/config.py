"""Server settings: one object, each field overridable by a GRADSTEP_* environment variable."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

from server.limits import Limits


def _env(name: str, default: object) -> object:
    raw = os.environ.get(f"GRADSTEP_{name.upper()}")
    if raw is None:
        return default
    if isinstance(default, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    return raw


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 4
    queue: int = 64
    cache_mb: int = 64  # finished traces kept by source text (0: every request runs)
    timeout_s: float = 5.0
    memory_mb: int = 512
    sandbox: bool = True
    max_nodes: int = 5000
    max_elements: int = 4_000_000
    max_stdout: int = 65536
    max_source_bytes: int = 65536
    max_body_bytes: int = 1_048_576
    frame_ancestors: str = "*"
    static_dir: str = field(default_factory=lambda: os.path.join(os.path.dirname(__file__), "static"))

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        values = {f.name: _env(f.name, getattr(cls(), f.name)) for f in fields(cls)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def limits(self) -> Limits:
        return Limits(max_nodes=self.max_nodes, max_elements=self.max_elements,
                      max_stdout=self.max_stdout, max_source_bytes=self.max_source_bytes)
