"""Set up a checkout and start the app or run every test: `python3 -m server.bootstrap serve|test`.

Standard library only, so it runs on a bare machine with Python 3.11, Node 20 and npm. Each step is
skipped when its inputs have not changed since it last ran (hashes kept in .bootstrap-stamps/).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMPS = ROOT / ".bootstrap-stamps"
FRONTEND = ROOT / "frontend"
STATIC = ROOT / "server" / "static"
CHROMIUM = Path("/usr/bin/chromium")


def say(text: str) -> None:
    print(f"[bootstrap] {text}", flush=True)


def run(*cmd: str | Path, **kwargs: object) -> None:
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, **kwargs)  # type: ignore[call-overload]


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for base in paths:
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for f in files:
            if "node_modules" in f.parts:
                continue
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def fresh(step: str, key: str) -> bool:
    stamp = STAMPS / step
    return stamp.exists() and stamp.read_text() == key


def mark(step: str, key: str) -> None:
    STAMPS.mkdir(exist_ok=True)
    (STAMPS / step).write_text(key)


def python() -> Path:
    return VENV / "bin" / "python"


def ensure_python(extras: str) -> None:
    if not python().exists():
        say("creating the virtual environment .venv")
        run(sys.executable, "-m", "venv", VENV)
        run(python(), "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    key = digest(ROOT / "pyproject.toml", ROOT / "server" / "pkg")  # server/pkg: what the install copies
    # The [test] install holds everything the plain one does, so either satisfies `serve`.
    if fresh("python", key + extras) or (not extras and fresh("python", key + "[test]")):
        return
    key += extras
    say(f"installing gradstep{extras} into .venv")
    run(python(), "-m", "pip", "install", "--quiet", "-e", f".{extras}")
    mark("python", key)


def ensure_frontend() -> None:
    if shutil.which("npm") is None:
        sys.exit("[bootstrap] npm is needed to build the frontend (Node 20 with npm)")
    lock = digest(FRONTEND / "package-lock.json")
    if not (FRONTEND / "node_modules").is_dir() or not fresh("npm", lock):
        say("installing frontend packages (npm ci)")
        run("npm", "--prefix", FRONTEND, "ci", "--no-audit", "--no-fund")
        mark("npm", lock)
    sources = [FRONTEND / p for p in ("src", "index.html", "package-lock.json", "vite.config.ts",
                                       "tsconfig.json", "public") if (FRONTEND / p).exists()]
    key = digest(*sources)
    if (STATIC / "index.html").exists() and fresh("build", key):
        return
    say("building the frontend into server/static")
    run("npm", "--prefix", FRONTEND, "run", "build")
    mark("build", key)


def ensure_chromium() -> None:
    if CHROMIUM.exists():
        return
    if os.geteuid() != 0:
        sys.exit("[bootstrap] the browser tests need Debian's Chromium: sudo apt-get install -y chromium")
    say("installing Chromium for the browser tests (apt-get)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run("apt-get", "update", "-qq", env=env)
    run("apt-get", "install", "-y", "-qq", "chromium", env=env)


def serve(args: list[str]) -> int:
    ensure_python("")
    ensure_frontend()
    return subprocess.call([str(VENV / "bin" / "gradstep"), "serve", *args], cwd=ROOT)


def test(args: list[str]) -> int:
    ensure_python("[test]")
    ensure_frontend()
    ensure_chromium()
    say("frontend unit tests (vitest)")
    frontend = subprocess.call(["npm", "--prefix", str(FRONTEND), "test"], cwd=ROOT)
    say("python tests (pytest)")
    backend = subprocess.call([str(python()), "-m", "pytest", *args], cwd=ROOT)
    if frontend or backend:
        say(f"FAILED: vitest exit {frontend}, pytest exit {backend} (5 means no tests ran)")
        return 1
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"serve", "test"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    return serve(rest) if command == "serve" else test(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
