"""The rules oracle of `--isolate-rules`: the stage's compiled rules in a process of their own, so
that an untrusted agent's process never holds them.

By default an agent's worker compiles the stage itself (runtime/worker.py): the API is fast (a
call is a kernel call), but the compiled tables sit in the agent's memory, and an agent that digs
into the runtime instead of using the API can read the rules from them. With isolation:

- The worker forks the oracle as its first act, before it reads anything. The oracle reads the
  setup (the stage's text) from the referee's socket, compiles and warms the stage, sets its
  limits (runtime/limits.py), makes itself non-dumpable and stops loading kernels from numba's
  cache, and hands the worker what the Arena shows (the StageView) and the setup without the
  stage. It lives in the agent's jail (runtime/jail.py), and no process there can read its
  memory: ptrace and /proc/PID/mem need a dumpable process or CAP_SYS_PTRACE, which no process
  in the jail has, and the seccomp filter refuses ptrace, process_vm_readv and pidfd_getfd. Its
  cache is sealed because the cache folder is writable by the agent: a kernel the oracle loaded
  from it later could be the agent's (numba's cache files are pickles). The worker then locks itself down as usual
  and runs the agent with an `OracleRules` for its API: same methods, same answers, same errors,
  every call a request to the oracle.
- The oracle runs no agent code. It is a process of the agent's (a child of its worker): it
  lives in the agent's control group, its CPU time is charged to the agent's clock, and it is
  stopped between requests with the rest of the agent, killed with it, counted in its processes.
- Channels: the analysis has one; each game process gets a fresh one, made by the worker before
  it forks the game (a game killed in mid-request leaves no half-read message for the next
  game). New channels reach the oracle over a control socket (SCM_RIGHTS). A channel that breaks
  the format is closed; every state is checked by the kernels (compiler/positions.misfit) before
  any table is read with it.
- The agent's side keeps what it was told, by state: a position's actions and outcome come with
  the `apply` that made it, so a search that applies a move, then lists the child's moves, pays
  one round trip per ply.

Three rooms: server.py (the oracle's process: it answers from the compiled game), client.py (the
agent's side: `start` forks an oracle, `OracleRules` asks it) and wire.py (what they say to each
other: the request and reply encoding, shared by both).
"""
from __future__ import annotations

from .client import OracleRules, Started, start, start_alone
from .server import serve
from .wire import (APPLY, APPLY_MOVE, DESCRIBED, EVALUATE, EVALUATED, FAILED, LOOK, MAX_REQUEST, OBSERVE, OK,
                   PLAYOUTS, REFUSED, REPLY, REQUEST, SPENT, WORLD)

__all__ = ["OracleRules", "Started", "start", "start_alone", "serve", "APPLY", "APPLY_MOVE", "DESCRIBED", "EVALUATE",
           "EVALUATED", "FAILED", "LOOK", "MAX_REQUEST", "OBSERVE", "OK", "PLAYOUTS", "REFUSED", "REPLY", "REQUEST",
           "SPENT", "WORLD"]
