"""Server load on loopback: gradstep's /api/v1/trace against a FastAPI hello-world ceiling, one run.

Usage: python bench/server_load.py [--seconds 10]
Needs `wrk` (apt-get install wrk). Both servers run on this machine with the same uvicorn settings;
all traffic stays on 127.0.0.0/8 and every phase is bounded in time. Phases:
  1. ceiling: hello-world, 32 connections           -> requests/s
  2. the seed snippet, 1 connection                 -> p50 latency
  3. the seed snippet, 32 connections               -> requests/s (vs the ceiling), p99, errors
  4. benign client alone, then beside a flood of busy-loop snippets from another address
                                                     -> benign p99 with and without the flood
  5. one unchanged snippet, 32 connections          -> requests/s answered by the trace cache
In phases 2-4 each request's snippet ends with its own comment (`# run <phase> <n>`), so every one
is a new source text that runs in the sandbox; the trace cache only serves phase 5.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * x + torch.sin(x)\ny.backward()\n"
FLOOD = "while True:\n    pass\n"

HELLO_APP = """
from fastapi import FastAPI
app = FastAPI()

@app.get("/hello")
async def hello():
    return {"hello": "world"}
"""

WRK_SCRIPT = """
wrk.method = "{method}"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
template = {template}
counter = 0
if template then
  request = function()
    counter = counter + 1
    return wrk.format(nil, nil, nil, string.format(template, counter))
  end
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %f %f\\n", summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.duration, latency:percentile(50), latency:percentile(99)))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"server at {url} did not come up")


def unique_runs(code: str, phase: str) -> str:
    """A request body template for wrk: `code` plus a comment numbered per request (Lua's %d)."""
    return json.dumps({"code": code.replace("%", "%%") + f"# run {phase} %d\n"})


