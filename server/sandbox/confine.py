"""Process confinement applied inside each forked run (Linux): rlimits, an unprivileged user,
no-new-privs, Landlock (read-only access to the code the run needs) and a seccomp filter (no
sockets, no exec, no new processes, no file writes, no signals to other processes and no changes to
their rlimits or priorities).

Each step reports what it did into a `features` dict; a step the kernel does not support is skipped
with a note there, never fatal (the rlimits, the empty environment and the parent's wall-clock kill
always apply).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import signal

import _signal  # signal's own functions: signal.py's wrappers make enum members of handlers, which
# costs a forked run about 70 copied pages of the enum machinery

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def prctl(option: int, arg2: int = 0) -> int:
    return _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0),
                       ctypes.c_ulong(0), ctypes.c_ulong(0))


# --- rlimits ---------------------------------------------------------------------------------------
def set_rlimits(memory_mb: int, cpu_s: int, nofile: int) -> dict:
    done = {}
    limits = {
        "RLIMIT_AS": (memory_mb * 1024 * 1024,) * 2,
        "RLIMIT_CPU": (cpu_s, cpu_s + 1),
        "RLIMIT_FSIZE": (0, 0),
        "RLIMIT_CORE": (0, 0),
        "RLIMIT_NOFILE": (nofile, nofile),
        "RLIMIT_NPROC": (0, 0),
        "RLIMIT_MEMLOCK": (0, 0),
        "RLIMIT_MSGQUEUE": (0, 0),
    }
    for name, value in limits.items():
        res = getattr(resource, name, None)
        if res is None:
            continue
        try:
            resource.setrlimit(res, value)
            done[name] = value[0]
        except (ValueError, OSError) as e:
            done[name] = f"failed: {e}"
    return done


# --- privileges ------------------------------------------------------------------------------------
def drop_privileges(uid: int | None, gid: int | None) -> str:
    if os.geteuid() != 0:
        return f"uid {os.geteuid()} (not root: kept)"
    if uid is None or gid is None:
        return "root (no unprivileged user found)"
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.geteuid() == 0 or os.getuid() == 0:  # pragma: no cover - paranoia
        raise OSError("could not drop root")
    return f"uid {uid}"


# --- Landlock --------------------------------------------------------------------------------------
SYS_landlock_create_ruleset = 444
SYS_landlock_add_rule = 445
SYS_landlock_restrict_self = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_ALL_V1 = (1 << 13) - 1
FS_REFER = 1 << 13
FS_TRUNCATE = 1 << 14
FS_IOCTL_DEV = 1 << 15
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    r = _libc.syscall(ctypes.c_long(SYS_landlock_create_ruleset), None, ctypes.c_size_t(0),
                      ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return int(r) if r > 0 else 0


def build_landlock_ruleset(read_paths: list[str]) -> tuple[int, str]:
    """Create a ruleset allowing reads (files and directories) only beneath `read_paths` and denying
    every other file-system access, TCP bind/connect (ABI >= 4), abstract unix sockets and signals out
    of the domain (ABI >= 6). Returns (ruleset fd or -1, what it holds). Creating it restricts nobody:
    a process is confined only when it calls `landlock_restrict_self` with it."""
    abi = landlock_abi()
    if abi <= 0:
        return -1, "unsupported by this kernel"
    fs = FS_ALL_V1
    if abi >= 2:
        fs |= FS_REFER
    if abi >= 3:
        fs |= FS_TRUNCATE
    if abi >= 5:
        fs |= FS_IOCTL_DEV
    attr = _RulesetAttr(fs, (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    fd = _libc.syscall(ctypes.c_long(SYS_landlock_create_ruleset), ctypes.byref(attr),
                       ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return -1, f"create_ruleset failed (errno {ctypes.get_errno()})"
    fd = int(fd)
    added = 0
    try:
        for path in read_paths:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = os.path.isdir(path)
                access = (FS_READ_FILE | FS_READ_DIR | FS_EXECUTE) if is_dir else FS_READ_FILE
                rule = _PathBeneathAttr(access, pfd)
                if _libc.syscall(ctypes.c_long(SYS_landlock_add_rule), ctypes.c_int(fd),
                                 ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule),
                                 ctypes.c_uint32(0)) == 0:
                    added += 1
            finally:
                os.close(pfd)
    except BaseException:
        os.close(fd)
        raise
    return fd, f"abi {abi}, {added} read-only paths"


_RESTRICT_ARGS = (ctypes.c_long(SYS_landlock_restrict_self),)


def restrict_landlock(ruleset_fd: int, note: str) -> str:
    """Confine this process with a ruleset from `build_landlock_ruleset`, then close the fd so nothing
    that runs later can add rules to a ruleset that other processes will use."""
    try:
        if _libc.syscall(_RESTRICT_ARGS[0], ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)) != 0:
            return f"restrict_self failed (errno {ctypes.get_errno()})"
    finally:
        os.close(ruleset_fd)
    return note


def apply_landlock(read_paths: list[str]) -> str:
    """Build a ruleset (see `build_landlock_ruleset`) and confine this process with it."""
    fd, note = build_landlock_ruleset(read_paths)
    if fd < 0:
        return note
    return restrict_landlock(fd, note)


# --- seccomp -------------------------------------------------------------------------------------
AUDIT_ARCH_X86_64 = 0xC000003E
BPF_LD_W_ABS = 0x20
BPF_JEQ = 0x15
BPF_JGE = 0x35
BPF_JSET = 0x45
BPF_RET = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
RET_KILL_PROCESS = 0x80000000

# x86_64 syscall numbers refused with EPERM.
X86_64_DENY = {
    "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53,
    "accept4": 288, "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322,
    "clone3": 435, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "mount": 165, "umount2": 166,
    "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308, "keyctl": 250, "add_key": 248,
    "request_key": 249, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "creat": 85,
    "mknod": 133, "mknodat": 259, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266,
    "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "mkdir": 83,
    "mkdirat": 258, "rmdir": 84, "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92,
    "fchown": 93, "lchown": 94, "fchownat": 260, "truncate": 76, "ftruncate": 77, "utime": 132,
    "utimes": 235, "utimensat": 280, "futimesat": 261, "memfd_create": 319,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "personality": 135, "shmget": 29,
    "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66, "msgget": 68, "msgsnd": 69,
    "msgrcv": 70, "msgctl": 71, "semtimedop": 220, "mq_open": 240, "mq_unlink": 241, "openat2": 437,
    "setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114, "setresuid": 117,
    "setresgid": 119, "setgroups": 116, "setfsuid": 122, "setfsgid": 123, "reboot": 169,
    "swapon": 167, "swapoff": 168, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "acct": 163, "settimeofday": 164,
    "clock_settime": 227, "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "quotactl": 179, "syslog": 103, "vhangup": 153, "fanotify_init": 300, "mbind": 237,
    "move_pages": 279, "migrate_pages": 256, "process_madvise": 440,
    # Landlock is applied before the filter; after it, nothing may create or edit a ruleset.
    "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446,
    # Every run has the same uid: these would let one run lower the priority of the others.
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "ioprio_set": 251,
    "sched_setattr": 314,
}
X86_64_OPEN = 2
X86_64_OPENAT = 257
# Syscalls whose first argument names a process: allowed only for this process (or 0). Signals, and the
# rlimits and CPU affinity of other runs (they share the uid, so the kernel alone would allow some).
X86_64_SELF_ONLY = {"kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
                    "prlimit64": 302, "sched_setaffinity": 203}
X86_64_IOCTL = 16
TIOCSTI = 0x5412
OPEN_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND | 0x400000  # __O_TMPFILE


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _arg_lo(i: int) -> int:
    return 16 + 8 * i


def _deny_tree(numbers: list[int], deny: int) -> list[tuple[int, int, int, int]]:
    """Instructions that return `deny` for a syscall number in `numbers` (sorted) and allow the rest,
    as a balanced tree of comparisons: a few instructions per syscall rather than one per number.
    (The kernel also runs the filter once per syscall number when it is loaded, to cache the
    always-allowed ones, so a long chain made every run's start slower.)"""
    if len(numbers) <= 4:  # a leaf: compare with each, then allow; a match jumps to the deny below
        n = len(numbers)
        return [(BPF_JEQ, n - i, 0, nr) for i, nr in enumerate(numbers)] + [(BPF_RET, 0, 0, RET_ALLOW),
                                                                             (BPF_RET, 0, 0, deny)]
    mid = len(numbers) // 2
    high, low = _deny_tree(numbers[mid:], deny), _deny_tree(numbers[:mid], deny)
    return [(BPF_JGE, 0, len(high), numbers[mid])] + high + low


def _seccomp_program(pid: int) -> tuple[list[tuple[int, int, int, int]], list[int]]:
    """The filter for a process whose pid is `pid`, and the indices of the instructions holding it."""
    p: list[tuple[int, int, int, int]] = []
    pid_slots: list[int] = []

    def stmt(code: int, k: int) -> None:
        p.append((code, 0, 0, k))

    def jump(code: int, k: int, jt: int, jf: int) -> None:
        p.append((code, jt, jf, k))

    eperm = RET_ERRNO | errno.EPERM
    eacces = RET_ERRNO | errno.EACCES
    stmt(BPF_LD_W_ABS, 4)  # arch
    jump(BPF_JEQ, AUDIT_ARCH_X86_64, 1, 0)
    stmt(BPF_RET, RET_KILL_PROCESS)
    stmt(BPF_LD_W_ABS, 0)  # syscall number
    jump(BPF_JGE, 0x40000000, 0, 1)  # x32 ABI
    stmt(BPF_RET, eperm)
    # The syscalls allowed depending on their arguments first (each ends in a return), then the
    # refused numbers; the accumulator holds the syscall number until a branch is taken.
    for nr, argi in ((X86_64_OPEN, 1), (X86_64_OPENAT, 2)):
        jump(BPF_JEQ, nr, 0, 4)
        stmt(BPF_LD_W_ABS, _arg_lo(argi))
        jump(BPF_JSET, OPEN_WRITE_FLAGS, 0, 1)
        stmt(BPF_RET, eacces)
        stmt(BPF_RET, RET_ALLOW)
    jump(BPF_JEQ, X86_64_IOCTL, 0, 4)
    stmt(BPF_LD_W_ABS, _arg_lo(1))
    jump(BPF_JEQ, TIOCSTI, 0, 1)
    stmt(BPF_RET, eperm)
    stmt(BPF_RET, RET_ALLOW)
    for nr in X86_64_SELF_ONLY.values():
        jump(BPF_JEQ, nr, 0, 7)
        stmt(BPF_LD_W_ABS, _arg_lo(0) + 4)
        jump(BPF_JEQ, 0, 0, 3)
        stmt(BPF_LD_W_ABS, _arg_lo(0))
        pid_slots.append(len(p))
        jump(BPF_JEQ, pid, 2, 0)
        jump(BPF_JEQ, 0, 1, 0)
        stmt(BPF_RET, eperm)
        stmt(BPF_RET, RET_ALLOW)
    p.extend(_deny_tree(sorted(set(X86_64_DENY.values())), eperm))
    return p, pid_slots


def build_seccomp_program(pid: int) -> list[tuple[int, int, int, int]]:
    return _seccomp_program(pid)[0]


class SeccompFilter:
    """The filter as a ready ctypes program, built once in the zygote. Each child writes its own pid
    into the few instructions that compare with it (its private copy of this memory) and loads it."""

    def __init__(self) -> None:
        prog, self.pid_slots = _seccomp_program(0)
        self.size = len(prog)
        self.array = (_SockFilter * len(prog))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in prog])
        self.fprog = _SockFprog(len(prog), self.array)
        self._args = (ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(self.fprog),
                      ctypes.c_ulong(0), ctypes.c_ulong(0))

    def apply(self) -> str:
        pid = os.getpid()
        for i in self.pid_slots:
            self.array[i].k = pid
        if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
            return f"no_new_privs failed (errno {ctypes.get_errno()})"
        if _libc.prctl(*self._args) != 0:
            return f"failed (errno {ctypes.get_errno()})"
        return f"filter of {self.size} instructions"


