"""Looks for the stage's rules everywhere but the API: objects the garbage collector knows, every
thread's frames, every module's globals, its own memory (/proc/self/mem) and that of every other
process it can see. Prints one line, `found: gc=N frames=N modules=N memory=N others=N`, then plays
the first legal move.

The memory scan looks for a window of the compiled rule tables without ever holding it: the test
fills in PREFIX (the window's first bytes, hex) and DIGEST (the window's SHA-256) and the window's
LENGTH; a place that starts with the prefix counts if the bytes there hash to the digest (the
prefix alone, which this file holds, does not).
"""
import gc
import hashlib
import os
import sys

PREFIX = ""
DIGEST = ""
LENGTH = 0
RULE_TYPES = ("CompiledGame", "Program", "ReferenceGame", "Stage")


def _is_rules(obj) -> bool:
    kind = type(obj)
    module = getattr(kind, "__module__", None)
    return isinstance(module, str) and module.startswith("ludica.") and kind.__name__ in RULE_TYPES


def _in_gc() -> int:
    found = 0
    for obj in gc.get_objects():
        try:
            if _is_rules(obj) or (hasattr(obj, "__dict__") and any(_is_rules(v) for v in vars(obj).values())):
                found += 1
        except Exception:
            pass
    return found


def _in_frames() -> int:
    found = 0
    for frame in sys._current_frames().values():
        while frame is not None:
            found += sum(1 for v in list(frame.f_locals.values()) if _is_rules(v))
            frame = frame.f_back
    return found


def _in_modules() -> int:
    found = 0
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            found += _is_rules(value)
    return found


def _scan(pid) -> int:
    """Places in process `pid`'s readable memory (anonymous and heap) holding the window."""
    prefix, found = bytes.fromhex(PREFIX), 0
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return 0
    try:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            path = fields[5] if len(fields) > 5 else ""
            if "r" not in fields[1] or (path and path != "[heap]") or end - start > 1 << 30:
                continue
            at = start
            while at < end:
                size = min(end - at, 16 << 20)
                try:
                    data = os.pread(mem, size + LENGTH, at)
                except OSError:
                    break
                i = data.find(prefix)
                while i >= 0:
                    if i < size and hashlib.sha256(data[i:i + LENGTH]).hexdigest() == DIGEST:
                        found += 1
                    i = data.find(prefix, i + 1)
                at += size
    finally:
        os.close(mem)
    return found


def _others() -> int:
    me = os.getpid()
    return sum(_scan(int(p)) for p in os.listdir("/proc") if p.isdigit() and int(p) != me)


def analyze(stage, api, clock):
    found = {"gc": _in_gc(), "frames": _in_frames(), "modules": _in_modules(), "memory": _scan("self"),
             "others": _others()}
    print("found: " + " ".join(f"{k}={v}" for k, v in found.items()), flush=True)

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
