"""Live updates: a run folder's results store watched for new games, told to the page as
server-sent events.

The run writes its store from another process. Watching it costs a stat of the store's files every
`poll` seconds (SQLite in WAL mode writes the -wal file first), and a query of the games' count and
last id only when a file changed: no busy loop, no long transaction held on the store."""
from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

from starlette.responses import StreamingResponse

from ..runtime.records import EDITED, StoreError, in_use
from ..runtime.runfolder import STORE

__all__ = ["KEEPALIVE", "KEEPALIVE_S", "StoreState", "events", "message", "response", "store_state"]

KEEPALIVE_S = 15.0  # a comment line this often keeps proxies and the browser from closing a quiet stream
KEEPALIVE = ": still here\n\n"


def message(event: str, data) -> str:
    """One server-sent event: its name and its data as JSON."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def response(stream: AsyncIterator[str]) -> StreamingResponse:
    """A page's event stream (the run pages' and the Play pages'), never cached."""
    return StreamingResponse(stream, media_type="text/event-stream", headers={"Cache-Control": "no-store"})


class StoreState(NamedTuple):
    games: int
    last_id: int
    running: bool = False  # a run holds the folder now (records.in_use): it is still going


def store_state(folder: Path) -> StoreState:
    """How many games the store holds, the id of the last (read-only: the run may be writing), and
    whether a run holds the folder now."""
    path = Path(folder) / STORE
    try:
        with closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=5.0)) as db:
            count, last = db.execute("SELECT count(*), coalesce(max(id), 0) FROM games").fetchone()
        return StoreState(int(count), int(last), in_use(folder))
    except (sqlite3.Error, TypeError, ValueError) as err:  # a games table dropped, a file cut short, an id of text
        raise StoreError(f"{path} is not as ludica wrote it ({err}); {EDITED}") from None


def _stamp(folder: Path) -> tuple:
    """The store files' sizes and modification times: what changes when a game is written."""
    out: list[tuple[int, int] | None] = []
    for name in (STORE, STORE + "-wal"):
        try:
            s = (Path(folder) / name).stat()
            out.append((s.st_size, s.st_mtime_ns))
        except FileNotFoundError:
            out.append(None)
    return tuple(out)


async def events(folder: Path, disconnected: Callable[[], Awaitable[bool]], poll: float = 1.0
                 ) -> AsyncIterator[str]:
    """The server-sent events of a run folder: `games` with {"games", "last_id", "running"} at once
    and then whenever the store's games change or the run stops (or starts again), until the page
    goes away. (A run that stops may leave its store's files as they were: its lock is looked at
    every time.)"""
    stamp, state, quiet = None, None, 0.0
    while not await disconnected():
        now = (_stamp(folder), in_use(folder))
        if now != stamp:
            stamp = now
            try:
                held = await asyncio.to_thread(store_state, folder)
            except StoreError as err:  # said to the page, once, and the stream ends
                yield message("error", {"error": str(err)})
                return
            if held != state:
                state, quiet = held, 0.0
                yield message("games", held._asdict())
        if quiet >= KEEPALIVE_S:
            quiet = 0.0
            yield KEEPALIVE
        await asyncio.sleep(poll)
        quiet += poll
