"""The system calls an agent's sandbox refuses: a seccomp filter built with libseccomp (the library
Flatpak, systemd and Docker use), exported as the BPF program bubblewrap's `--seccomp FD` loads
(runtime/jail.py). Namespaces already take the network and the host's files away; the filter
closes what they leave open:

- `socket()` of every family fails (EACCES): no Unix socket reaches a host socket by its path,
  whatever a mount may show, and no netlink. `socketpair()` stays: it connects a process with
  itself (the rules oracle's channels, pipes of multiprocessing).
- No new namespaces (unshare, setns, clone with a CLONE_NEW* flag; clone3 answers ENOSYS, so the
  C library falls back to clone, whose flags the filter can read), no mounts of any kind: the world
  bubblewrap built stays the world.
- No reading or writing another process's memory (ptrace, process_vm_readv/writev, pidfd_getfd):
  the rules oracle of --isolate-rules shares the agent's sandbox, and holds the rules.
- No terminal injection (ioctl TIOCSTI, TIOCLINUX), no io_uring (it can open sockets without the
  socket() call), and nothing of the kernel's administration (keyrings, BPF, perf events,
  userfaultfd, modules, clocks, swap, reboot, the kernel log, file handles by number).

Anything else is allowed (the default action): the filter denies by name, as Flatpak's does, so an
agent's ordinary Python, numpy or threads never meet it. A refused call fails with an error the
agent can read (EPERM or EACCES). The one kill is libseccomp's for a call of another architecture
(the 32-bit `int 0x80` calls, x32): the filter's rules could not be read for those numbers, so
such a call ends the process (SIGSYS) instead of reaching the kernel.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

from ..gdl.diagnostics import LudicaError

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7

# clone()'s namespace flags (CLONE_NEWTIME exists only for unshare and clone3, both refused whole:
# in clone's flags its bit belongs to the exit signal)
CLONE_NEW = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
             "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000}
TIOCSTI, TIOCLINUX = 0x5412, 0x541C

# (system call, errno, why) for calls refused whatever their arguments
REFUSED = (
    ("socket", errno.EACCES, "network and host sockets"),
    ("io_uring_setup", errno.EPERM, "io_uring opens sockets without socket()"),
    ("io_uring_enter", errno.EPERM, "io_uring"),
    ("io_uring_register", errno.EPERM, "io_uring"),
    ("unshare", errno.EPERM, "new namespaces"),
    ("setns", errno.EPERM, "other namespaces"),
    ("clone3", errno.ENOSYS, "flags out of reach of the filter: the C library falls back to clone"),
    ("mount", errno.EPERM, "mounts"), ("umount2", errno.EPERM, "mounts"), ("pivot_root", errno.EPERM, "mounts"),
    ("chroot", errno.EPERM, "mounts"), ("open_tree", errno.EPERM, "mounts"), ("move_mount", errno.EPERM, "mounts"),
    ("fsopen", errno.EPERM, "mounts"), ("fsconfig", errno.EPERM, "mounts"), ("fsmount", errno.EPERM, "mounts"),
    ("fspick", errno.EPERM, "mounts"), ("mount_setattr", errno.EPERM, "mounts"),
    ("ptrace", errno.EPERM, "other processes' memory"),
    ("process_vm_readv", errno.EPERM, "other processes' memory"),
    ("process_vm_writev", errno.EPERM, "other processes' memory"),
    ("pidfd_getfd", errno.EPERM, "other processes' files"),
    ("name_to_handle_at", errno.EPERM, "files by handle"), ("open_by_handle_at", errno.EPERM, "files by handle"),
    ("keyctl", errno.EPERM, "kernel keyrings"), ("add_key", errno.EPERM, "kernel keyrings"),
    ("request_key", errno.EPERM, "kernel keyrings"),
    ("bpf", errno.EPERM, "kernel programs"), ("perf_event_open", errno.EPERM, "performance counters"),
    ("userfaultfd", errno.EPERM, "page-fault handlers"),
    ("syslog", errno.EPERM, "the kernel log"), ("acct", errno.EPERM, "administration"),
    ("quotactl", errno.EPERM, "administration"), ("swapon", errno.EPERM, "administration"),
    ("swapoff", errno.EPERM, "administration"), ("reboot", errno.EPERM, "administration"),
    ("kexec_load", errno.EPERM, "administration"), ("kexec_file_load", errno.EPERM, "administration"),
    ("init_module", errno.EPERM, "kernel modules"), ("finit_module", errno.EPERM, "kernel modules"),
    ("delete_module", errno.EPERM, "kernel modules"),
    ("settimeofday", errno.EPERM, "the clock"), ("clock_settime", errno.EPERM, "the clock"),
    ("clock_adjtime", errno.EPERM, "the clock"), ("adjtimex", errno.EPERM, "the clock"),
    ("iopl", errno.EPERM, "hardware ports"), ("ioperm", errno.EPERM, "hardware ports"),
    ("uselib", errno.EPERM, "obsolete"), ("personality", errno.EPERM, "execution domains"),
    ("vhangup", errno.EPERM, "terminals"), ("fanotify_init", errno.EPERM, "watching the file system"),
)


class SeccompUnavailable(LudicaError, RuntimeError):
    """libseccomp cannot be loaded, or it refused the filter."""


def _errno_action(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)  # SCMP_ACT_ERRNO(number)


class _Compare(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


@functools.lru_cache(maxsize=1)
def _library():
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as err:
        raise SeccompUnavailable(f"libseccomp is not installed ({err}): install it (Debian, Ubuntu: apt-get "
                                 "install libseccomp2; Fedora: dnf install libseccomp)") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_Compare)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def _rule(lib, ctx, action: int, name: str, *compares: tuple[int, int, int]) -> bool:
    """Add a rule for `name` (False: this machine has no such call); compares: (arg, mask, value)."""
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        return False
    array = (_Compare * max(1, len(compares)))(*(_Compare(a, SCMP_CMP_MASKED_EQ, m, v) for a, m, v in compares))
    status = lib.seccomp_rule_add_array(ctx, action, number, len(compares), array)
    if status < 0:
        raise SeccompUnavailable(f"libseccomp refused the rule for {name}: {os.strerror(-status)}")
    return True


@functools.lru_cache(maxsize=1)
def program() -> bytes:
    """The filter as a BPF program (what `bwrap --seccomp FD` reads), built once per process."""
    lib = _library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("libseccomp could not start a filter")
    try:
        for name, number, _ in REFUSED:
            _rule(lib, ctx, _errno_action(number), name)
        for flag in CLONE_NEW.values():  # clone(flags, ...): refused when any namespace flag is set
            _rule(lib, ctx, _errno_action(errno.EPERM), "clone", (0, flag, flag))
        for request in (TIOCSTI, TIOCLINUX):  # the request is an int: compare its low 32 bits only
            _rule(lib, ctx, _errno_action(errno.EPERM), "ioctl", (1, 0xFFFFFFFF, request))
        fd = os.memfd_create("ludica-seccomp")  # a pipe could fill up before it is read
        try:
            status = lib.seccomp_export_bpf(ctx, fd)
            if status < 0:
                raise SeccompUnavailable(f"libseccomp could not export the filter: {os.strerror(-status)}")
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


def summary() -> str:
    """What the filter refuses, in a line (for the record of what an agent was given)."""
    return ("seccomp: socket() (every family), new namespaces, mounts, ptrace and other processes' memory, "
            "io_uring, terminal injection (TIOCSTI, TIOCLINUX), keyrings, BPF, perf events, userfaultfd, kernel "
            "administration refused; everything else allowed")
