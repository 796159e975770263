"""What an agent's processes use, read from outside: the referee's clock.

Where the agent has control groups (runtime/cgroups.py), the kernel counts: its processes are
the group's and its CPU time the group's usage, exact whatever the processes did. Otherwise it is
read from /proc, as follows.

An agent is its worker process and every process descended from it, plus any process left in the
worker's session (a process whose parent died is adopted by the PID namespace's first process
when the agent has one, so it stays a descendant; without namespaces it is found by its session).
Its CPU time is the user + system time of every such live process, plus the time of the children
they have reaped (the kernel adds those to the parent's cutime/cstime), in clock ticks (10 ms).
"""
from __future__ import annotations

import os
import time

from .cgroups import proc_stat

TICK = 1.0 / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, int, int, bool] | None:
    """(parent, session, CPU ticks including reaped children, whether it is a zombie) of a
    process, None if it is gone."""
    fields = proc_stat(pid)
    if fields is None:
        return None
    # fields[0] is field 3 of proc(5): state; ppid is field 4, session 6, utime..cstime 14..17
    ppid, session = int(fields[1]), int(fields[3])
    ticks = int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return ppid, session, ticks, fields[0] == b"Z"


class ProcessTree:
    """The processes of one agent, rooted at its worker. Listing /proc costs milliseconds, so
    `members` lists it again only every RESCAN seconds (or when asked) and otherwise reads the
    processes it knows; a process born and reaped in between is counted in its parent's time."""

    RESCAN = 0.1

    def __init__(self, root: int, group=None):
        self.root, self.group = root, group
        self._known: dict[int, int] = {}
        self._scanned = -1.0
        self.zombies: set[int] = set()  # dead, not yet reaped: counted for time, not killed

    def _scan(self) -> dict[int, int]:
        table: dict[int, tuple[int, int, int, bool]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                st = _stat(int(name))
                if st is not None:
                    table[int(name)] = st
        children: dict[int, list[int]] = {}
        for pid, (ppid, *_) in table.items():
            children.setdefault(ppid, []).append(pid)
        found, todo = set(), [self.root] + [p for p, (_, sid, *_) in table.items() if sid == self.root]
        while todo:
            pid = todo.pop()
            if pid in found or pid not in table:
                continue
            found.add(pid)
            todo.extend(children.get(pid, ()))
        self.zombies = {pid for pid in found if table[pid][3]}
        return {pid: table[pid][2] for pid in found}

    def _read(self, pids, zombies: set[int]) -> dict[int, int]:
        """pid → CPU ticks of those of `pids` still there; adds the zombies among them to `zombies`."""
        found = {}
        for pid in pids:
            st = _stat(pid)
            if st is not None:
                found[pid] = st[2]
                if st[3]:
                    zombies.add(pid)
        return found

    def members(self, rescan: bool = False) -> dict[int, int]:
        """pid → CPU ticks of every process of the agent."""
        if self.group is not None:
            self.zombies = set()
            self._known = self._read(self.group.pids(), self.zombies)
            return self._known
        now = time.monotonic()
        if rescan or now - self._scanned >= self.RESCAN:
            self._known, self._scanned = self._scan(), now
        else:
            self._known = self._read(self._known, self.zombies)
        return self._known

    def cpu_seconds(self, members: dict[int, int] | None = None) -> float:
        if self.group is not None:
            return self.group.cpu_seconds()
        return sum((self.members() if members is None else members).values()) * TICK
