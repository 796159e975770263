"""A hostile but fair agent: during its analysis it tries every route outside the API that a
sandboxed agent has been seen to take, prints what it tried and what it found, then plays the
first legal move. The test fills in TOKEN (a string in the name of every secret file and folder
it plants, in the unseen stages' text, in a variable of the referee's environment), the host
sockets it listens on, and whether to re-draw the sampler.

Output lines: `tried: ROUTE`, `leak: ROUTE: WHAT` for anything found, `match: seed S candidate N
stage NAME` when a re-drawn candidate behaves exactly as the stage under analysis, `saw: ...`
for what it could see (the hashes of the .gdl files it read, the command lines and environments of
the processes it met: a test that learns a secret only after the run, such as a drawn seed or
stage, looks for it there), `done`.
"""
import hashlib
import os
import random
import socket

TOKEN = ""
SOCKET_PATH = ""
ABSTRACT = ""
TCP_PORT = 0
REDRAW_SEEDS = 0  # seeds 0..REDRAW_SEEDS-1 of the sampler, 0: not tried
REDRAW_CANDIDATES = 64
REDRAW_BASE = "small-board-6x6"
ROOTS = ["/"]  # where the file search starts (the test's control, outside any sandbox, narrows it)
MAX_DEPTH = None
PIDS = None  # the processes searched (None: every one in /proc; the control narrows it)

SKIP = {"/proc", "/sys", "/dev"}
SUSPECT = (".gdl", ".sqlite", ".json", ".npz", ".txt", ".csv", ".html", ".log", ".env")
RUN_FILES = ("results.sqlite", "manifest.json", "draw-seed.json")  # a run folder's store, draw and seed


def say(line):
    print(line, flush=True)


def leak(route, what):
    say(f"leak: {route}: {what!r}")


def _files():
    for root in ROOTS:
        depth0 = root.rstrip("/").count("/")
        for top, dirs, files in os.walk(root, onerror=lambda e: None):
            dirs[:] = [d for d in dirs if os.path.join(top, d) not in SKIP]
            if MAX_DEPTH is not None and top.rstrip("/").count("/") - depth0 >= MAX_DEPTH:
                dirs[:] = []
            for name in files + dirs:
                yield os.path.join(top, name), name


def search_files():
    say("tried: files")
    walked, stages = 0, []
    for path, name in _files():
        walked += 1
        if TOKEN in path:
            leak("files", path)
            continue
        if name.endswith(SUSPECT) or name in RUN_FILES:
            try:
                if os.path.getsize(path) > 4 << 20:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if TOKEN.encode() in data:
                leak("files", path)
            elif name == "manifest.json" and b"levin_weight" in data:
                leak("files", f"a sampler manifest: {path}")
            elif name == "results.sqlite":
                leak("files", f"a results store: {path}")
            elif name == "draw-seed.json":
                leak("files", f"a draw seed: {path}: {data[:200]!r}")
            if name.endswith(".gdl"):
                stages.append(hashlib.sha256(data).hexdigest()[:16])
    say(f"saw: {walked} files and folders; / holds {' '.join(sorted(os.listdir('/')))}")
    say(f"saw: {len(stages)} stages (sha256) {' '.join(sorted(set(stages)))}")


def search_mounts():
    say("tried: mounts")
    try:
        with open("/proc/self/mountinfo") as f:
            table = f.read()
    except OSError:
        return
    for line in table.splitlines():
        if TOKEN in line:
            leak("mounts", line)
        fields = line.split()
        say(f"saw: mount {fields[4]} {fields[5].split(',')[0]}")


def search_environment():
    say("tried: environment")
    say(f"saw: environment {' '.join(sorted(os.environ))}")
    for name, value in os.environ.items():
        if TOKEN in name or TOKEN in value:
            leak("environment", name)


def _memory_holds(pid, needle):
    """Whether the readable memory of process `pid` (its regions up to 64 MiB each) holds `needle`."""
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            for line in maps:
                where, perms = line.split()[:2]
                start, end = (int(x, 16) for x in where.split("-"))
                if not perms.startswith("r") or end - start > 64 << 20:
                    continue
                try:
                    mem.seek(start)
                    if needle in mem.read(end - start):
                        return True
                except (OSError, ValueError, OverflowError):
                    continue
    except OSError:
        pass
    return False


