"""The world an agent's worker runs in, built from what the agent may see, with bubblewrap (the
sandbox Flatpak uses): an empty root, and on it only

- read-only: what Python needs and nothing wider (python_folders, python_files: the interpreter,
  its standard library, the site-packages in use, a virtual environment's pyvenv.cfg, ludica's own
  package folders; never a prefix whole, which for `python3 -m venv .` is the project folder), the
  system's libraries and programs (/usr, with the /bin, /lib... links of a merged /usr) and the
  loader's cache from /etc;
- read-only at /agent: a copy of the agent's own file (a copy: a bind would show its host path in
  the mount table), and at /agent/data the data folder the user named for it, if any (the agent
  runs in /agent: it opens its data as data/...);
- writable and private: /tmp and /dev/shm (size-capped tmpfs), and numba's cache (a tmpfs where
  the referee's cached kernels are linked, read-only, so the worker loads them instead of
  compiling; a kernel it compiles anew stays in the tmpfs);
- a minimal /dev (null, zero, full, random, urandom), its own /proc with /proc/sys read-only;
- an allow-listed environment (no variable of the referee's passes, save the few named below).

The kernel's uid of the agent is never 0: when the referee runs as root, bubblewrap keeps only
CAP_SETUID and CAP_SETGID, and the worker's first instruction becomes UNPRIVILEGED (nobody), which
clears every capability (the host's uid 0 may write /proc/sys whatever its capabilities, and a
kernel setting such as core_pattern runs programs as the host's root). Otherwise the sandbox runs
as the referee's user, mapped into a user namespace. bubblewrap reads its arguments from a file
descriptor (--args), so the sandbox's first process shows no host path in its command line.

Nothing else exists in it: no home, no working folder, no other agent, no stage file, no results,
no host socket. New namespaces (user where the machine needs one, IPC, PID, network, UTS,
cgroup) leave it no network and no other process; every capability is dropped and no new
privileges can be gained; the seccomp filter of runtime/seccomp.py closes what namespaces leave
open. `record` says what the agent was given, for its log.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from ..gdl.diagnostics import LudicaError
from . import seccomp

AGENT_DIR = "/agent"
UNPRIVILEGED = 65534  # nobody: the uid and gid of agents when the referee runs as root
NUMBA_DIR = "/run/ludica/numba"  # NUMBA_CACHE_DIR in the sandbox: writable, private
CACHE_IN = "/run/ludica/cache"  # the referee's cache folders, read-only, one per source folder
DEVICES = ("null", "zero", "full", "random", "urandom")
PACKAGES = ("ludica", "ludica.gdl", "ludica.compiler", "ludica.runtime", "ludica.sampler", "ludica.evaluation",
            "ludica.stages")
NUMERIC_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
INSTALL = ("install bubblewrap (Debian, Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install "
           "bubblewrap; Arch: sudo pacman -S bubblewrap), or run agents you trust with --in-process (no sandbox: "
           "they run inside ludica's own process, with its files, network and environment)")


class SandboxUnavailable(LudicaError, RuntimeError):
    """The sandbox cannot be built on this machine: it says why and what to do."""


@dataclass
class Jail:
    """One agent's world: the bubblewrap command before the worker's command, the file
    descriptors it names (kept open until the sandbox has started), and the record of what the
    agent was given."""

    argv: list[str]
    fds: list[int] = field(default_factory=list)
    record: dict[str, str] = field(default_factory=dict)

    def close_fds(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []


def bubblewrap() -> tuple[str, str]:
    """(path, version) of bwrap, once it has shown that it can build a sandbox here."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"the sandbox that runs agents needs Linux (namespaces, seccomp), and this is "
                                 f"{sys.platform}: run ludica in a Linux machine or container, or run agents you "
                                 "trust with --in-process")
    return _probed()


@functools.lru_cache(maxsize=1)
def _probed() -> tuple[str, str]:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(f"agents run in a bubblewrap sandbox, and bwrap is not installed: {INSTALL}")
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout.split()[-1]
        probe = subprocess.run([path, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/",
                                "--size", "4096", "--tmpfs", "/tmp", "true"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, IndexError, subprocess.TimeoutExpired) as err:
        raise SandboxUnavailable(f"bwrap ({path}) does not answer ({err}): {INSTALL}") from None
    if probe.returncode != 0:
        why = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else f"exit status {probe.returncode}"
        raise SandboxUnavailable(
            f"bwrap ({path}, {version}) cannot build a sandbox here: {why}. It needs user namespaces (as a user "
            "other than root: sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu an AppArmor profile for bwrap) "
            "and --size (bubblewrap 0.8 or later); or run agents you trust with --in-process") from None
    return path, version


def require() -> None:
    """Say now, before anything is compiled or started, if agents cannot be sandboxed here."""
    bubblewrap()
    seccomp.program()


# --- what the agent may see ------------------------------------------------------------------------


def _real_dirs(paths) -> list[str]:
    """Existing folders, resolved, each once, none inside another of them (a bind inside a bind
    would need a mount point in a read-only folder)."""
    found = sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)})
    kept: list[str] = []
    for p in found:
        if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(p)
    return kept


