"""Tries to change the machine: write a file of the host (CANARY, filled in by the test), create one
beside it, write /dev/shm, create SysV shared memory; prints what happened, then plays legally."""
import ctypes
import os

CANARY = ""


def _try(what, action):
    try:
        action()
        print(f"{what}: SUCCEEDED")
    except Exception as e:
        print(f"{what}: blocked ({type(e).__name__})")


def _shm():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x1D1CA, 4096, 0o1666) < 0:
        raise OSError(ctypes.get_errno(), "shmget")


def _append():
    with open(CANARY, "a") as f:
        f.write("written by the agent\n")


def analyze(stage, api, clock):
    _try("append", _append)
    _try("create", lambda: open(os.path.join(os.path.dirname(CANARY), "dropped-by-agent"), "w").write("x"))
    _try("shm", lambda: open("/dev/shm/ludica-agent-was-here", "w").write("x"))
    _try("sysv", _shm)
    return lambda state, legal_moves, clock: legal_moves[0]
