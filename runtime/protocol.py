"""Messages between the referee and an agent's worker process: a 4-byte big-endian length, then
that many bytes of UTF-8 JSON holding one object. JSON, never pickle: a message comes from code the
referee does not trust, and reading it must not be able to run anything.

The referee reads with a deadline and a size cap: a message larger than MAX_MESSAGE, or one that
is not a JSON object, is a protocol error (the agent tampered with its channel), never a crash of
the referee.
"""
from __future__ import annotations

import json
import os
import select
import struct
import time

MAX_MESSAGE = 1 << 20  # 1 MiB: far more than any honest message (a move is a few bytes)
_HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """The other side broke the protocol (oversized or malformed message)."""


class Closed(Exception):
    """The other side closed its end (it died, or exited)."""


def send(fd: int, message: dict) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


class Reader:
    """Reads whole messages from a file descriptor, waiting at most as long as it is told."""

    def __init__(self, fd: int, limit: int = MAX_MESSAGE):
        self.fd, self.limit = fd, limit
        self._buf = bytearray()

    def _fill(self, need: int, deadline: float | None) -> bool:
        while len(self._buf) < need:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return False
            chunk = os.read(self.fd, min(1 << 16, max(need - len(self._buf), 4096)))
            if not chunk:
                raise Closed("the other end closed the channel")
            self._buf += chunk
        return True

    def read(self, timeout: float | None = None) -> dict | None:
        """The next message, or None if none is whole within `timeout` seconds (None: wait)."""
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
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ProtocolError(f"a message that is not JSON ({e})") from None
        if not isinstance(message, dict):
            raise ProtocolError(f"a message that is not a JSON object: {data[:80]!r}")
        return message
