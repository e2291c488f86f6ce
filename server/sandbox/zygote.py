"""The warm parent ("zygote"): `python -m server.sandbox.zygote '<json config>'`.

Started once by `Sandbox` with a clean environment. It imports numpy, the engine and the tracer,
warms them up with a fixed trusted snippet, then serves requests from stdin: for each one it forks a
short-lived child that confines itself (see confine.py), runs the tracer, and writes its trace as
length-prefixed JSON to a pipe. The zygote enforces the wall-clock kill and the size cap, and
answers on stdout. It never runs user code itself and never unpickles anything.

Wire format (big-endian):
  request  = u32 length + u64 id + f64 timeout_s + the code (UTF-8, surrogatepass)
  response = u32 length + u64 id + payload (the trace as UTF-8 JSON); id 0 carries control JSON.
The zygote passes the code bytes to the child untouched (f64 timeout_s + code, then EOF) and
forwards the child's framed payload without parsing it: the Sandbox checks it is a trace.
"""

from __future__ import annotations

import gc
import json
import math
import os
import select
import signal
import struct
import sys
import time
from typing import Any

import _signal  # signal.signal without the wrapper's enum conversions, costly in a fresh fork

LONG_RUN_S = 0.2  # runs longer than this get the lowest CPU priority, and wait while short runs go
SHORT_RUN_GAP_S = 0.02  # ...and for this long after one ends, as a client's next request is usually on its way
ACK = b"\x06"  # a child's first byte back: it has read its request
REQ_HEADER = struct.Struct(">I")
RESP_HEADER = struct.Struct(">IQ")
REQ_FIELDS = struct.Struct(">Qd")  # id, timeout_s; the code follows
CHILD_REQ = struct.Struct(">d")  # timeout_s; the code follows
MAX_REQUEST_BYTES = 4 * 1024 * 1024
MAX_ATTEMPTS = 3  # a request whose spare died before taking it goes to another spare, this many times

WARMUP = """
import torch
import math
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
y = (w @ x).sin().sum() * 2 + (x * x).mean()
y.backward()
print(type(y.grad_fn).__name__, x.grad.tolist(), f"{y.item():.4f}", round(math.pi, 2))
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__)
with torch.no_grad():
    z = x * 2
"""


def warmup_snippets() -> list[str]:
    """Trusted code the zygote traces before it forks: WARMUP and the example gallery. Children
    inherit what this warms (imports, caches, and the interpreter's specialised bytecode), so they
    neither redo that work nor copy the pages it would write."""
    gallery = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
    snippets = [WARMUP]
    for name in sorted(os.listdir(gallery)):
        if name.endswith(".py") and not name.startswith("_"):
            with open(os.path.join(gallery, name), encoding="utf-8") as f:
                snippets.append(f.read())
    return snippets


def _restart_hook_ids() -> None:
    """Hook handle ids count from 0 in each run, as in a fresh PyTorch process (snippets print them as the keys
    of `m._forward_hooks`); the warm-up registered hooks of its own."""
    import itertools

    node = sys.modules.get("engine.node")
    if node is not None and hasattr(node, "_handle_ids"):
        node._handle_ids = itertools.count()


def _seed_from_entropy() -> None:
    """Each run's default generator starts from a seed of the OS's entropy, as a new PyTorch process's does
    (the warm-up left one seeded state to every child); see engine.random.Generator.from_entropy."""
    random = sys.modules.get("engine.random")
    generator = getattr(random, "default_generator", None)
    if generator is not None and hasattr(generator, "from_entropy"):
        generator.from_entropy()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _resolve_tracer(spec: str | None) -> tuple[Any, str]:
    import importlib

    candidates = [spec] if spec else ["server.tracer:trace_code"]
    for cand in candidates:
        mod_name, _, fn_name = cand.partition(":")
        try:
            fn = getattr(importlib.import_module(mod_name), fn_name or "trace_code")
            return fn, cand
        except Exception as e:  # noqa: BLE001 - fall back to the stand-in below
            note = f"{cand} unavailable ({type(e).__name__}: {e}); using the stand-in tracer"
    from server.sandbox import standin

    return standin.trace_code, note


