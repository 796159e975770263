"""Tries the system calls the sandbox's seccomp filter refuses, and those it must allow (fork,
threads, socketpair), and prints `CALL: ok` or `CALL: errno NAME` for each."""
import ctypes
import errno
import fcntl
import os
import socket
import threading

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x10000000, 0x40000000, 17
SYS_clone, SYS_ptrace = 56, 101  # x86_64
TIOCSTI = 0x5412


def _c(status: int) -> str:
    return "ok" if status >= 0 else f"errno {errno.errorcode[ctypes.get_errno()]}"


def _py(action) -> str:
    try:
        action()
        return "ok"
    except OSError as e:
        return f"errno {errno.errorcode.get(e.errno, e.errno)}"


def _fork() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def _clone_new_user() -> int:
    status = libc.syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if status == 0:
        os._exit(0)
    if status > 0:
        os.waitpid(status, 0)
    return status


def _thread() -> None:
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()


CALLS = {
    "socket": lambda: _py(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()),
    "socket-inet": lambda: _py(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "unshare": lambda: _c(libc.unshare(CLONE_NEWNET)),
    "clone-newuser": lambda: _c(_clone_new_user()),
    "mount": lambda: _c(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    "ptrace": lambda: _c(libc.syscall(SYS_ptrace, 0, 0, 0, 0)),  # PTRACE_TRACEME
    "tiocsti": lambda: _py(lambda: fcntl.ioctl(os.open("/dev/null", os.O_RDONLY), TIOCSTI, b"x")),
    "fork": lambda: _py(_fork),
    "thread": lambda: _py(_thread),
    "socketpair": lambda: _py(lambda: [s.close() for s in socket.socketpair()]),
}


def analyze(stage, api, clock):
    for call, attempt in CALLS.items():
        print(f"{call}: {attempt()}", flush=True)  # one at a time: a call that kills says which it was

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
