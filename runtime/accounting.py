"""What an agent's processes use, read from outside: the referee's clock.

Where the agent has control groups (runtime/cgroups.py), the kernel counts: its processes are
the group's and its CPU time the group's usage, exact whatever the processes did. Otherwise it is
read from /proc, as follows.

An agent is its worker process and every process descended from it, plus any process left in the
worker's session (a process whose parent died is adopted by the PID namespace's first process
when the agent has one, so it stays a descendant; without namespaces it is found by its session).
Its CPU time is the user + system time of every such live process, plus the time of the children
they have reaped (the kernel adds those to the parent's cutime/cstime), in clock ticks (10 ms).

`Idle` measures, for the backstop against agents that never answer, the real time in which no thread of the agent ran
or waited for a CPU: the kernel's per-thread run and run-queue wait times (/proc/PID/task/TID/
schedstat, nanoseconds). Time an agent spends waiting for a CPU on a busy machine is busy time,
never held against it, and so is time blocked on the disk, up to DISK_WAIT a stage; only sleeping is idle.
"""
from __future__ import annotations

import os
import time

from .cgroups import proc_stat, read_small

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
    return ppid, session, ticks, fields[0] == b"Z" and _ended(pid)


def _ended(pid: int) -> bool:
    """Whether every thread of a process whose first thread is a zombie has ended too: a first
    thread that exits alone (the exit system call, not exit_group) shows the process as a zombie
    while its other threads run on, and such a process must still be stopped, charged, counted
    and killed like any other."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tasks:
        try:
            text = read_small(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue  # that thread is gone
        if text[text.rindex(b")") + 2:][:1] not in (b"Z", b"X"):
            return False
    return True


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


RUNNABLE, BLOCKED = b"R", b"D"  # thread states (proc(5)): running or waiting for a CPU; blocked in the kernel
DISK_WAIT = 30.0  # seconds, per agent and stage, in which a blocked thread (disk, page faults) keeps the agent busy


def _busy_ns(pid: int) -> tuple[int, set[bytes]]:
    """Run time plus run-queue wait of every thread of process `pid` (0 if it is gone), and the
    states its threads are in now. The kernel adds a wait to a thread's count only when the thread
    next gets a CPU: on a busy machine a thread can wait longer than a poll, and only its state
    says meanwhile that it is waiting, not idle."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0, set()
    total, states = 0, set()
    for tid in tasks:
        try:
            fields = read_small(f"/proc/{pid}/task/{tid}/schedstat").split()
            total += int(fields[0]) + int(fields[1])
            text = read_small(f"/proc/{pid}/task/{tid}/stat")
            states.add(text[text.rindex(b")") + 2:][:1])
        except (OSError, IndexError, ValueError):
            pass  # the thread ended
    return total, states


def _schedstat_works() -> bool:
    """Whether this kernel keeps per-thread run and wait times (CONFIG_SCHED_INFO)."""
    try:
        run = int(read_small("/proc/self/schedstat").split()[0])
    except (OSError, IndexError, ValueError):
        return False
    return run > 0


SCHEDSTAT = _schedstat_works()


class Idle:
    """Real time in which no thread of the agent ran or was runnable, summed over the intervals
    between `update`s: an interval at whose end a thread of the agent is runnable is busy;
    otherwise it counts as idle for its length less the busy time (run + wait) of the agent's
    threads in it, never less than 0. Several threads busy at once cannot bank busy time for a
    later interval. An interval at whose end a thread is blocked in the kernel (state D: reading
    the disk, a page fault) is most likely the machine's wait, not the agent's: it counts as
    `blocked`, not idle, up to `allowance` seconds (beside six CPU burners and a disk-heavy job, an
    agent lost a game after 2.8 s in which it used 0.03 s of CPU). The allowance is the agent's for a
    whole stage (DISK_WAIT, its worker's): an agent can put a thread in state D on purpose (vfork
    waits there), and that buys it at most DISK_WAIT seconds of the referee's time per stage. Where
    the kernel keeps no such times (SCHEDSTAT false), every second of real time counts (the backstop
    is then a plain wall clock)."""

    def __init__(self, tree: ProcessTree, allowance: float = DISK_WAIT):
        self.tree = tree
        self.seconds = 0.0
        self.blocked = 0.0
        self.allowance = allowance
        self._at = time.monotonic()
        self._busy: int | None = None  # read at the first update: a quick answer costs no reading

    def update(self, members=None) -> float:
        """The idle seconds so far (the time before the first update is never idle)."""
        now = time.monotonic()
        if not SCHEDSTAT:
            self.seconds += now - self._at
            self._at = now
            return self.seconds
        pids = self.tree.members() if members is None else members
        counts = [_busy_ns(pid) for pid in pids]
        busy, states = sum(n for n, _ in counts), set().union(*(s for _, s in counts))
        if self._busy is not None and RUNNABLE not in states:
            gap = max(0.0, (now - self._at) - max(0, busy - self._busy) / 1e9)
            kept = min(gap, max(0.0, self.allowance - self.blocked)) if BLOCKED in states else 0.0
            self.blocked += kept
            self.seconds += gap - kept
        self._at, self._busy = now, busy
        return self.seconds