def _read_paths(extra: list[str]) -> list[str]:
    import sysconfig

    paths = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            paths.add(p)
    for p in sys.path:
        if p and ("site-packages" in p or "lib-dynload" in p or p.endswith(".zip")):
            paths.add(p)
    import engine
    import server

    for pkg in (engine, server):
        for p in getattr(pkg, "__path__", []):
            paths.add(p)
    paths.update(extra)
    return sorted(p for p in paths if os.path.exists(p))


class Zygote:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.in_fd = os.dup(0)
        self.out_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        self.memory_mb = int(cfg.get("memory_mb", 512))
        self.max_trace_bytes = int(cfg.get("max_trace_bytes", 8 * 1024 * 1024))
        self.kill_grace_s = float(cfg.get("kill_grace_s", 0.5))
        self.max_timeout_s = float(cfg.get("max_timeout_s", 5.0))
        self.spares_target = max(0, int(cfg.get("spares", 2)))
        self.nofile = int(cfg.get("nofile", 32))
        self.recursion_limit = int(cfg.get("recursion_limit", 1000))
        self.use_seccomp = bool(cfg.get("seccomp", True))
        self.use_landlock = bool(cfg.get("landlock", True))
        self.uid = self.gid = None
        run_as = cfg.get("run_as", "nobody")
        if os.geteuid() == 0 and run_as:
            import pwd

            try:
                pw = pwd.getpwnam(run_as)
                self.uid, self.gid = pw.pw_uid, pw.pw_gid
            except KeyError:
                self.uid, self.gid = 65534, 65534
        # Where children run: an empty directory they cannot write to. Made by hand rather than with
        # tempfile, which would bring shutil, zlib, bz2 and lzma into every fork (the zygote's
        # environment is clean, so tempfile would pick /tmp too).
        self.workdir = os.path.join("/tmp", f"gradstep-run-{os.urandom(8).hex()}")
        os.mkdir(self.workdir, 0o700)
        os.chmod(self.workdir, 0o555)
        self.children: dict[int, _Child] = {}
        self.retained: list = []  # a child's run objects, left for its exit to free

    # -- start-up ---------------------------------------------------------------------------------
    def prepare(self) -> dict:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        import numpy  # noqa: F401

        import engine  # noqa: F401
        from server import policy
        from server.sandbox import confine, holes, traces

        self.policy = policy
        self.confine = confine
        self.traces = traces
        self.tracer, self.tracer_name = _resolve_tracer(self.cfg.get("tracer"))
        import inspect

        try:
            accepted = inspect.signature(self.tracer).parameters
        except (TypeError, ValueError):
            accepted = {}
        # Keyword arguments for each run: the configured limits, and a list that keeps the run's
        # objects alive until the child exits (freeing them one by one would only delay the answer).
        self.tracer_kwargs: dict = {"keep": self.retained} if "keep" in accepted else {}
        if "native" in accepted:  # NumPy values, written by traces.encode below
            self.tracer_kwargs["native"] = True
        if "limits" in accepted and self.cfg.get("limits"):
            try:
                from server.limits import Limits

                self.tracer_kwargs["limits"] = Limits(**self.cfg["limits"])
            except Exception:  # noqa: BLE001 - unknown fields or no server.limits: tracer defaults
                pass
        # Preload what lazy imports would otherwise need to read after confinement.
        for mod in ("json", "traceback", "linecache", "tokenize", "warnings", "re", "math", "string",
                    "numpy.linalg", "numpy.core._methods", "encodings.idna", "unicodedata"):
            try:
                __import__(mod)
            except ImportError:
                pass
        for snippet in warmup_snippets():
            try:
                traces.encode(self.tracer(snippet))
            except Exception:  # noqa: BLE001
                pass
        _restart_hook_ids()
        self.read_paths = _read_paths(list(self.cfg.get("extra_read_paths", [])))
        # Built once here rather than in every child: the seccomp program and the Landlock ruleset.
        self.prepared = confine.Prepared(read_paths=self.read_paths, use_seccomp=self.use_seccomp,
                                         use_landlock=self.use_landlock, uid=self.uid, gid=self.gid)
        # Nothing below needs the environment or the start-up directory; children inherit neither.
        os.environ.clear()
        os.chdir(self.workdir)
        gc.collect()
        gc.freeze()
        self.padding = holes.fill()  # children's new objects then go to fresh pages, not scattered holes
        return {"tracer": self.tracer_name, "pid": os.getpid(), "features": self.probe()}

    def probe(self) -> dict:
        """Fork one child that confines itself and reports what worked."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                import socket  # here, not in the zygote (which children fork from): it is not needed there

                feats = self._confine((w,))
                try:
                    socket_ok = False
                    socket.socket().close()
                    socket_ok = True
                except OSError:
                    pass
                feats["socket_blocked"] = not socket_ok
                try:
                    open("/etc/hostname").close()
                    feats["reads_outside_blocked"] = False
                except OSError:
                    feats["reads_outside_blocked"] = True
                _write_all(w, json.dumps(feats).encode())
            except BaseException as e:  # noqa: BLE001
                try:
                    _write_all(w, json.dumps({"error": repr(e)}).encode())
                except BaseException:  # noqa: BLE001
                    pass
            os._exit(0)
        os.close(w)
        chunks = []
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        os.close(r)
        os.waitpid(pid, 0)
        try:
            return json.loads(b"".join(chunks) or b"{}")
        except ValueError:
            return {"error": "probe failed"}

    def _confine(self, keep_fds: tuple[int, ...]) -> dict:
        return self.confine.confine(
            keep_fds=keep_fds, workdir=self.workdir, memory_mb=self.memory_mb,
            cpu_s=int(math.ceil(self.max_timeout_s)) + 1, nofile=self.nofile, uid=self.uid, gid=self.gid,
            read_paths=self.read_paths, parent_pid=self.pid,
            use_seccomp=self.use_seccomp, use_landlock=self.use_landlock, prepared=self.prepared)

    # -- one run (in a forked child) -----------------------------------------------------------
    def spare_main(self, req_r: int, res_w: int) -> None:
        """A pre-forked child: confine first, then wait for exactly one request, run it, answer, exit."""
        code = ""
        try:
            try:
                self._confine((req_r, res_w))
            except BaseException as e:  # noqa: BLE001 - never run user code unconfined
                payload = self.traces.encode_status("", "error", f"the sandbox could not start: {e}",
                                                    "SandboxError")
            else:
                raw = bytearray()
                while True:
                    chunk = os.read(req_r, 1 << 20)
                    if not chunk:
                        break
                    raw += chunk
                os.close(req_r)
                os.write(res_w, ACK)  # the request arrived: from here on, a death is this run's fault
                (timeout_s,) = CHILD_REQ.unpack_from(raw)
                code = raw[CHILD_REQ.size:].decode("utf-8", "surrogatepass")
                payload = self._run(code, min(timeout_s, self.max_timeout_s))
            _write_all(res_w, REQ_HEADER.pack(len(payload)) + payload)
            os.close(res_w)
        except BaseException as e:  # noqa: BLE001
            try:
                payload = self.traces.encode_status(code, "error", f"internal sandbox error: {type(e).__name__}: {e}",
                                                    "SandboxError")
                _write_all(res_w, REQ_HEADER.pack(len(payload)) + payload)
            except BaseException:  # noqa: BLE001
                pass
        os._exit(0)

    def _run(self, code: str, timeout_s: float) -> bytes:
        policy, traces = self.policy, self.traces
        sys.setrecursionlimit(self.recursion_limit)
        sys.dont_write_bytecode = True
        limit_msg = f"the run was stopped: time limit of {traces.fmt_seconds(timeout_s)} exceeded"

        def on_alarm(signum: int, frame: Any) -> None:
            f = frame
            while f is not None:
                if f.f_code.co_filename == policy.SNIPPET_FILENAME:
                    signal.setitimer(signal.ITIMER_REAL, 0.1)  # again, should a `finally:` keep looping
                    raise policy.TimeLimitExceeded(limit_msg, "time")
                f = f.f_back
            signal.setitimer(signal.ITIMER_REAL, 0.05)  # not in user code right now: retry shortly

        _signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, timeout_s))
        mem_msg = f"the run was stopped: memory limit ({self.memory_mb} MiB) exceeded"
        try:
            try:
                _seed_from_entropy()
                trace = self.tracer(code, **self.tracer_kwargs)
                self.retained.append(trace)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                _signal.signal(signal.SIGALRM, _signal.SIG_IGN)
        except policy.SandboxLimit as e:
            return traces.encode_status(code, e.status, e.message, e.error_type)
        except MemoryError:
            return traces.encode_status(code, "limit", mem_msg, "MemoryError")
        except RecursionError:
            return traces.encode_status(
                code, "limit", f"the run was stopped: recursion depth limit ({self.recursion_limit}) exceeded",
                "RecursionError")
        except BaseException as e:  # noqa: BLE001 - a tracer bug: still a well-formed trace
            return traces.encode_status(code, "error", f"internal error while tracing: {type(e).__name__}",
                                        "InternalError")
        try:
            if not isinstance(trace, dict):
                raise TypeError("the tracer did not return a dict")
            err = trace.get("error") if isinstance(trace.get("error"), dict) else None
            if trace.get("status") in ("error", "limit") and err is not None:
                if err.get("type") == "MemoryError":
                    trace["status"] = "limit"
                    err["message"] = mem_msg
                elif err.get("type") == "RecursionError":
                    trace["status"] = "limit"
                    err["message"] = (f"the run was stopped: recursion depth limit "
                                      f"({self.recursion_limit}) exceeded")
            try:
                payload = traces.encode(trace)
            except MemoryError:  # release the run's objects, then try once more
                self.retained.clear()
                payload = traces.encode(trace)
        except MemoryError:
            return traces.encode_status(code, "limit", mem_msg, "MemoryError")
        except BaseException as e:  # noqa: BLE001
            return traces.encode_status(code, "error", f"internal error while encoding the trace: "
                                        f"{type(e).__name__}", "InternalError")
        if len(payload) > self.max_trace_bytes:  # the graph is dropped; what the snippet printed is kept
            message = (f"the run was stopped: the trace exceeds the size limit "
                       f"({self.max_trace_bytes / (1024 * 1024):g} MiB)")
            stdout = trace.get("stdout")
            payload = traces.encode_status(code, "limit", message, "LimitExceeded",
                                           stdout if isinstance(stdout, str) else "")
            if len(payload) > self.max_trace_bytes:
                payload = traces.encode_status(code, "limit", message, "LimitExceeded")
        return payload

    # -- serving ---------------------------------------------------------------------------------
    # The loop below runs between forks, and after each fork every page it writes is shared with
    # the spares: it does little, in plain objects, and never parses what it forwards.
    def send(self, rid: int, payload: bytes) -> None:
        _write_all(self.out_fd, RESP_HEADER.pack(len(payload), rid) + payload)

    def fork_spare(self) -> None:
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            try:
                self.spare_main(req_r, res_w)
            finally:
                os._exit(0)
        os.close(req_r)
        os.close(res_w)
        self.spares.append((pid, req_w, res_r))

    def start_child(self, rid: int, timeout_s: float, code: bytes, attempt: int = 0) -> None:
        timeout_s = min(timeout_s, self.max_timeout_s)
        body = CHILD_REQ.pack(timeout_s) + code
        while True:
            if not self.spares:
                self.fork_spare()
            pid, req_w, res_r = self.spares.pop(0)
            try:
                _write_all(req_w, body)
                os.close(req_w)
                break
            except OSError:  # the spare died while idle: reap it, take another
                for fd in (req_w, res_r):
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                self.kill_pid(pid)
                self.reap.append(pid)
        os.set_blocking(res_r, False)
        child = _Child(pid, res_r, rid, code, timeout_s, attempt, time.monotonic(), self.kill_grace_s)
        self.children[res_r] = child
        self.poll.register(res_r, select.EPOLLIN)

    @staticmethod
    def deprioritize(child: "_Child") -> None:
        """A run past LONG_RUN_S yields the CPU to short runs, so a flood of busy loops cannot
        slow everyone else down."""
        child.niced = True
        try:
            os.setpriority(os.PRIO_PROCESS, child.pid, 19)
        except OSError:  # it already exited
            pass

    def pause_long_runs(self, now: float) -> None:
        """While a short run is in progress, runs past LONG_RUN_S are stopped (SIGSTOP), and they go
        on (SIGCONT) once no short run is left. Nice 19 alone is not enough: a busy CPU slows the
        short runs beside it at any priority (shared cores), and a fast benign run is the point.
        A run whose own time limit has come is let go on, so it can report its partial output."""
        short = now < self.short_run_ended + SHORT_RUN_GAP_S
        if not short:
            for c in self.children.values():
                if not c.niced:
                    short = True
                    break
        for c in self.children.values():
            if c.niced and c.reason is None:
                stop = short and now < c.expires
                if c.stopped != stop:
                    try:
                        os.kill(c.pid, signal.SIGSTOP if stop else signal.SIGCONT)
                        c.stopped = stop
                    except OSError:  # it already exited
                        pass

    @staticmethod
    def kill_pid(pid: int) -> None:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    @staticmethod
    def complete_frame(buf: bytearray) -> bytes | None:
        """The child's payload once its whole frame has arrived (the Sandbox checks it is a trace)."""
        if len(buf) < 4:
            return None
        (n,) = REQ_HEADER.unpack_from(buf)
        if len(buf) - 4 < n:
            return None
        return bytes(buf[4:4 + n])

    def finish(self, child: "_Child", payload: bytes | None, eof: bool) -> None:
        """Answer for `child` and retire it (kill, reap later, or now when we need its status)."""
        self.poll.unregister(child.fd)
        os.close(child.fd)
        del self.children[child.fd]
        self.kill_pid(child.pid)
        if not child.niced:
            self.short_run_ended = time.monotonic()
        traces = self.traces
        if child.reason == "timeout":
            payload = traces.encode_status(
                child.code_text(), "timeout", f"the run was stopped: time limit of "
                f"{traces.fmt_seconds(child.timeout_s)} exceeded", "TimeoutError")
        elif child.reason == "output":
            payload = traces.encode_status(
                child.code_text(), "limit", f"the run was stopped: the trace exceeds the size limit "
                f"({self.max_trace_bytes // (1024 * 1024)} MiB)", "LimitExceeded")
        if payload is None and not child.acked and child.reason is None and child.attempt < MAX_ATTEMPTS:
            # The spare died before it took the request (killed while idle, as may the next one be):
            # no user code ran, so give the request to another one.
            self.reap.append(child.pid)
            self.start_child(child.rid, child.timeout_s, child.code, child.attempt + 1)
            return
        if payload is None:
            _, status = os.waitpid(child.pid, 0)
            payload = self.crash_payload(child.code_text(), status)
        else:
            self.reap.append(child.pid)
        self.send(child.rid, payload)

    def reap_children(self) -> None:
        keep = []
        for pid in self.reap:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                continue
            if not done:
                keep.append(pid)
        self.reap = keep

    def crash_payload(self, code: str, status: int) -> bytes:
        traces = self.traces
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return traces.encode_status(code, "limit", "the run was stopped: CPU time limit exceeded",
                                            "LimitExceeded")
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            if sig == signal.SIGKILL:
                return traces.encode_status(
                    code, "limit", f"the run was stopped: it was killed (memory limit {self.memory_mb} MiB "
                    "or CPU time limit)", "LimitExceeded")
            return traces.encode_status(
                code, "error", f"the run was stopped: it crashed ({name}); it may have exceeded the memory "
                f"limit ({self.memory_mb} MiB)", "Crash")
        return traces.encode_status(code, "error", "the run was stopped: it ended without a result "
                                    f"(exit code {os.WEXITSTATUS(status) if os.WIFEXITED(status) else '?'})",
                                    "Crash")

    def read_child(self, child: "_Child") -> None:
        try:
            data = os.read(child.fd, 1 << 20)
        except BlockingIOError:
            return
        if not data:
            self.finish(child, None, eof=True)
            return
        if child.reason is not None:
            return
        if not child.acked:
            child.acked = data[:1] == ACK
            data = data[1:]
        buf = child.buf
        buf += data
        if len(buf) > self.max_trace_bytes + 4:
            child.reason = "output"
            child.buf = bytearray()
            self.finish(child, None, eof=False)
            return
        payload = self.complete_frame(buf)
        if payload is not None:
            self.finish(child, payload, eof=False)

    def serve(self) -> None:
        self.pid = os.getpid()
        self.spares: list[tuple[int, int, int]] = []
        self.reap: list[int] = []
        self.short_run_ended = 0.0
        info = self.prepare()
        self.send(0, json.dumps({"ready": True, **info}).encode())
        self.poll = select.epoll()
        self.poll.register(self.in_fd, select.EPOLLIN)
        in_fd = self.in_fd
        children = self.children
        inbuf = bytearray()
        stdin_open = True
        while stdin_open or children:
            timeout = -1.0
            if children:
                wake = None
                resume = None  # when stopped runs go on, if no short run starts meanwhile
                for c in children.values():
                    if not c.niced:
                        t = c.renice_at
                        resume = t  # not before this one ends or turns long: a wake-up is due then anyway
                    elif c.stopped:
                        t = c.expires  # its time is up: it goes on to report
                    else:
                        t = c.deadline
                    if wake is None or t < wake:
                        wake = t
                if resume is None and any(c.stopped for c in children.values()):
                    resume = self.short_run_ended + SHORT_RUN_GAP_S
                    if resume < wake:
                        wake = resume
                timeout = max(0.0, wake - time.monotonic())
            if stdin_open and len(self.spares) < self.spares_target:
                timeout = 0.0
            if self.reap and (timeout < 0 or timeout > 0.05):
                timeout = 0.05
            events = self.poll.poll(timeout)
            for fd, _ in events:
                if fd == in_fd:
                    data = os.read(in_fd, 1 << 20)
                    if not data:
                        stdin_open = False
                        self.poll.unregister(in_fd)
                        for c in list(children.values()):
                            self.kill_pid(c.pid)
                        continue
                    inbuf += data
                    while len(inbuf) >= 4:
                        (n,) = REQ_HEADER.unpack_from(inbuf)
                        if n > MAX_REQUEST_BYTES or n < REQ_FIELDS.size:
                            raise SystemExit("malformed request")
                        if len(inbuf) < 4 + n:
                            break
                        rid, timeout_s = REQ_FIELDS.unpack_from(inbuf, 4)
                        code = bytes(inbuf[4 + REQ_FIELDS.size:4 + n])
                        del inbuf[:4 + n]
                        self.start_child(rid, timeout_s, code)
                    continue
                child = children.get(fd)
                if child is not None:
                    self.read_child(child)
            if children:
                now = time.monotonic()
                for c in list(children.values()):
                    if not c.niced and now >= c.renice_at:
                        self.deprioritize(c)
                    if c.reason is None and now >= c.deadline:
                        c.reason = "timeout"
                        self.finish(c, None, eof=False)
                self.pause_long_runs(now)
            if self.reap:
                self.reap_children()
            if stdin_open and not events:
                # All missing spares at once: each fork shares the zygote's pages anew, and every
                # page this loop then writes is copied again, so fewer fork rounds copy less.
                while len(self.spares) < self.spares_target:
                    self.fork_spare()
        for pid, req_w, res_r in self.spares:
            self.kill_pid(pid)


