"""Engine against PyTorch, NumPy by hand, HIPS autograd, mygrad and micrograd, side by side in one run.

Usage: python bench/engine_vs_peers.py [--quick] [harness options...]
Runs ../shared/bench/autograd_bench.py (the workloads W1-W5, paired per round, ratios reported) with
this checkout's engine as `project`, in a separate virtual environment holding the peers
(.venv-bench, created on first use). Tables land in bench/results/engine.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT.parent / "shared" / "bench" / "autograd_bench.py"
VENV = ROOT / ".venv-bench"
PEERS = ["torch==2.13.0", "numpy==2.4.6", "autograd", "mygrad", "micrograd"]


def main(argv: list[str]) -> int:
    if not HARNESS.exists():
        sys.exit(f"the shared harness is missing: {HARNESS}")
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *PEERS], check=True)
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    cmd = [str(python), str(HARNESS), "--project-path", str(ROOT), "--threads", "1",
           "--md", str(results / "engine.md"), "--json", str(results / "engine.json"), *argv]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
