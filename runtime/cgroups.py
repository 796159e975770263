"""An agent's processes in kernel control groups, where the machine allows it (root, with cgroup
v1 controllers or cgroup v2 mounted): the kernel then counts the CPU time of every process the
agent ever ran, however short-lived or however it left the process tree (cpuacct.usage,
cpu.stat), lists its processes wherever they went (cgroup.procs), caps their number (pids.max, a
backstop against fork bombs: fork fails beyond it) and their memory together (memory.max, or v1's
memory.limit_in_bytes, under the referee's own memory group so a machine's or container's limit
still holds): pages no address-space limit sees, such as memfd or tmpfs files, count there, and
beyond the cap the kernel kills a process of the agent's, never one of the machine's. Where the
machine allows none of it, `create` returns None and runtime/accounting.py reads /proc.

The freezer is not used to stop an agent between turns: a frozen task cannot die, so a referee
killed while an agent is frozen would leave it frozen for ever; SIGSTOP'd tasks still die of the
SIGKILL their parent's death sends them.
"""
from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_names = itertools.count()
_sweeps = itertools.count()


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat from field 3 (the state) on, None if the process is gone (the
    name before them may hold spaces and parentheses)."""
    try:
        text = read_small(f"/proc/{pid}/stat")
    except OSError:
        return None
    return text[text.rindex(b")") + 2:].split()


def started(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot, /proc/PID/stat field 22), None if it is
    gone: with its pid, it names one process, whatever pids are reused since."""
    fields = proc_stat(pid)
    return None if fields is None else fields[19].decode()


def _memory_parent() -> Path:
    """The cgroup v1 memory group this process is in (its agents' groups go inside it)."""
    try:
        for line in read_small("/proc/self/cgroup").decode().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                return ROOT / "memory" / path.lstrip("/")
    except (OSError, ValueError):
        pass
    return ROOT / "memory"


def _sweep() -> None:
    """Remove the empty groups of referees that died without removing them (SIGKILL). A group is
    named ludica-PID-START-N after the referee that made it; its owner is gone when no process
    has that pid, or the one that has it started at another time (the pid was reused)."""
    for parent in (ROOT, ROOT / "cpuacct", ROOT / "pids", ROOT / "freezer", _memory_parent()):
        for d in parent.glob("ludica-*-*") if parent.is_dir() else ():
            parts = d.name.split("-")
            if not parts[1].isdigit():
                continue
            now = started(int(parts[1]))
            if now is None or (len(parts) == 4 and now != parts[2]):
                try:
                    d.rmdir()
                except OSError:
                    pass  # still holds processes: they die with their namespace, and a later sweep


def read_small(path: str) -> bytes:
    """The contents of a small kernel file (a /proc or cgroup file: one read is all of it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class AgentGroup:
    """cgroup directories of one agent: its CPU usage file, its processes, and a `pids` limit
    where the controller exists."""

    def __init__(self, dirs: list[Path], usage: Path, v2: bool):
        self.dirs, self.usage, self.v2 = dirs, usage, v2
        self.memory_bytes: int | None = None  # the cap on the agent's memory, where one was set
        # read on every move: plain strings and os.read (pathlib's read_text costs several times more)
        self._usage, self._procs = str(usage), str(dirs[0] / "cgroup.procs")

    @classmethod
    def create(cls, max_tasks: int, memory_bytes: int | None = None) -> AgentGroup | None:
        if next(_sweeps) == 0:
            _sweep()
        name = f"ludica-{os.getpid()}-{started(os.getpid())}-{next(_names)}"
        try:
            if (ROOT / "cgroup.controllers").exists():  # cgroup v2 mounted at the root
                d = ROOT / name
                d.mkdir()
                if (d / "pids.max").exists():
                    _write(d / "pids.max", str(max_tasks))
                group = cls([d], d / "cpu.stat", True)
                if memory_bytes is not None and (d / "memory.max").exists():
                    _write(d / "memory.max", str(memory_bytes))
                    if (d / "memory.swap.max").exists():  # no swap beyond it either
                        _write(d / "memory.swap.max", "0")
                    group.memory_bytes = memory_bytes
                return group
            if not (ROOT / "cpuacct" / "cpuacct.usage").exists():
                return None
            dirs = [ROOT / "cpuacct" / name]
            dirs[0].mkdir()
            if (ROOT / "pids" / "cgroup.procs").exists():
                (ROOT / "pids" / name).mkdir()
                _write(ROOT / "pids" / name / "pids.max", str(max_tasks))
                dirs.append(ROOT / "pids" / name)
            group = cls(dirs, dirs[0] / "cpuacct.usage", False)
        except OSError:
            return None
        parent = _memory_parent()
        if memory_bytes is not None and (parent / "memory.limit_in_bytes").exists():
            d = parent / name
            try:
                d.mkdir()
                group.dirs.append(d)
                _write(d / "memory.limit_in_bytes", str(memory_bytes))
                if (d / "memory.memsw.limit_in_bytes").exists():  # no swap beyond it either
                    _write(d / "memory.memsw.limit_in_bytes", str(memory_bytes))
                group.memory_bytes = memory_bytes
            except OSError:
                pass  # no memory cap here: the record says so
        return group

    def oom_kills(self) -> int:
        """How many of the agent's processes the kernel killed for reaching the memory cap."""
        for d in self.dirs:
            for name in ("memory.events", "memory.oom_control"):  # v2, v1
                try:
                    text = read_small(str(d / name))
                except OSError:
                    continue
                for line in text.splitlines():
                    key, _, value = line.partition(b" ")
                    if key == b"oom_kill":
                        return int(value)
        return 0

    def procs_files(self) -> list[str]:
        """The groups' cgroup.procs files: a process that writes its pid there joins the group."""
        return [str(d / "cgroup.procs") for d in self.dirs]

    def cpu_seconds(self) -> float:
        text = read_small(self._usage)
        if self.v2:
            for line in text.splitlines():
                key, _, value = line.partition(b" ")
                if key == b"usage_usec":
                    return int(value) / 1e6
            return 0.0
        return int(text) / 1e9

    def pids(self) -> set[int]:
        try:
            return {int(p) for p in read_small(self._procs).split()}
        except OSError:
            return set()

    def remove(self) -> None:
        """Delete the directories (once the processes are gone)."""
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