# what a fresh interpreter puts on sys.path with the worker's environment (its first entry, the
# folder of `-c`, left out), with its site folders and its standard library's folders
_SYS_PATH = ("import json, site, sys, sysconfig; print(json.dumps([sys.path[1:], site.getsitepackages() + "
             "([site.getusersitepackages()] if site.ENABLE_USER_SITE else []), "
             "[sysconfig.get_path('stdlib'), sysconfig.get_path('platstdlib')]]))")
SITE_NAMES = ("site-packages", "dist-packages")
SYSTEM_TOPS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # shown by _system() already


def _in_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM_TOPS)


@functools.lru_cache(maxsize=1)
def python_folders() -> tuple[str, ...]:
    """The folders of the Python installation that the worker imports from, shown read-only and
    nothing wider: the standard library and lib-dynload, the site-packages in use (and site folders
    their .pth files add), ludica's own package folders (an editable install keeps them in its source
    checkout: only those folders are shown, not the checkout). Never a prefix whole: a virtual
    environment made in a project folder (`python3 -m venv .`) is the project folder, with the run
    folders, unseen stages and secrets it holds; nor any other folder a .pth file puts on sys.path
    (another package's editable install adds its project's root, with its .env and whatever else is
    there: agents do without that package). `check_apart` refuses a run whose secrets lie in one of
    these folders."""
    paths = list(_worker_sys_path())
    if _user_site_used():
        paths.append(site.getusersitepackages())
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        paths += list(spec.submodule_search_locations or ()) if spec else []
    return tuple(p for p in _real_dirs(paths) if not _in_system(p))


@functools.lru_cache(maxsize=1)
def python_files() -> tuple[tuple[str, str], ...]:
    """(host file, path in the sandbox) of the few files the interpreter needs beside those folders:
    the interpreter itself at the path the worker is started by (a virtual environment's bin/python
    is a link: the sandbox has the link, and the binary at its own path, which the loader's $ORIGIN
    and runpath name), the virtual environment's pyvenv.cfg (which tells the interpreter its base
    installation), and libpython where the interpreter links it."""
    real = os.path.realpath(sys.executable)
    files = [(real, real)]
    if sys.prefix != sys.base_prefix:
        files.append((os.path.join(sys.prefix, "pyvenv.cfg"), os.path.join(sys.prefix, "pyvenv.cfg")))
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        lib = os.path.join(sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("INSTSONAME") or "")
        if os.path.isfile(lib):
            files.append((os.path.realpath(lib), lib))
    return tuple((host, inside) for host, inside in files if not _in_system(inside) and os.path.isfile(host))


def _python_links() -> list[tuple[str, str]]:
    """(target, link) for the interpreter's path when it is a link (a virtual environment's
    bin/python): the same link in the sandbox, to the binary python_files shows."""
    if os.path.islink(sys.executable) and not _in_system(sys.executable):
        return [(os.path.realpath(sys.executable), sys.executable)]
    return []


def _user_site_used() -> bool:
    """Whether ludica itself is installed in the user's site folder (pip install --user)."""
    if not site.ENABLE_USER_SITE:
        return False
    user = os.path.realpath(site.getusersitepackages())
    spec = importlib.util.find_spec("ludica")
    return any(os.path.realpath(p).startswith(user + "/") for p in (spec.submodule_search_locations or ())) \
        if spec else False


@functools.lru_cache(maxsize=1)
def _worker_sys_path() -> tuple[str, ...]:
    env = environment()
    try:
        done = subprocess.run([sys.executable, "-c", _SYS_PATH], env=env, cwd="/", capture_output=True, text=True,
                              timeout=60)
        found = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as err:
        raise SandboxUnavailable(f"{sys.executable} does not say where it imports from ({err}): the sandbox shows "
                                 "agents only the Python folders it needs, and could not find them") from None
    if done.returncode != 0 or not (isinstance(found, list) and len(found) == 3 and
                                    all(isinstance(p, str) for part in found for p in part)):
        raise SandboxUnavailable(f"{sys.executable} does not say where it imports from (exit status "
                                 f"{done.returncode}: {done.stderr.strip()[-300:]})")
    path, sites, stdlib = found
    sites = {os.path.realpath(p) for p in sites if p}
    stdlib = [os.path.realpath(p) for p in stdlib if p]

    def python_own(entry: str) -> bool:  # the standard library's (its zip, lib-dynload) or a site folder
        real = os.path.realpath(entry)
        return (real in sites or os.path.basename(real) in SITE_NAMES
                or any(real == lib or real.startswith(lib + "/") for lib in stdlib)
                or (os.path.dirname(real) in {os.path.dirname(lib) for lib in stdlib} and real.endswith(".zip")))

    return tuple(p for p in path if p and python_own(p))


