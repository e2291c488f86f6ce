"""The installed package: the environment it is installed into works however its interpreter is started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_venv_python_started_through_a_relative_path_reports_an_absolute_executable() -> None:
    # `PATH=.venv/bin:$PATH python tool.py`: a tool that starts sys.executable from another working
    # directory (the seed-snippet runner does) must still find the interpreter.
    relative_bin = os.path.relpath(Path(sys.prefix) / "bin", ROOT)
    env = {**os.environ, "PATH": relative_bin + os.pathsep + os.environ.get("PATH", "")}
    out = subprocess.run(["python", "-c", "import sys; print(sys.executable)"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.isabs(out), out
    assert Path(out).resolve() == Path(sys.executable).resolve()
