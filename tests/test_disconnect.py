"""A client that closes its connection while its run waits in the queue gives up its place in it."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    # Two workers and a queue of four: one client may run one snippet and keep two waiting.
    port = _free_port()
    env = dict(os.environ, GRADSTEP_PORT=str(port), GRADSTEP_HOST="127.0.0.1", GRADSTEP_WORKERS="2",
               GRADSTEP_QUEUE="4", GRADSTEP_TIMEOUT_S="2")
    proc = subprocess.Popen([sys.executable, "-m", "server", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/api/v1/health")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the server did not start")
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _send(port: int, code: str) -> socket.socket:
    body = json.dumps({"code": code}).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"POST /api/v1/trace HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    return sock


def test_runs_of_a_client_that_went_away_leave_the_queue(port: int) -> None:
    busy = _send(port, "while True:\n    pass\n")  # holds this client's one worker for 2 s
    time.sleep(0.3)
    abandoned = [_send(port, "x = 1\n") for _ in range(2)]  # fill this client's two waiting places
    time.sleep(0.3)
    for sock in abandoned:
        sock.close()
    time.sleep(0.3)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/api/v1/trace", json.dumps({"code": "print(6 * 7)\n"}),
                 {"Content-Type": "application/json"})
    response = conn.getresponse()
    body = response.read()
    busy.close()
    assert response.status == 200, body  # not 429: the abandoned runs no longer hold the places
    assert json.loads(body)["stdout"] == "42\n"