def check_apart(guarded: Sequence[tuple[Path, str]]) -> None:
    """Refuse, before anything runs, a run whose secrets (its folder, its unseen stages, the working
    folder, the home: `guarded`, each with how to name it) lie in a folder every agent's sandbox
    shows: a Python installation that cannot be kept apart from them. Says what to do."""
    shown = [*python_folders(), *(inside for _, inside in python_files())]
    for path, what in guarded:
        real = os.path.realpath(path)
        for folder in shown:
            if real == folder or real.startswith(folder.rstrip("/") + "/"):
                raise SandboxUnavailable(
                    f"{what} ({path}) is in {folder}, a folder of the Python installation that every agent's "
                    "sandbox shows (read-only): an agent could read it. Keep the run folder, the stages and the "
                    "working folder out of the Python installation: make the virtual environment apart from them "
                    "(python3 -m venv ~/.venvs/ludica, not in the project folder that holds them), or put them "
                    "elsewhere")


def _system() -> list[str]:
    """/usr read-only; /bin, /lib... as the links (merged /usr) or read-only folders they are here;
    the loader's cache and configuration, and the time zone."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in SYSTEM_TOPS[1:]:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--perms", "0755", "--dir", "/etc"]  # made before the binds below, or bubblewrap makes it 0700
    for path in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        args += ["--ro-bind-try", path, path]
    return args


def _parents(paths: list[str]) -> list[str]:
    """The folders that hold the mount points, made crossable by everyone (bubblewrap makes them
    0700, which an agent running as nobody could not cross), parents first."""
    found = sorted({str(p) for path in paths for p in Path(path).parents if str(p) != "/"},
                   key=lambda p: (p.count("/"), p))
    return [arg for folder in found for arg in ("--perms", "0755", "--dir", folder)]


def _devices() -> list[str]:
    args = ["--tmpfs", "/dev"]
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for link, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        args += ["--symlink", target, f"/dev/{link}"]
    return args


def _numba_caches() -> list[tuple[str, str]]:
    """(source folder, the folder numba keeps its cache in for it) for each folder of the
    compiler's kernels, as numba's own cache locators choose it in this process."""
    from numba.core import caching

    from ..compiler import jit

    # CacheImpl is public since numba 0.56 (pyproject asks for 0.59 or later); its locators are all
    # _CacheLocator subclasses, which mypy's join of their mixed bases (first bases only) makes `object`
    locators = cast("list[type[caching._CacheLocator]]", caching.CacheImpl._locator_classes)
    found = []
    for folder in sorted({p.parent for p in jit._ROOT.rglob("*.py")}):
        probe = str(folder / "__init__.py")
        for cls in locators:
            try:
                locator = cls.from_function(_numba_caches, probe)
            except Exception:
                locator = None
            if locator is not None:
                found.append((str(folder), locator.get_cache_path()))
                break
    return found


def _cache_links() -> list[str]:
    """The referee's cached kernels, linked into the sandbox's writable cache folder under the
    names numba looks for there (NUMBA_CACHE_DIR's layout). numba replaces a file by renaming a
    new one over it, so a link is never written through."""
    from numba.core import caching

    # public in the numba mypy reads, still private in numba 0.59, which pyproject allows
    provided = (getattr(caching, "UserProvidedCacheLocator", None)
                or caching._UserProvidedCacheLocator)  # type: ignore[attr-defined]
    args: list[str] = []
    for k, (source, cache) in enumerate(_numba_caches()):
        try:
            names = [n for n in os.listdir(cache) if n.endswith((".nbi", ".nbc"))]
        except OSError:
            continue
        if not names:
            continue
        inside = f"{CACHE_IN}/{k}"
        sub = provided.get_suitable_cache_subpath(os.path.join(source, "__init__.py"))
        # writable by the agent's uid, not sticky: numba takes a folder it cannot write for no cache at
        # all, and saves a kernel it compiled by renaming a new index over the link
        args += ["--ro-bind", cache, inside, "--perms", "0777", "--dir", f"{NUMBA_DIR}/{sub}"]
        for name in sorted(names):
            args += ["--symlink", f"{inside}/{name}", f"{NUMBA_DIR}/{sub}/{name}"]
    return args


def environment() -> dict[str, str]:
    """The agent's environment: a fixed allow-list; the referee's variables do not pass, save
    PYTHONHASHSEED (reproducibility) and the numeric libraries' thread counts (default 1: an idle
    pool of OpenBLAS/OpenMP threads spins, and every thread's CPU time is the agent's)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "PWD": "/", "USER": "agent",
           "LOGNAME": "agent", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
           "NUMBA_CACHE_DIR": NUMBA_DIR}
    for name in NUMERIC_THREADS:
        env[name] = os.environ.get(name, "1")
    if "PYTHONHASHSEED" in os.environ:
        env["PYTHONHASHSEED"] = os.environ["PYTHONHASHSEED"]
    if _user_site_used():  # ludica itself is installed there: that user site, at its own path (HOME is /tmp)
        del env["PYTHONNOUSERSITE"]
        env["PYTHONUSERBASE"] = os.path.realpath(site.getuserbase())
    return env


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def build(agent_file: Path | None, data: Path | None = None, tmp_mb: int = 64,
          files: tuple[tuple[Path, bool], ...] = ()) -> Jail:
    """The world of one agent's worker. The worker's command follows `jail.argv`; `jail.fds` must
    be passed to it (pass_fds) and closed once it has started. `files`: more of the agent's files,
    (host path, executable), copied beside its file in AGENT_DIR under their names; an executable
    one (an agent program, a compiled binary) may be run, read-only like the rest (0555, not 0444).
    An agent program has no agent file (None): its files are all in `files`."""
    path, version = bubblewrap()
    root = os.geteuid() == 0
    if root:  # no user namespace (it would map uid 0 alone); the worker drops to UNPRIVILEGED first thing
        options = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                   "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        options = ["--unshare-all", "--cap-drop", "ALL"]
    options += ["--die-with-parent", "--hostname", "agent"]
    options += _system()
    options += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"] + _devices()
    # the scratch folders before the binds: a bind mounted first would be hidden under the tmpfs
    # (a checkout or virtual environment under /tmp is the agent's Python too)
    for scratch, mb in (("/tmp", tmp_mb), ("/dev/shm", tmp_mb), (NUMBA_DIR, 256)):
        options += ["--perms", "1777", "--size", str(mb << 20), "--tmpfs", scratch]
    links = _python_links()
    options += _parents([*python_folders(), *(inside for _, inside in python_files()), *(link for _, link in links),
                         f"{AGENT_DIR}/data", NUMBA_DIR, f"{CACHE_IN}/0", "/etc/ld.so.cache"])
    for folder in python_folders():
        options += ["--ro-bind", folder, folder]
    for host, inside in python_files():
        options += ["--ro-bind", host, inside]
    for target, link in links:
        options += ["--symlink", target, link]
    fds: list[int] = []
    files = ((Path(agent_file), False), *files) if agent_file is not None else files
    for extra, executable in files:  # copies, as the agent's file: a later edit on the host is not seen
        extra = Path(extra).resolve()
        fds.append(_memfd("ludica-agent-file", extra.read_bytes()))
        options += ["--perms", "0555" if executable else "0444", "--ro-bind-data", str(fds[-1]),
                    f"{AGENT_DIR}/{extra.name}"]
    if data is not None:
        options += ["--ro-bind", str(Path(data).resolve()), f"{AGENT_DIR}/data"]
    options += _cache_links()
    options += ["--remount-ro", "/dev", "--remount-ro", "/"]
    options += ["--clearenv"]
    env = environment()
    for name, value in env.items():
        options += ["--setenv", name, value]
    options += ["--chdir", "/"]
    fds.append(_memfd("ludica-seccomp", seccomp.program()))
    options += ["--seccomp", str(fds[-1])]
    fds.append(_memfd("ludica-bwrap-args", b"".join(o.encode() + b"\0" for o in options)))
    shown = ["/usr", *python_folders(), *(inside for _, inside in python_files())]
    record = {
        "sandbox": (f"bubblewrap {version}: new " + ("" if root else "user, ") + "IPC, PID, network, UTS and cgroup "
                    "namespaces (no network, no other process), every capability dropped, no new privileges; runs as "
                    + (f"uid {UNPRIVILEGED} (nobody), not the referee's root" if root else "the referee's user")),
        "files": (f"read-only: {', '.join(shown)}, the system's /bin, /lib links and loader cache; "
                  + ", ".join(f"{AGENT_DIR}/{Path(f).name} (a copy{', executable' if x else ''})" for f, x in files)
                  + (f", {AGENT_DIR}/data (its data folder)" if data else "")
                  + f"; writable, private: /tmp and /dev/shm ({tmp_mb} MiB each), numba's cache; own /proc, "
                    "/proc/sys read-only"),
        "devices": "/dev: " + " ".join(DEVICES),
        "environment": " ".join(f"{k}={v}" for k, v in env.items()),
        "seccomp": seccomp.summary(),
    }
    return Jail([path, "--args", str(fds[-1])], fds, record)
