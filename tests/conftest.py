"""Shared fixtures: paths, the seed snippet and a trace helper."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

SEED_SNIPPET = """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x * x + torch.sin(x)
y.backward()
"""


@pytest.fixture
def seed_code() -> str:
    return SEED_SNIPPET