def wrk(url: str, connections: int, seconds: float, method: str = "GET", body: str = "",
        template: str = "") -> dict:
    """`template` (see unique_runs) makes each request's body new; else every request sends `body`."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(WRK_SCRIPT.format(method=method, body=json.dumps(body) if body else "nil",
                                  template=json.dumps(template) if template else "nil"))
    done = subprocess.run(["wrk", "-t", "1", "-c", str(connections), "-d", f"{int(seconds)}s", "--timeout", "10s",
                           "-s", f.name, url], capture_output=True, text=True, timeout=seconds + 30)
    os.unlink(f.name)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT")), None)
    if line is None:
        raise SystemExit(f"wrk failed on {url}: {done.stdout[-500:]} {done.stderr[-500:]}")
    requests, status_errors, socket_errors, duration_us, p50, p99 = line.split()[1:]
    return {"rps": int(requests) / (int(duration_us) / 1e6), "errors": int(status_errors) + int(socket_errors),
            "p50_ms": float(p50) / 1000, "p99_ms": float(p99) / 1000, "requests": int(requests)}


def benign_latencies(url: str, seconds: float, source: str, phase: str) -> list[float]:
    """One client bound to `source` (another loopback address) posting the seed snippet in a loop,
    each time with its own trailing comment (so each one runs)."""
    import http.client

    host, port = url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        body = json.dumps({"code": SEED + f"# run {phase} {len(latencies)}\n"})
        start = time.perf_counter()
        conn.request("POST", "/api/v1/trace", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"benign request failed: {response.status}")
        latencies.append((time.perf_counter() - start) * 1000)
    conn.close()
    return latencies


def cpu_seconds(pid: int) -> dict[str, float]:
    """CPU time so far of the server `pid` and of its sandbox (the warm parent, with the children it
    has reaped): {"server": s, "sandbox": s}, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")

    def stat(p: int | str) -> list[str]:  # the fields after the command name, from field 3 (state) on
        return Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()

    def times(p: int, with_children: bool) -> float:  # utime, stime (, cutime, cstime)
        return sum(int(x) for x in stat(p)[11:15 if with_children else 13]) / tick

    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(stat(entry.name)[1]) == pid:
                    children.append(int(entry.name))
            except (OSError, ValueError):
                continue
    return {"server": times(pid, False), "sandbox": sum(times(c, True) for c in children)}


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    secs = args.seconds
    gs_port, hello_port = free_port(), free_port()
    env = dict(os.environ, GRADSTEP_PORT=str(gs_port), GRADSTEP_HOST="127.0.0.1")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "hello_app.py").write_text(HELLO_APP)
        servers = [
            subprocess.Popen([sys.executable, "-m", "server", "serve"], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            subprocess.Popen([sys.executable, "-m", "uvicorn", "hello_app:app", "--host", "127.0.0.1",
                              "--port", str(hello_port), "--log-level", "warning"], cwd=tmp,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        ]
        try:
            gs, hello = f"http://127.0.0.1:{gs_port}", f"http://127.0.0.1:{hello_port}"
            wait_up(f"{gs}/api/v1/health")
            wait_up(f"{hello}/hello")
            trace = f"{gs}/api/v1/trace"
            wrk(trace, 4, 2, "POST", template=unique_runs(SEED, "warm-up"))
            ceiling = wrk(f"{hello}/hello", 32, secs)
            single = wrk(trace, 1, secs, "POST", template=unique_runs(SEED, "single"))
            before = cpu_seconds(servers[0].pid)
            loaded = wrk(trace, 32, secs, "POST", template=unique_runs(SEED, "loaded"))
            time.sleep(0.5)  # the last runs' children are reaped, their CPU time counted
            after = cpu_seconds(servers[0].pid)
            cached = wrk(trace, 32, secs, "POST", json.dumps({"code": SEED}))
            alone = benign_latencies(gs, secs, "127.0.0.2", "alone")
            flood_result: dict = {}
            flood = threading.Thread(target=lambda: flood_result.update(
                wrk(trace, 16, secs + 2, "POST", json.dumps({"code": FLOOD}))))
            flood.start()
            time.sleep(1)
            beside = benign_latencies(gs, secs, "127.0.0.2", "beside")
            flood.join()
        finally:
            for s in servers:
                s.terminate()
                try:
                    s.wait(timeout=5)
                except subprocess.TimeoutExpired:  # still draining the flood's queued runs
                    s.kill()
                    s.wait()
    ratio = loaded["rps"] / ceiling["rps"]
    import importlib.util

    # uvicorn's defaults (what both servers use) pick httptools and uvloop when they are installed.
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    rows = [
        ("uvicorn, both servers", f"1 process, http={http}, loop={loop}", ""),
        ("hello ceiling, 32 conn", f"{ceiling['rps']:.0f} req/s", ""),
        ("seed snippet, 1 conn: p50", f"{single['p50_ms']:.1f} ms", "target <= 15 ms"),
        ("seed snippet, 32 conn", f"{loaded['rps']:.0f} req/s = {ratio:.1%} of ceiling", "target >= 5%"),
        ("seed snippet, 32 conn: p99", f"{loaded['p99_ms']:.0f} ms", "target <= 250 ms"),
        ("seed snippet, 32 conn: errors", f"{loaded['errors']} of {loaded['requests']}", "target 0"),
        ("seed snippet, 32 conn: CPU per request", "{:.2f} ms (server {:.2f}, sandbox {:.2f})".format(
            *(1000 * x / loaded["requests"] for x in (sum(after.values()) - sum(before.values()),
                                                     after["server"] - before["server"],
                                                     after["sandbox"] - before["sandbox"]))),
         "steadier than req/s"),
        ("one unchanged snippet, 32 conn", f"{cached['rps']:.0f} req/s = {cached['rps'] / ceiling['rps']:.1%} "
         f"of ceiling", "(trace cache)"),
        ("benign p99 alone", f"{p99(alone):.1f} ms ({len(alone)} requests)", ""),
        ("benign p99 beside a busy-loop flood", f"{p99(beside):.1f} ms = {p99(beside) / p99(alone):.2f}x",
         "target <= 2x"),
        ("flood requests (16 conn)", f"{flood_result.get('requests', 0)}, "
         f"{flood_result.get('errors', 0)} refused (429)", ""),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<36} {target}")


if __name__ == "__main__":
    main()
