"""The rules oracle's wire format: what its client (client.py) and its server (server.py) say to
each other over a channel (a Unix stream socket), both sides of every message in one place.

Little-endian. A request is REQUEST (op, payload bytes, two integers) then the payload; a reply is
REPLY (status, payload bytes) then the payload. States travel as their int32 bytes. A position is
described by DESCRIBED (pieces taken by the move that made it, over, winner, number of actions)
and its actions as int32. An error travels as its status and text: REFUSED for a ValueError (the
API's refusal of a move or an argument), FAILED for another ("Name: message"), raised again on the
client's side as the same exception (ILLEGAL for an IllegalMoveError: its message only, the client
adds the move and position it holds). SPENT is not a message: it is the oracle's CPU seconds, in
memory it shares with the agent's processes.
"""
from __future__ import annotations

import socket
import struct

import numpy as np

from ...compiler import Playouts, knowledge
from ...gdl.diagnostics import IllegalMoveError

REQUEST = struct.Struct("<B3xIqq")
REPLY = struct.Struct("<B3xI")
DESCRIBED = struct.Struct("<qiii")
EVALUATED = struct.Struct("<4q")
SPENT = struct.Struct("<d")  # the oracle's CPU seconds, in memory shared with the agent's processes
LOOK, APPLY, APPLY_MOVE, EVALUATE, PLAYOUTS, OBSERVE, WORLD = range(1, 8)
OK, REFUSED, FAILED, ILLEGAL = 0, 1, 2, 3  # REFUSED: a ValueError; FAILED: another ("Name: message")
MAX_REQUEST = 1 << 20  # bytes of a request's payload: a state is a few hundred, an information state more
assert 4 * knowledge.MAX_LENGTH < MAX_REQUEST  # an information state the API reads, the oracle takes
_ERRORS: dict[str, type[Exception]] = {e.__name__: e for e in (OverflowError, MemoryError, TypeError, IndexError,
                                                                 LookupError)}
_ERRORS["NoWorldFound"] = LookupError  # sample_world's: no world within the budget


def receive(sock: socket.socket, head: struct.Struct, limit: int) -> tuple[tuple, bytes] | None:
    """One message: (its header's fields, its payload), or None if the socket ends first, or the
    message is longer than `limit` or followed by more bytes (neither side sends a second message
    before the answer to the first). One recv in the usual case: each round trip is two process
    wake-ups, and a recv more would cost a third of one."""
    data = sock.recv(1 << 16)
    while 0 < len(data) < head.size:
        more = sock.recv(1 << 16)
        if not more:
            return None
        data += more
    if not data:
        return None
    fields = head.unpack_from(data)
    size = fields[1]  # REQUEST and REPLY both hold the payload's size second
    need = head.size + size
    if size > limit:
        return None
    parts, got = [data], len(data)
    while got < need:
        chunk = sock.recv(min(need - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    data = b"".join(parts) if len(parts) > 1 else data
    if len(data) != need:
        return None
    return fields, data[head.size:]


def state_of(data: bytes) -> np.ndarray:
    """The state a request carries (ValueError if its bytes cannot be int32 values)."""
    if len(data) % 4:
        raise ValueError(f"not a state: {len(data)} bytes")
    return np.frombuffer(data, np.int32)  # read-only; the kernels check the rest


def described(taken: int, actions: list[int], over: bool, winner: int) -> bytes:
    """A position's description: what the move that made it took, its actions and outcome."""
    return DESCRIBED.pack(taken, over, winner, len(actions)) + struct.pack(f"<{len(actions)}i", *actions)


def read_described(body: bytes, at: int) -> tuple[int, tuple[int, ...], bool, int]:
    """(taken, actions, over, winner) of the description at `at` in `body`."""
    taken, over, winner, n = DESCRIBED.unpack_from(body, at)
    return taken, struct.unpack_from(f"<{n}i", body, at + DESCRIBED.size), bool(over), winner


def playouts_reply(done: Playouts) -> bytes:
    """Playouts as a reply: games cut, then the lengths (int32), then the returns (float64, n × 2)."""
    return struct.pack("<q", done.cut) + done.lengths.tobytes() + done.returns.tobytes()


def read_playouts(body: bytes) -> Playouts:
    (cut,) = struct.unpack_from("<q", body)
    n = (len(body) - 8) // 20
    lengths = np.frombuffer(body, np.int32, n, 8).copy()
    returns = np.frombuffer(body, np.float64, 2 * n, 8 + 4 * n).reshape(n, 2).copy()
    return Playouts(lengths, returns, cut)


def failure(error: Exception) -> tuple[int, bytes]:
    """(status, reply) telling the client that answering raised `error`."""
    if isinstance(error, IllegalMoveError):
        return ILLEGAL, str(error).encode()
    if isinstance(error, ValueError):
        return REFUSED, str(error).encode()
    return FAILED, f"{type(error).__name__}: {error}".encode()


def error_of(status: int, body: bytes) -> Exception:
    """The exception a reply of status REFUSED or FAILED tells of: the server's own, for the kinds
    an API call may raise (ValueError, OverflowError, MemoryError, TypeError, IndexError, LookupError),
    else a RuntimeError that names it."""
    message = body.decode(errors="replace")
    if status == ILLEGAL:
        return IllegalMoveError(message)
    if status == REFUSED:
        return ValueError(message)
    name, _, rest = message.partition(": ")
    return _ERRORS.get(name, RuntimeError)(rest if name in _ERRORS else message)
