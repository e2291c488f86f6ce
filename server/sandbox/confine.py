"""Process confinement applied inside each forked run (Linux): rlimits, an unprivileged user,
no-new-privs, Landlock (read-only access to the code the run needs) and a seccomp filter (no
sockets, no exec, no new processes, no file writes, no signals to other processes).

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


def apply_landlock(read_paths: list[str]) -> str:
    """Allow reading (files and directories) only beneath `read_paths`; deny every other file-system
    access, TCP bind/connect (ABI >= 4), abstract unix sockets and signals out of the domain (ABI >= 6)."""
    abi = landlock_abi()
    if abi <= 0:
        return "unsupported by this kernel"
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
        return f"create_ruleset failed (errno {ctypes.get_errno()})"
    fd = int(fd)
    try:
        added = 0
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
        if _libc.syscall(ctypes.c_long(SYS_landlock_restrict_self), ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return f"restrict_self failed (errno {ctypes.get_errno()})"
    finally:
        os.close(fd)
    return f"abi {abi}, {added} read-only paths"


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
}
X86_64_OPEN = 2
X86_64_OPENAT = 257
X86_64_KILL = {"kill": 62, "tkill": 200, "tgkill": 234}
X86_64_IOCTL = 16
TIOCSTI = 0x5412
OPEN_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND | 0x400000  # __O_TMPFILE


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _arg_lo(i: int) -> int:
    return 16 + 8 * i


def build_seccomp_program(pid: int) -> list[tuple[int, int, int, int]]:
    p: list[tuple[int, int, int, int]] = []

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
    for nr in sorted(set(X86_64_DENY.values())):
        jump(BPF_JEQ, nr, 0, 1)
        stmt(BPF_RET, eperm)
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
    for nr in X86_64_KILL.values():  # signals only to this process itself
        jump(BPF_JEQ, nr, 0, 7)
        stmt(BPF_LD_W_ABS, _arg_lo(0) + 4)
        jump(BPF_JEQ, 0, 0, 3)
        stmt(BPF_LD_W_ABS, _arg_lo(0))
        jump(BPF_JEQ, pid, 2, 0)
        jump(BPF_JEQ, 0, 1, 0)
        stmt(BPF_RET, eperm)
        stmt(BPF_RET, RET_ALLOW)
    stmt(BPF_RET, RET_ALLOW)
    return p


def apply_seccomp() -> str:
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"skipped: no filter for {platform.machine()}"
    prog = build_seccomp_program(os.getpid())
    arr = (_SockFilter * len(prog))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in prog])
    fprog = _SockFprog(len(prog), arr)
    if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        return f"no_new_privs failed (errno {ctypes.get_errno()})"
    r = _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog),
                    ctypes.c_ulong(0), ctypes.c_ulong(0))
    if r != 0:
        return f"failed (errno {ctypes.get_errno()})"
    return f"filter of {len(prog)} instructions"


# --- all together ----------------------------------------------------------------------------------
def close_fds(keep: tuple[int, ...]) -> None:
    """Point 0-2 at /dev/null and close every other descriptor except `keep`."""
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        if devnull != fd:
            os.dup2(devnull, fd)
    if devnull > 2 and devnull not in keep:
        os.close(devnull)
    try:
        maxfd = min(int(os.sysconf("SC_OPEN_MAX")), 65536)
    except (ValueError, OSError):  # pragma: no cover
        maxfd = 4096
    lo = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(lo, fd)
        lo = fd + 1
    os.closerange(lo, max(lo + 1, maxfd))


def confine(*, keep_fds: tuple[int, ...], workdir: str, memory_mb: int, cpu_s: int, nofile: int,
            uid: int | None, gid: int | None, read_paths: list[str], parent_pid: int,
            use_seccomp: bool = True, use_landlock: bool = True) -> dict:
    """Run in the forked child before any user code. Returns what was applied."""
    features: dict = {}
    os.setsid()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    close_fds(keep_fds)
    os.chdir(workdir)
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
    features["landlock"] = apply_landlock(read_paths) if use_landlock else "disabled"
    features["seccomp"] = apply_seccomp() if use_seccomp else "disabled"
    return features
