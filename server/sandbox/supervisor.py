"""The process layer of the gradstep sandbox: the server side (imported as `server.sandbox`).

    sandbox = Sandbox(workers=2, queue=8, timeout_s=5, memory_mb=512)
    sandbox.start()
    body: bytes = sandbox.run(code)             # thread-safe, blocking
    body: bytes = await sandbox.run_async(code)  # asyncio
    sandbox.close()

`run`/`run_async` always return a well-formed trace (UTF-8 JSON bytes) for anything the code can
cause: timeouts, memory, crashes, oversized output, a dead worker. They raise `SandboxBusy` (with
`retry_after` seconds) when `workers` runs are in flight and `queue` more are waiting.

One warm zygote process (server/sandbox/zygote.py, a fresh interpreter with a clean environment,
never a fork of the server) imports numpy, the engine and the tracer once and forks a confined child
per run. A supervisor thread reads results, enforces a backstop deadline, and restarts the zygote
transparently if it dies.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import itertools
import json
import logging
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any

import orjson

from server.trace_cache import Checked, repeatable

from . import traces

log = logging.getLogger("gradstep.sandbox")

REQ_HEADER = struct.Struct(">I")
REQ_FIELDS = struct.Struct(">Qd")  # id, timeout_s; then the code (see zygote.py)
RESP_HEADER = struct.Struct(">IQ")
TRACE_STATUSES = frozenset(("ok", "error", "limit", "timeout"))
MAX_SOURCE_BYTES = 64 * 1024
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def checked_trace(payload: bytes) -> Checked | None:
    """What a child sent, if it is a JSON object with a trace status (a child runs hostile code:
    check), marked with whether the same code would give it again; None if it is not."""
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        try:  # the careful path: escaped lone surrogates, which orjson refuses (see traces.encode)
            obj = json.loads(payload)
        except Exception:  # noqa: BLE001 - invalid, or nested deep enough to raise RecursionError
            return None
    if not isinstance(obj, dict) or obj.get("status") not in TRACE_STATUSES:
        return None
    checked = Checked(payload)
    checked.repeatable = repeatable(obj)
    return checked


class SandboxBusy(Exception):
    """Every worker is busy and the waiting queue is full; retry after `retry_after` seconds."""

    def __init__(self, retry_after: float = 1.0) -> None:
        self.retry_after = retry_after
        super().__init__(f"the sandbox is busy; retry after {retry_after:g} s")


class _Pending:
    __slots__ = ("id", "code", "timeout_s", "future", "deadline")

    def __init__(self, rid: int, code: str, timeout_s: float) -> None:
        self.id = rid
        self.code = code
        self.timeout_s = timeout_s
        self.future: concurrent.futures.Future[bytes] = concurrent.futures.Future()
        self.deadline = 0.0


class Sandbox:
    def __init__(
        self,
        *,
        workers: int = 2,
        queue: int | None = None,
        timeout_s: float = 5.0,
        memory_mb: int = 512,
        max_trace_bytes: int | None = None,
        max_source_bytes: int = MAX_SOURCE_BYTES,
        nofile: int = 32,
        recursion_limit: int = 1000,
        kill_grace_s: float = 0.5,
        run_as: str | None = "nobody",
        tracer: str | None = None,
        seccomp: bool = True,
        landlock: bool = True,
        extra_read_paths: tuple[str, ...] = (),
        python: str | None = None,
        start_timeout_s: float = 60.0,
        limits: Any = None,
        max_timeout_s: float | None = None,
        spares: int | None = None,
    ) -> None:
        if limits is not None and not isinstance(limits, dict):
            import dataclasses

            limits = dataclasses.asdict(limits)  # e.g. server.limits.Limits
        self.workers = max(1, int(workers))
        self.queue = max(0, int(queue if queue is not None else 4 * self.workers))
        self.timeout_s = float(timeout_s)
        self.max_timeout_s = float(max_timeout_s) if max_timeout_s else max(self.timeout_s, 2 * self.timeout_s)
        self.memory_mb = int(memory_mb)
        # The recorder keeps a trace under its limits' max_trace_bytes; the zygote stops one that is not.
        self.max_trace_bytes = int(max_trace_bytes or (limits or {}).get("max_trace_bytes", 8 * 1024 * 1024))
        limits = {**(limits or {}), "max_trace_bytes": self.max_trace_bytes}
        self.max_source_bytes = int(max_source_bytes)
        self.kill_grace_s = float(kill_grace_s)
        self.start_timeout_s = float(start_timeout_s)
        self.python = python or sys.executable
        self._cfg = {
            "memory_mb": self.memory_mb, "max_trace_bytes": self.max_trace_bytes, "nofile": int(nofile),
            "recursion_limit": int(recursion_limit), "kill_grace_s": self.kill_grace_s,
            "run_as": run_as, "tracer": tracer, "seccomp": bool(seccomp), "landlock": bool(landlock),
            "extra_read_paths": list(extra_read_paths), "limits": limits,
            "max_timeout_s": self.max_timeout_s,
            "spares": self.workers if spares is None else int(spares),
        }
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: collections.deque[_Pending] = collections.deque()
        self._inflight: dict[int, _Pending] = {}
        self._proc: subprocess.Popen | None = None
        self._ready = False
        self._started = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = -1, -1
        self.info: dict = {}
        self.restarts = 0
        self.start_error: str | None = None

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> "Sandbox":
        if self._thread is not None:
            return self
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._thread = threading.Thread(target=self._supervise, name="gradstep-sandbox", daemon=True)
        self._thread.start()
        if not self._started.wait(self.start_timeout_s):
            raise RuntimeError("the sandbox did not start in time")
        if not self._ready:
            raise RuntimeError(f"the sandbox could not start: {self.start_error}")
        return self

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pending = list(self._waiting) + list(self._inflight.values())
            self._waiting.clear()
            self._inflight.clear()
        for p in pending:
            self._resolve(p, traces.encode_status(p.code, "error", "the server is shutting down", "SandboxError"))
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._kill_proc()
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __enter__(self) -> "Sandbox":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def zygote_pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None else None

    @property
    def features(self) -> dict:
        return dict(self.info.get("features", {}))

    def health(self) -> dict:
        with self._lock:
            return {"alive": self._ready and self._proc is not None and self._proc.poll() is None,
                    "zygote_pid": self.zygote_pid, "in_flight": len(self._inflight),
                    "queued": len(self._waiting), "workers": self.workers, "queue": self.queue,
                    "restarts": self.restarts, "tracer": self.info.get("tracer")}

    # -- running ----------------------------------------------------------------------------------
    def submit(self, code: str, timeout_s: float | None = None) -> "concurrent.futures.Future[bytes]":
        """Queue a run; the future always resolves to trace bytes. Raises SandboxBusy when full."""
        if self._thread is None:
            self.start()
        timeout = self.timeout_s if timeout_s is None else min(self.max_timeout_s, max(0.01, float(timeout_s)))
        if not isinstance(code, str):
            code = str(code)
        if len(code.encode("utf-8", "surrogatepass")) > self.max_source_bytes:
            fut: concurrent.futures.Future[bytes] = concurrent.futures.Future()
            fut.set_result(traces.encode_status(
                "", "limit", f"the code is too long: source size limit ({self.max_source_bytes // 1024} KiB) "
                "exceeded", "LimitExceeded"))
            return fut
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox is closed")
            busy = len(self._inflight) >= self.workers or not self._ready
            if busy and len(self._waiting) >= self.queue:
                raise SandboxBusy(retry_after=max(1.0, round(self.timeout_s)))
            p = _Pending(next(self._ids), code, timeout)
            self._waiting.append(p)
            self._pump()
        return p.future

    def run(self, code: str, timeout_s: float | None = None) -> bytes:
        return self.submit(code, timeout_s).result()

    async def run_async(self, code: str, timeout_s: float | None = None) -> bytes:
        return await asyncio.wrap_future(self.submit(code, timeout_s))

    # -- internals ----------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Send waiting runs to the zygote while workers are free. Caller holds the lock."""
        while self._waiting and self._ready and len(self._inflight) < self.workers:
            p = self._waiting[0]
            code = p.code.encode("utf-8", "surrogatepass")
            try:
                assert self._proc is not None and self._proc.stdin is not None
                self._write_all(self._proc.stdin.fileno(), REQ_HEADER.pack(REQ_FIELDS.size + len(code))
                                + REQ_FIELDS.pack(p.id, p.timeout_s) + code)
            except (OSError, AssertionError, ValueError):
                self._ready = False
                self._wake()
                return
            self._waiting.popleft()
            p.deadline = time.monotonic() + p.timeout_s + self.kill_grace_s + 10.0
            self._inflight[p.id] = p

    @staticmethod
    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    @staticmethod
    def _resolve(p: _Pending, payload: bytes) -> None:
        if not p.future.done():
            try:
                p.future.set_result(payload)
            except concurrent.futures.InvalidStateError:  # pragma: no cover
                pass

    def _spawn(self) -> subprocess.Popen:
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": REPO_ROOT,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "LANG": "C.UTF-8",
        }
        proc = subprocess.Popen(
            [self.python, "-I", "-c",
             "import sys; sys.path.insert(0, sys.argv[1]); from server.sandbox.zygote import main; main(sys.argv[2])",
             REPO_ROOT, json.dumps(self._cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=env, cwd="/",
            start_new_session=True, close_fds=True)
        assert proc.stdout is not None
        out_fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.start_timeout_s
        buf = bytearray()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise RuntimeError("the zygote did not become ready in time")
            r, _, _ = select.select([out_fd], [], [], min(left, 1.0))
            if not r:
                continue
            data = os.read(out_fd, 1 << 16)
            if not data:
                proc.wait()
                raise RuntimeError(f"the zygote exited during start-up (code {proc.returncode})")
            buf += data
            if len(buf) >= RESP_HEADER.size:
                n, rid = RESP_HEADER.unpack_from(buf)
                if len(buf) >= RESP_HEADER.size + n:
                    self.info = json.loads(bytes(buf[RESP_HEADER.size:RESP_HEADER.size + n]))
                    self._outbuf = bytearray(buf[RESP_HEADER.size + n:])
                    return proc

    def _kill_proc(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.kill()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    def _zygote_died(self, reason: str) -> None:
        with self._lock:
            self._ready = False
            inflight = list(self._inflight.values())
            self._inflight.clear()
        self._kill_proc()
        self._proc = None
        if not self._closed:
            self.restarts += 1
            log.warning("sandbox zygote stopped (%s); restarting", reason)
        for p in inflight:
            self._resolve(p, traces.encode_status(
                p.code, "error", "the run was stopped: the sandbox worker stopped while running this code; "
                "please try again", "SandboxError"))

    def _supervise(self) -> None:
        failures = 0
        while not self._closed:
            if self._proc is None:
                try:
                    proc = self._spawn()
                except Exception as e:  # noqa: BLE001
                    failures += 1
                    self.start_error = str(e)
                    log.error("sandbox zygote failed to start: %s", e)
                    if not self._started.is_set() or failures >= 3:
                        with self._lock:
                            waiting = list(self._waiting)
                            self._waiting.clear()
                        for p in waiting:
                            self._resolve(p, traces.encode_status(
                                p.code, "error", "the sandbox is unavailable", "SandboxError"))
                    if not self._started.is_set():
                        self._started.set()
                        return
                    time.sleep(min(5.0, 0.2 * failures))
                    continue
                failures = 0
                with self._lock:
                    self._proc = proc
                    self._ready = True
                    self._pump()
                self._started.set()
            proc = self._proc
            assert proc is not None and proc.stdout is not None
            out_fd = proc.stdout.fileno()
            try:
                r, _, _ = select.select([out_fd, self._wake_r], [], [], 0.25)
            except (OSError, ValueError):
                self._zygote_died("pipe error")
                continue
            if self._wake_r in r:
                try:
                    while os.read(self._wake_r, 4096):
                        pass
                except (BlockingIOError, OSError):
                    pass
            if out_fd in r:
                try:
                    data = os.read(out_fd, 1 << 20)
                except OSError:
                    data = b""
                if not data:
                    self._zygote_died("exited")
                    continue
                self._outbuf += data
                self._drain_frames()
            with self._lock:
                if not self._ready and self._proc is not None and not self._closed:
                    needs_restart = True
                else:
                    needs_restart = False
                now = time.monotonic()
                overdue = any(now > p.deadline for p in self._inflight.values())
            if needs_restart or overdue:
                self._zygote_died("unresponsive" if overdue else "write failed")

    def _drain_frames(self) -> None:
        buf = self._outbuf
        while len(buf) >= RESP_HEADER.size:
            n, rid = RESP_HEADER.unpack_from(buf)
            if len(buf) < RESP_HEADER.size + n:
                break
            payload = bytes(buf[RESP_HEADER.size:RESP_HEADER.size + n])
            del buf[:RESP_HEADER.size + n]
            with self._lock:
                p = self._inflight.pop(rid, None)
                self._pump()
            if p is not None:
                self._resolve(p, checked_trace(payload) or traces.encode_status(
                    p.code, "error", "the run was stopped: it ended without a valid result", "Crash"))


__all__ = ["Sandbox", "SandboxBusy", "MAX_SOURCE_BYTES", "checked_trace"]
