"""CPU per sandboxed run of two source trees, measured side by side with their requests interleaved.

Usage: python bench/sandbox_cpu_ab.py OLD_TREE NEW_TREE [--requests 900] [--clients 3]
(e.g. OLD_TREE from `git worktree add /tmp/old HEAD~3`, with the built frontend copied into its
server/static). Both servers run at once, trace cache off; each client sends a new seed-snippet
source text to one tree and then the other, in random order, so the shared machine's swings fall on
both alike. CPU is read from /proc: the server, its warm parent and the children it reaped.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time

from server_load import SEED, cpu_seconds  # cpu_seconds: the server's CPU and its sandbox's, from /proc


def post(port: int, code: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/api/v1/trace", json.dumps({"code": code}), {"Content-Type": "application/json"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200 or json.loads(body)["status"] != "ok":
        raise SystemExit(f"port {port}: {response.status} {body[:300]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs=2)
    parser.add_argument("--requests", type=int, default=900, help="per tree")
    parser.add_argument("--clients", type=int, default=3)
    args = parser.parse_args()
    ports = [8811, 8812]
    servers = [subprocess.Popen([sys.executable, "-m", "server", "serve"], cwd=tree,
                                env=dict(os.environ, GRADSTEP_PORT=str(port), GRADSTEP_HOST="127.0.0.1",
                                         GRADSTEP_CACHE_MB="0"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for tree, port in zip(args.trees, ports)]
    try:
        for port in ports:
            deadline = time.monotonic() + 90
            while True:
                try:
                    post(port, "print(1)")
                    break
                except (OSError, http.client.HTTPException):
                    if time.monotonic() > deadline:
                        raise SystemExit(f"the server on port {port} did not come up")
                    time.sleep(0.3)
            for k in range(30):
                post(port, SEED + f"# warm-up {k}\n")
        before = [sum(cpu_seconds(s.pid).values()) for s in servers]
        per_client = args.requests // args.clients

        def client(c: int) -> None:
            for k in range(per_client):
                order = [0, 1]
                random.shuffle(order)
                for i in order:
                    post(ports[i], SEED + f"# {c} {k} {random.random()}\n")

        threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        after = [sum(cpu_seconds(s.pid).values()) for s in servers]
        n = per_client * args.clients
        per_run = [(b - a) * 1000 / n for a, b in zip(before, after)]
        for tree, ms in zip(args.trees, per_run):
            print(f"{tree}: {ms:.2f} ms CPU per sandboxed run ({n} runs)")
        print(f"ratio new/old: {per_run[1] / per_run[0]:.3f}")
    finally:
        for s in servers:
            s.terminate()
            s.wait(timeout=30)


if __name__ == "__main__":
    main()