class _Child:
    """A running child, as the zygote tracks it."""

    __slots__ = ("pid", "fd", "rid", "code", "timeout_s", "attempt", "started", "renice_at", "deadline", "buf",
                 "reason", "acked", "niced", "stopped", "expires")

    def __init__(self, pid: int, fd: int, rid: int, code: bytes, timeout_s: float, attempt: int, now: float,
                 grace_s: float) -> None:
        self.pid, self.fd, self.rid, self.code, self.timeout_s, self.attempt = pid, fd, rid, code, timeout_s, attempt
        self.started = now
        self.renice_at = now + LONG_RUN_S
        self.expires = now + timeout_s
        self.deadline = now + timeout_s + grace_s
        self.buf = bytearray()
        self.reason: str | None = None
        self.acked = False
        self.niced = False
        self.stopped = False

    def code_text(self) -> str:
        return self.code.decode("utf-8", "surrogatepass")


def main(cfg_json: str | None = None) -> None:
    if cfg_json is None:
        cfg_json = sys.argv[1] if len(sys.argv) > 1 else "{}"
    cfg = json.loads(cfg_json)
    try:
        from server.sandbox.confine import PR_SET_PDEATHSIG, prctl

        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except Exception:  # noqa: BLE001
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    Zygote(cfg).serve()


if __name__ == "__main__":
    main()