def apply_seccomp(prepared: SeccompFilter | None = None) -> str:
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"skipped: no filter for {platform.machine()}"
    return (prepared or SeccompFilter()).apply()


def paths_open_to(paths: list[str], uid: int | None, gid: int | None) -> list[str]:
    """The subset of `paths` that a process running as uid/gid can open (O_PATH).

    A child opened its rule paths itself after dropping root, so a path its user cannot reach got no
    Landlock rule. Rulesets built once by root keep that: they only get the paths this returns."""
    if os.geteuid() != 0 or uid is None or gid is None:
        return list(paths)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked helper
        code = 1
        try:
            os.close(r)
            drop_privileges(uid, gid)
            ok = []
            for i, path in enumerate(paths):
                try:
                    os.close(os.open(path, os.O_PATH | os.O_CLOEXEC))
                    ok.append(str(i))
                except OSError:
                    pass
            os.write(w, " ".join(ok).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError("could not check which paths the unprivileged user can open")
    return [paths[int(i)] for i in data.split()]


class Prepared:
    """What every child would otherwise rebuild, made once in the zygote before it forks: the seccomp
    program and the Landlock ruleset (an fd the child restricts itself with, then closes)."""

    def __init__(self, *, read_paths: list[str], use_seccomp: bool = True, use_landlock: bool = True,
                 uid: int | None = None, gid: int | None = None) -> None:
        self.signals = signals_to_reset()  # the zygote's dispositions are set before it prepares
        self.landlock_fd, self.landlock_note = -1, "disabled"
        if use_landlock:
            self.landlock_fd, self.landlock_note = build_landlock_ruleset(paths_open_to(read_paths, uid, gid))
        self.seccomp: SeccompFilter | None = None
        self.seccomp_note = "disabled"
        if use_seccomp:
            if platform.machine() in ("x86_64", "AMD64"):
                self.seccomp = SeccompFilter()
            else:
                self.seccomp_note = f"skipped: no filter for {platform.machine()}"


# --- all together ----------------------------------------------------------------------------------
try:
    _MAX_FD = min(int(os.sysconf("SC_OPEN_MAX")), 65536)
except (ValueError, OSError):  # pragma: no cover
    _MAX_FD = 4096


def close_fds(keep: tuple[int, ...]) -> None:
    """Point 0-2 at /dev/null and close every other descriptor except `keep`."""
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        if devnull != fd:
            os.dup2(devnull, fd)
    if devnull > 2 and devnull not in keep:
        os.close(devnull)
    maxfd = _MAX_FD
    lo = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(lo, fd)
        lo = fd + 1
    os.closerange(lo, max(lo + 1, maxfd))


_CHILD_SIGNALS = ((signal.SIGINT, signal.SIG_DFL), (signal.SIGTERM, signal.SIG_DFL), (signal.SIGHUP, signal.SIG_DFL),
                  (signal.SIGCHLD, signal.SIG_DFL), (signal.SIGUSR1, signal.SIG_DFL), (signal.SIGUSR2, signal.SIG_DFL),
                  (signal.SIGPIPE, signal.SIG_IGN), (signal.SIGXFSZ, signal.SIG_IGN))


def signals_to_reset() -> tuple[tuple[int, int], ...]:
    """The dispositions a child must change (as plain numbers): those where this process differs."""
    return tuple((int(sig), int(disposition)) for sig, disposition in _CHILD_SIGNALS
                 if _signal.getsignal(sig) != disposition)


def confine(*, keep_fds: tuple[int, ...], workdir: str, memory_mb: int, cpu_s: int, nofile: int,
            uid: int | None, gid: int | None, read_paths: list[str], parent_pid: int,
            use_seccomp: bool = True, use_landlock: bool = True, prepared: Prepared | None = None) -> dict:
    """Run in the forked child before any user code. Returns what was applied.

    `prepared` (built once in the zygote) saves rebuilding the seccomp program and the Landlock
    ruleset in every child; without it both are built here. Either way the same layers apply."""
    features: dict = {}
    os.setsid()
    for sig, disposition in (prepared.signals if prepared is not None else signals_to_reset()):
        _signal.signal(sig, disposition)
    landlock_fd = prepared.landlock_fd if (prepared is not None and use_landlock) else -1
    close_fds(keep_fds + ((landlock_fd,) if landlock_fd >= 0 else ()))
    os.chdir(workdir)
    if os.environ:
        os.environ.clear()
    os.umask(0o777)
    features["rlimits"] = set_rlimits(memory_mb, cpu_s, nofile)
    features["user"] = drop_privileges(uid, gid)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the zygote died before we armed the death signal
        os._exit(70)
    prctl(PR_SET_DUMPABLE, 0)
    if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        features["no_new_privs"] = f"failed (errno {ctypes.get_errno()})"
    else:
        features["no_new_privs"] = True
    if not use_landlock:
        features["landlock"] = "disabled"
    elif prepared is None:
        features["landlock"] = apply_landlock(read_paths)
    elif landlock_fd >= 0:
        features["landlock"] = restrict_landlock(landlock_fd, prepared.landlock_note)
    else:
        features["landlock"] = prepared.landlock_note
    if not use_seccomp:
        features["seccomp"] = "disabled"
    elif prepared is None:
        features["seccomp"] = apply_seccomp()
    elif prepared.seccomp is not None:
        features["seccomp"] = prepared.seccomp.apply()
    else:
        features["seccomp"] = prepared.seccomp_note
    return features
