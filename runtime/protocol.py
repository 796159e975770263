"""Messages between the referee and an agent's worker process, over one Unix socket pair: a
4-byte big-endian length, then that many bytes of UTF-8 JSON holding one object. JSON, never
pickle: a message may come from the agent's code, and reading it must not be able to run
anything. (A socket, not pipes: an agent could reopen a pipe through /proc/self/fd and fill it.)

The referee's side never trusts what it reads: a message larger than MAX_MESSAGE, or one that
does not decode to a JSON object (garbage, too deep, too large a number...), is a ProtocolError,
never an exception of any other kind; it never blocks: reads and writes have deadlines. Every
request carries a sequence number `seq` that its reply repeats, so a late or forged reply to an
earlier request is recognised and dropped.
"""
from __future__ import annotations

import json
import select
import socket
import struct
import time
from typing import overload

from ..gdl.diagnostics import LudicaError

MAX_MESSAGE = 1 << 20  # 1 MiB: far more than any honest message (a move is a few bytes)
SEND_TIMEOUT = 2.0  # the worker reads every request at once: a full socket means it stopped reading
_HEADER = struct.Struct(">I")


class ProtocolError(LudicaError):
    """The other side broke the protocol (oversized, malformed or unsendable message)."""


class Closed(LudicaError):
    """The other side closed its end (it died, or exited)."""


def ready(fd, writing: bool = False, timeout: float | None = None) -> bool:
    """Whether `fd` (a file descriptor, or an object with fileno()) can be read (or written) within
    `timeout` seconds (None: wait). poll, not select: select fails on descriptors numbered 1024 and
    up, which a run with many agents' workers reaches."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT if writing else select.POLLIN)
    return bool(poller.poll(None if timeout is None else max(0, int(timeout * 1000 + 0.999))))


def pair() -> tuple[socket.socket, socket.socket]:
    """(the referee's end, the worker's end)."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def encode(message: dict) -> bytes:
    data = json.dumps(message, separators=(",", ":")).encode()
    return _HEADER.pack(len(data)) + data


def send(sock: socket.socket, message: dict, timeout: float | None = SEND_TIMEOUT) -> None:
    """Send a whole message; ProtocolError if the other side does not take it within `timeout`."""
    view = memoryview(encode(message))
    deadline = None if timeout is None else time.monotonic() + timeout
    while view:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not ready(sock, writing=True, timeout=wait):
            raise ProtocolError(f"the other side took no message for {timeout:g} s")
        try:
            view = view[sock.send(view):]
        except BlockingIOError:
            continue
        except OSError as e:
            raise Closed(f"the other end is gone ({e})") from None


class Reader:
    """Reads whole messages from a socket, waiting at most as long as it is told."""

    def __init__(self, sock: socket.socket, limit: int = MAX_MESSAGE):
        self.sock, self.limit = sock, limit
        self._buf = bytearray()

    def _fill(self, need: int, deadline: float | None) -> bool:
        while len(self._buf) < need:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not ready(self.sock, timeout=wait):
                return False
            try:
                chunk = self.sock.recv(min(1 << 16, max(need - len(self._buf), 4096)))
            except BlockingIOError:
                continue
            except OSError as e:
                raise Closed(f"the channel broke ({e})") from None
            if not chunk:
                raise Closed("the other end closed the channel")
            self._buf += chunk
        return True

    @overload
    def read(self, timeout: None = None) -> dict: ...

    @overload
    def read(self, timeout: float) -> dict | None: ...

    def read(self, timeout: float | None = None) -> dict | None:
        """The next message, or None if none is whole within `timeout` seconds (None: wait for one,
        which a message or Closed ends: poll without a timeout returns only with an event)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._fill(_HEADER.size, deadline):
            return None
        (size,) = _HEADER.unpack_from(self._buf)
        if size > self.limit:
            raise ProtocolError(f"a message of {size:,} bytes (the limit is {self.limit:,})")
        if not self._fill(_HEADER.size + size, deadline):
            return None
        data = bytes(self._buf[_HEADER.size: _HEADER.size + size])
        del self._buf[: _HEADER.size + size]
        try:
            message = json.loads(data)
        except Exception as e:
            raise ProtocolError(f"a message that is not JSON ({type(e).__name__}: {str(e)[:80]})") from None
        if not isinstance(message, dict):
            raise ProtocolError(f"a message that is not a JSON object: {data[:80]!r}")
        return message


def text(message: dict, key: str, limit: int = 4000) -> str:
    """A field that should be a string, as a string of at most `limit` characters whatever it is."""
    value = message.get(key)
    value = value if isinstance(value, str) else "" if value is None else repr(value)
    return value[:limit]