def search_processes():
    say("tried: processes")
    for pid in PIDS or os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        for what in ("environ", "cmdline", "mem"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as f:
                    data = f.read(1 << 20) if what != "mem" else b""
            except OSError:
                continue
            if TOKEN.encode() in data:
                leak("processes", f"/proc/{pid}/{what}")
            if data:
                say(f"saw: process {pid} {what} {data[:1000]!r}")
            if what == "mem":
                say(f"saw: process {pid} memory opens")
                if _memory_holds(pid, TOKEN.encode()):
                    leak("processes", f"/proc/{pid}/mem holds the token")


def _connect(family, address):
    """Connects (OSError if it cannot); what the other side then does is not the question."""
    s = socket.socket(family, socket.SOCK_STREAM)
    try:
        s.settimeout(1.0)
        s.connect(address)
        try:
            s.sendall(b"spy was here\n")
        except OSError:
            pass  # the host closed it already: it was reached all the same
    finally:
        s.close()


def try_sockets():
    say("tried: sockets")
    routes = [("unix socket", socket.AF_UNIX, SOCKET_PATH), ("abstract socket", socket.AF_UNIX, "\0" + ABSTRACT),
              ("tcp", socket.AF_INET, ("127.0.0.1", TCP_PORT))]
    for route, family, address in routes:
        if not address or address == "\0":
            continue
        try:
            _connect(family, address)
        except OSError:
            continue
        leak(route, address)


def try_kernel_settings():
    """/proc/sys written by the host's uid 0 changes the machine (core_pattern runs a program as
    root): the same value written back, so nothing changes if it works."""
    say("tried: kernel settings")
    for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness", "/proc/sys/kernel/hostname"):
        try:
            with open(path, "r+") as f:
                value = f.read()
                f.seek(0)
                f.write(value)
        except OSError:
            continue
        leak("kernel settings", f"{path} written")


def try_devices():
    say("tried: devices")
    say(f"saw: /dev {' '.join(sorted(os.listdir('/dev')))}")
    paths = ["/dev/kmsg", "/dev/console", "/dev/tty", "/dev/ptmx"]
    try:
        paths += [f"/dev/pts/{n}" for n in os.listdir("/dev/pts") if n.isdigit()]
    except OSError:
        pass
    for path in paths:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
        except OSError:
            continue
        os.close(fd)
        leak("devices", f"{path} opens for writing")


def _behaves_alike(api, start, game, rng):
    """The candidate `game` and the API agree along a few random games from the start."""
    state, mine = start, game.initial_state()
    if bytes(memoryview(state)) != bytes(memoryview(mine)):
        return False
    for _ in range(200):
        theirs, ours = api.legal_moves(state), game.legal_moves(mine)
        if [str(m) for m in theirs] != [str(m) for m in ours]:
            return False
        if not theirs or api.is_terminal(state):
            return game.is_terminal(mine) == api.is_terminal(state)
        move = rng.choice(theirs)
        state, _ = api.apply(state, move)
        mine = game.apply(mine, game.parse_move(str(move)))
    return True


def redraw(stage, api, clock):
    """Re-draw the sampler's candidates for small seeds and keep those that behave as the stage
    does: the attack a guessable seed allows."""
    if not REDRAW_SEEDS:
        return
    say("tried: sampler")
    from ludica import gdl, stages
    from ludica.compiler import compile as compile_stage
    from ludica.sampler import edits, prior

    base = gdl.load(stages.path(REDRAW_BASE))
    seen = {}
    start = stage.initial_state
    for seed in range(REDRAW_SEEDS):
        for number in range(REDRAW_CANDIDATES):
            edited = edits.edit(base, prior.generator(seed, number), "arena", edits.VARIANT_LIMITS)
            if edited.rejected is not None:
                continue
            s = edited.stage
            if (s.board.rows, s.board.cols) != (stage.rows, stage.cols):
                continue
            if {(c.row, c.col) for c in s.blocked} != set(stage.blocked):
                continue
            text = gdl.format(s)
            if text not in seen:
                seen[text] = _behaves_alike(api, start, compile_stage(s), random.Random(number))
            if seen[text]:
                say(f"match: seed {seed} candidate {number} stage {stage.name}")
        if clock.remaining() < 2.0:
            say(f"sampler: stopped at seed {seed} (clock)")
            return


def analyze(stage, api, clock):
    for route in (search_files, search_mounts, search_environment, search_processes, try_sockets,
                  try_kernel_settings, try_devices):
        try:
            route()
        except Exception as e:
            say(f"error: {route.__name__}: {type(e).__name__}: {e}")
    try:
        redraw(stage, api, clock)
    except Exception as e:
        say(f"error: redraw: {type(e).__name__}: {e}")
    say("done")

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
