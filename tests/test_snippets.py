"""The seed-derived PyTorch snippets from shared/, run on the engine and compared with PyTorch's output."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SHARED

RUNNER = SHARED / "snippets" / "run_snippets.py"


def test_seed_snippets_match_pytorch_output() -> None:
    if not RUNNER.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{RUNNER} is missing: CI must have shared/ beside the checkout")
        pytest.skip("shared/ snippets are not beside this checkout")
    result = subprocess.run(
        [sys.executable, str(RUNNER), "--python-module", "engine", "--path", str(ROOT),
         "--python", sys.executable],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
