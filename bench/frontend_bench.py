"""Frontend benchmark (not a test): the real app in Debian's Chromium against a real server it starts.

    npm --prefix frontend run build
    .venv/bin/python bench/frontend_bench.py [--reps 9] [--steps 80]

Measures run-to-graph for the seed snippet (server round trip included), a 300-node graph laid out
and drawn, main-thread work per step at 300 nodes, and the shipped JS+CSS gzipped (the Graphviz
WebAssembly bundle apart). Prints a table with the targets of issue 6.
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "server" / "static"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

SEED = """import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x + torch.sin(x)
y.backward()
print(x.grad)
"""

# 150 iterations of one multiply and one add: 300 grad_fn nodes (plus AccumulateGrad and 151 tensors named y).
CHAIN = """import torch

x = torch.tensor(0.5, requires_grad=True)
y = x
for i in range(150):
    y = y * 0.99 + 0.01
y.backward()
"""

# Clicks a button and resolves once the graph was redrawn and two frames have been painted.
CLICK_UNTIL_DRAWN = """async (testid) => {
  const g = document.querySelector('[data-testid=graph]');
  const before = g.dataset.drawn;
  const t0 = performance.now();
  document.querySelector(`[data-testid=${testid}]`).click();
  await new Promise((resolve) => {
    const obs = new MutationObserver(() => { if (g.dataset.drawn !== before) { obs.disconnect(); resolve(); } });
    obs.observe(g, { attributes: true });
  });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}"""

# One step per key press: the handler's JavaScript plus the style and layout it causes (paint apart).
STEP_TIMES = """async (steps) => {
  const times = [];
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    document.body.getBoundingClientRect();
    void document.querySelector('[data-testid=graph] svg').getBoundingClientRect();
    times.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  return times;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, GRADSTEP_PORT=str(port), GRADSTEP_HOST="127.0.0.1")
    proc = subprocess.Popen([sys.executable, "-m", "server", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/health", timeout=1):
                return proc, url
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.2)
    proc.kill()
    sys.exit("the server did not start (try GRADSTEP_SANDBOX=0 while the sandbox is being wired)")


def note(text: str) -> None:
    print(f"... {text}", file=sys.stderr, flush=True)


def set_code(page: Any, code: str) -> None:
    page.locator("[data-testid=editor] .cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.get_by_test_id("narration").click()


def shipped_sizes() -> tuple[int, int]:
    """(gzipped JS+CSS+HTML the app loads, gzipped Graphviz WebAssembly bundles)."""
    app = wasm = 0
    for path in [STATIC / "index.html", *sorted((STATIC / "assets").glob("*"))]:
        if path.suffix not in (".js", ".css", ".html"):
            continue
        size = len(gzip.compress(path.read_bytes(), compresslevel=9))
        if path.name.startswith(("viz-", "layout.worker-")):
            wasm += size
        else:
            app += size
    return app, wasm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--steps", type=int, default=80)
    args = parser.parse_args()
    if not (STATIC / "index.html").exists():
        sys.exit("build the frontend first: npm --prefix frontend run build")

    from playwright.sync_api import sync_playwright

    proc, url = start_server()
    rows: list[tuple[str, str, str, bool]] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url)
            page.wait_for_load_state("networkidle")

            page.set_default_timeout(60000)
            note("seed snippet")
            set_code(page, SEED)
            page.evaluate(CLICK_UNTIL_DRAWN, "run")  # warm-up: worker and WebAssembly start
            seed = [page.evaluate(CLICK_UNTIL_DRAWN, "run") for _ in range(args.reps)]
            seed_ms = statistics.median(seed)
            rows.append(("run-to-graph, seed snippet (median)", f"{seed_ms:.0f} ms", "<= 300 ms", seed_ms <= 300))

            note("300-node chain")
            set_code(page, CHAIN)
            collapsed = [page.evaluate(CLICK_UNTIL_DRAWN, "run") for _ in range(3)]
            nodes = page.evaluate("document.querySelectorAll('[data-testid=graph] g.node').length")
            rows.append((f"run-to-graph, 300-node chain collapsed ({nodes} boxes)", f"{statistics.median(collapsed):.0f} ms", "(info)", True))

            big = []
            for _ in range(3):
                page.evaluate(CLICK_UNTIL_DRAWN, "run")
                big.append(page.evaluate(CLICK_UNTIL_DRAWN, "expand-all"))
            nodes = page.evaluate("document.querySelectorAll('[data-testid=graph] g.node').length")
            grad_fns = page.evaluate("document.querySelectorAll('[data-testid=graph] g.gs-node').length")
            big_ms = statistics.median(big)
            rows.append((f"300-node graph laid out and drawn ({grad_fns} grad_fn, {nodes} boxes)", f"{big_ms:.0f} ms", "<= 1.5 s", big_ms <= 1500))

            note("stepping")
            page.get_by_test_id("narration").click()
            page.keyboard.press("Home")
            page.evaluate("""() => { window.__long = []; new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: false }); }""")
            performance_before = page.evaluate("performance.getEntriesByName('gs-step').length")
            steps = page.evaluate(STEP_TIMES, args.steps)
            js = page.evaluate(f"performance.getEntriesByName('gs-step').slice({performance_before}).map((e) => e.duration)")
            long_tasks = page.evaluate("window.__long")
            steps.sort()
            p50, p95, worst = statistics.median(steps), steps[int(0.95 * (len(steps) - 1))], steps[-1]
            rows.append((f"main thread per step at 300 nodes, median of {len(steps)}", f"{p50:.1f} ms", "<= 16 ms", p50 <= 16))
            rows.append(("  ... 95th percentile / worst", f"{p95:.1f} / {worst:.1f} ms", "<= 16 ms", p95 <= 16))
            rows.append(("  ... of which JavaScript (gs-step measure), median", f"{statistics.median(js):.1f} ms", "(info)", True))
            rows.append(("  ... long tasks (> 50 ms) while stepping", str(len(long_tasks)), "0", len(long_tasks) == 0))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    app, wasm = shipped_sizes()
    rows.append(("shipped JS + CSS + HTML, gzipped", f"{app / 1024:.0f} KB", "<= 400 KB", app <= 400 * 1024))
    rows.append(("Graphviz WebAssembly bundles, gzipped (apart)", f"{wasm / 1024:.0f} KB", "(info)", True))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'result':>14}  {'target':>10}")
    for name, value, target, ok in rows:
        print(f"{name:<{width}}  {value:>14}  {target:>10}  {'ok' if ok else 'OVER'}")


if __name__ == "__main__":
    main()
