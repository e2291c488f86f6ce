"""The seccomp program, run in a small classic-BPF interpreter: every syscall number gets the answer
the tables in confine.py ask for (the kernel tests the live filter in test_attacks)."""

from __future__ import annotations

import errno
import os
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.sandbox import confine as C  # noqa: E402

PID = 4242
EPERM = C.RET_ERRNO | errno.EPERM
EACCES = C.RET_ERRNO | errno.EACCES


def run_filter(program: list[tuple[int, int, int, int]], nr: int, args: tuple[int, ...] = (),
               arch: int = C.AUDIT_ARCH_X86_64) -> int:
    """struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];} through the program."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    acc, pc = 0, 0
    for _ in range(len(program)):
        code, jt, jf, k = program[pc]
        if code == C.BPF_LD_W_ABS:
            (acc,) = struct.unpack_from("<I", data, k)
            pc += 1
        elif code == C.BPF_RET:
            return k
        else:
            taken = {C.BPF_JEQ: acc == k, C.BPF_JGE: acc >= k, C.BPF_JSET: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)
    raise AssertionError("the program ran off its end")


@pytest.fixture(scope="module")
def program() -> list[tuple[int, int, int, int]]:
    prog = C.build_seccomp_program(PID)
    assert len(prog) <= 4096 and all(jt <= 255 and jf <= 255 for _, jt, jf, _ in prog)
    return prog


def test_every_syscall_number_gets_its_answer(program) -> None:
    denied = set(C.X86_64_DENY.values())
    argument_checked = {C.X86_64_OPEN, C.X86_64_OPENAT, C.X86_64_IOCTL, *C.X86_64_SELF_ONLY.values()}
    for nr in range(0, 1024):
        if nr in argument_checked:
            continue
        assert run_filter(program, nr) == (EPERM if nr in denied else C.RET_ALLOW), nr


def test_other_architectures_and_x32_are_refused(program) -> None:
    assert run_filter(program, 0, arch=0x40000003) == C.RET_KILL_PROCESS  # i386
    assert run_filter(program, 0x40000000 + 1) == EPERM


@pytest.mark.parametrize("nr, flag_arg", [(C.X86_64_OPEN, 1), (C.X86_64_OPENAT, 2)])
def test_open_for_writing_is_refused(program, nr: int, flag_arg: int) -> None:
    def flags(value: int) -> tuple[int, ...]:
        args = [0, 0, 0]
        args[flag_arg] = value
        return tuple(args)

    assert run_filter(program, nr, flags(os.O_RDONLY)) == C.RET_ALLOW
    assert run_filter(program, nr, flags(os.O_RDONLY | os.O_CLOEXEC)) == C.RET_ALLOW
    for write in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND, 0x400000):
        assert run_filter(program, nr, flags(write)) == EACCES


def test_terminal_injection_is_refused(program) -> None:
    assert run_filter(program, C.X86_64_IOCTL, (0, C.TIOCSTI)) == EPERM
    assert run_filter(program, C.X86_64_IOCTL, (0, 0x5401)) == C.RET_ALLOW  # TCGETS


@pytest.mark.parametrize("name", sorted(C.X86_64_SELF_ONLY))
def test_process_arguments_must_name_this_process(program, name: str) -> None:
    nr = C.X86_64_SELF_ONLY[name]
    assert run_filter(program, nr, (PID,)) == C.RET_ALLOW
    assert run_filter(program, nr, (0,)) == C.RET_ALLOW
    for other in (1, PID + 1, PID | (1 << 32), (1 << 64) - 1):
        assert run_filter(program, nr, (other,)) == EPERM, other
