"""What a process in an agent's jail does for itself before any agent code runs: resource limits
(address space, 2 GiB by default; file size; open files; no core files) and death with its
parent. runtime/worker.py calls `lock_down` once the stage is compiled, before it reads the agent
file's code; the rules oracle (runtime/oracle/) calls it too.

Everything else is the jail's (runtime/jail.py, built by the referee before the worker's first
instruction): the namespaces, the files it may see, the dropped capabilities, the seccomp filter.
CPU time and the number of processes are watched by the referee from outside
(runtime/sandbox.py), which kills an agent that overruns; the kernel's process limit does not
bind root, the control groups' `pids.max` does.
"""
from __future__ import annotations

import ctypes
import resource
import signal

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4


def not_dumpable() -> None:
    """This process's memory out of reach of the agent's (same user) processes: /proc/PID/mem and
    ptrace need a dumpable process. For a process that holds the rules and runs no agent code (the
    rules oracle; the worker of an agent program)."""
    libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


DEFAULTS = {"memory_mb": 2048, "file_mb": 64, "open_files": 256, "processes": 64, "tmp_mb": 64}


def address_space_mb() -> int:
    """This process's address space now, in MiB (VmSize)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) >> 10
    return 0


def libc():
    return ctypes.CDLL(None, use_errno=True)


def _limit(name: str, value: int) -> None:
    kind = getattr(resource, name)
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def lock_down(settings: dict | None = None) -> dict[str, str]:
    """Set this process's limits (and so those of everything it starts). Returns what was done,
    for the log."""
    s = dict(DEFAULTS, **(settings or {}))
    libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _limit("RLIMIT_AS", s["memory_mb"] << 20)
    _limit("RLIMIT_FSIZE", s["file_mb"] << 20)
    _limit("RLIMIT_NOFILE", s["open_files"])
    _limit("RLIMIT_CORE", 0)
    return {"limits": (f"memory {s['memory_mb']} MiB, file size {s['file_mb']} MiB, {s['open_files']} open files; "
                       f"CPU time and {s['processes']} processes watched by the referee")}
