"""How a worker locks itself down before it runs an agent's code (runtime/worker.py calls
`lock_down` once the stage is compiled, before it reads the agent file's code).

- Resource limits: address space (2 GiB by default), file size, open files, no core files. CPU
  time and the number of processes are watched by the referee from outside (runtime/sandbox.py),
  which kills an agent that overruns; the kernel's process limit does not bind root.
- Namespaces, where the machine allows them (as root, or with unprivileged user namespaces): a
  new network namespace with no interface (no network), a new PID namespace (the agent sees and
  can signal only its own processes; when its first process dies, the kernel kills them all), a
  new IPC namespace (no shared memory with the host), and a new mount namespace where every
  mount is read-only (the agent cannot change code, caches, results or anything else on the
  machine), with its own /proc, empty private /tmp, /var/tmp and /dev/shm, and the paths the
  referee asks to hide (the results folder, the agents' files) covered by empty ones. Then every
  capability is dropped (bounding set included) and no_new_privs is set, so the agent cannot undo
  any of it (it cannot remount or unmount). If the namespaces can be made but one of these steps
  fails, the worker refuses to run the agent (LockdownFailed) rather than run it half-protected.
- What stays possible: reading files that the worker's user may read and that are not hidden (the
  Python installation must stay readable); and the compiled rule tables are in the worker's
  memory, so an agent that digs into the runtime's internals instead of using the API could
  reconstruct the rules. The API hides the rules by contract, not by isolation.
- The worker dies with the referee (PR_SET_PDEATHSIG).

Where the machine does not allow namespaces, the steps are skipped and the report says so (the
referee logs it): the agent then runs as the referee's user in its own session, with its
limits, charged and killed from outside, but it could see the network and signal or read what
that user can (the README says so).
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 0x4000, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
_OPTION_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
                 "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
LAST_CAPABILITY = 63

DEFAULTS = {"memory_mb": 2048, "file_mb": 64, "open_files": 256, "processes": 64, "tmp_mb": 64}


class LockdownFailed(RuntimeError):
    """Namespaces could be made, but a protection inside them could not: the agent is not run."""


def libc():
    return ctypes.CDLL(None, use_errno=True)


def _limit(name: str, value: int) -> None:
    kind = getattr(resource, name)
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def _failed(what: str) -> str:
    return f"{what}: {os.strerror(ctypes.get_errno())}"


def _enter_namespaces(libc) -> str | None:
    """Unshare user (when not root), mount, PID and network namespaces. None if it worked, else why not."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
    if os.getuid() != 0:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(flags | CLONE_NEWUSER) != 0:
            return _failed("no namespaces (not root, and no user namespace)")
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"0 {uid} 1"),
                           ("/proc/self/gid_map", f"0 {gid} 1")):
            with open(path, "w") as f:
                f.write(text)
        return None
    if libc.unshare(flags) != 0:
        return _failed("no namespaces")
    return None


def _mount(libc, source: bytes, target: str, kind: bytes | None, flags: int, data: bytes | None = None) -> str | None:
    if libc.mount(source, target.encode(), kind, flags, data) != 0:
        return _failed(f"mount {target}")
    return None


def _mounts() -> list[tuple[str, int]]:
    """(mount point, flags to keep) of every mount this process sees, parents before children."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")  # spaces are written as \040
            flags = 0
            for option in fields[5].split(","):
                flags |= _OPTION_FLAGS.get(option, 0)
            found.append((point, flags))
    return found


def _private_filesystem(libc, hide: list[str], tmp_mb: int) -> list[str]:
    """In the new mount namespace: every mount read-only, then our own /proc, empty writable
    /tmp, /var/tmp and /dev/shm, and empty read-only mounts over `hide`."""
    problems = [_mount(libc, b"none", "/", None, MS_REC | MS_PRIVATE)]
    for point, keep in _mounts():
        if libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | keep, None) != 0:
            errno = ctypes.get_errno()
            if point == "/" or errno not in (2, 13):  # a mount we cannot reach (ENOENT, EACCES) is not ours to fear
                problems.append(f"read-only {point}: {os.strerror(errno)}")
    problems.append(_mount(libc, b"proc", "/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC))
    scratch = f"size={tmp_mb}m,mode=1777".encode()
    for path in ("/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(path):
            problems.append(_mount(libc, b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, scratch))
    for path in hide:
        if os.path.isdir(path):
            problems.append(_mount(libc, b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, b"size=4k,mode=0"))
        elif os.path.exists(path):
            problems.append(_mount(libc, b"/dev/null", path, None, MS_BIND))  # the file reads empty
    return [p for p in problems if p]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc) -> str | None:
    for cap in range(LAST_CAPABILITY + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # capabilities this kernel lacks just fail
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        return _failed("capabilities kept")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return None


def _become_init_of_namespace() -> None:
    """After unsharing the PID namespace, only children enter it: fork, and let this process wait
    for the child (pid 1 inside) and exit with its status; the child goes on as the worker."""
    child = os.fork()
    if child == 0:
        libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def lock_down(settings: dict | None = None, hide: list[str] = ()) -> dict[str, str]:
    """Lock this process down (and so everything it starts). Returns what was done, for the log."""
    s = dict(DEFAULTS, **(settings or {}))
    c = libc()
    report: dict[str, str] = {}
    c.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    why_not = _enter_namespaces(c)
    if why_not is None:
        _become_init_of_namespace()
        problems = _private_filesystem(c, list(hide), s["tmp_mb"])
        dropped = _drop_capabilities(c)
        if problems or dropped:
            raise LockdownFailed("the sandbox could not be completed: " + "; ".join(problems + [dropped or ""]).strip("; "))
        report["isolation"] = ("namespaces: no network, own processes and IPC, every mount read-only, own /proc, "
                               f"/tmp, /var/tmp and /dev/shm, {len(hide)} paths hidden; all capabilities dropped")
    else:
        dropped = _drop_capabilities(c)
        report["isolation"] = (f"none ({why_not}): the agent shares the network, processes and files of its user"
                               + ("" if dropped is None else f"; {dropped}"))
    _limit("RLIMIT_AS", s["memory_mb"] << 20)
    _limit("RLIMIT_FSIZE", s["file_mb"] << 20)
    _limit("RLIMIT_NOFILE", s["open_files"])
    _limit("RLIMIT_CORE", 0)
    report["limits"] = (f"memory {s['memory_mb']} MiB, file size {s['file_mb']} MiB, {s['open_files']} open files; "
                        f"CPU time and {s['processes']} processes watched by the referee")
    return report
