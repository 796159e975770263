"""The results store: an embedded SQLite database, one row per game written the moment the game
ends (one transaction per game), so an interrupted run loses nothing and `--resume` knows exactly
which games are still to play. Analyses are stored too, one row per (stage, agent, attempt).

A game's identity is (stage hash, black, white, game index): the same entrants on the same stage
file in a resumed run find their finished games.
"""
from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from datetime import datetime, UTC
from pathlib import Path
from typing import IO

from ..gdl.diagnostics import LudicaError
from . import stored
from .stored import SENT  # a settings key, checked in stored.SETTINGS
from .referee import GameRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS analyses (
    id INTEGER PRIMARY KEY, stage TEXT NOT NULL, stage_hash TEXT NOT NULL, agent TEXT NOT NULL,
    ok INTEGER NOT NULL, seconds REAL NOT NULL, wall REAL NOT NULL, failure TEXT, detail TEXT,
    lockdown TEXT, output TEXT, output_bytes INTEGER, finished_at TEXT NOT NULL,
    usage TEXT);  -- a language model's tokens, calls, latency and cost in its analysis (JSON)
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, stage TEXT NOT NULL, stage_hash TEXT NOT NULL,
    black TEXT NOT NULL, white TEXT NOT NULL, game_index INTEGER NOT NULL, seed INTEGER NOT NULL,
    result TEXT NOT NULL, winner INTEGER, black_score INTEGER NOT NULL, white_score INTEGER NOT NULL,
    reason TEXT NOT NULL, detail TEXT, plies INTEGER NOT NULL, moves TEXT NOT NULL,
    black_time REAL NOT NULL, white_time REAL NOT NULL, illegal TEXT NOT NULL, penalties TEXT NOT NULL,
    log TEXT NOT NULL, finished_at TEXT NOT NULL,
    ply_seconds TEXT NOT NULL DEFAULT '[]',  -- [[player, seconds charged], ...] per ply
    ply_usage TEXT NOT NULL DEFAULT '[]',  -- a language model's tokens... per ply: [[ply, player, {...}], ...]
    usage TEXT,  -- per seat, a language model's totals over the game, failed moves too: [{...} or null, ...]
    -- the seed each seat was told (runtime/seatseeds.py); null in a game played before seats had their
    -- own, when both were told the game's `seed`
    black_seed INTEGER, white_seed INTEGER,
    UNIQUE (stage_hash, black, white, game_index));
CREATE TABLE IF NOT EXISTS stages (
    stage_hash TEXT PRIMARY KEY, name TEXT NOT NULL, text TEXT NOT NULL, role TEXT NOT NULL,
    weight REAL NOT NULL, position INTEGER NOT NULL, analysis_time REAL NOT NULL, planned INTEGER NOT NULL,
    multiplicity INTEGER NOT NULL DEFAULT 1,  -- the sampler's draws that gave the stage
    divergence REAL, divergence_se REAL);     -- a variant's, from its base (sampler/divergence.py)
"""
# Columns added since a table was first written: a store made before has them added, with their defaults.
ADDED = {"games": {"ply_seconds": "TEXT NOT NULL DEFAULT '[]'", "ply_usage": "TEXT NOT NULL DEFAULT '[]'",
                   "usage": "TEXT", "black_seed": "INTEGER", "white_seed": "INTEGER"},
         "analyses": {"usage": "TEXT"},
         "stages": {"multiplicity": "INTEGER NOT NULL DEFAULT 1", "divergence": "REAL", "divergence_se": "REAL"}}


def _usage(answer) -> str | None:
    """A language model's accounting of its analysis (the reply's `usage`), as JSON; None for others."""
    usage = answer.reply.get("usage") if isinstance(answer.reply, dict) else None
    return json.dumps(usage) if isinstance(usage, dict) else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")



# SQLite's header field for the application that owns a file: "LUDC". A store made before it was
# set is recognised by its tables.
APPLICATION_ID = 0x4C554443
TABLES = {"settings", "analyses", "games", "stages"}


# what to do with a store whose rows are not what ludica wrote (stored.py checks them)
EDITED = "it was edited or is damaged: restore it from a copy, or run it again into another --out"


class StoreError(LudicaError, ValueError):
    """A results.sqlite that is not ludica's, or is damaged: refused, never written to."""


def lock_folder(folder: Path, busy: str = "wait for it to end, or give another --out") -> IO[str]:
    """Hold the run folder for this process (an advisory lock on FOLDER/.lock, released when the
    returned file is closed or the process ends): two runs writing one store would collide. A
    second run is refused, told who holds the folder and `busy` (what to do)."""
    try:
        held = open(folder / ".lock", "a+", encoding="utf-8")
    except OSError as err:  # checked before the run (runfolder.check_out): this is the backstop
        raise StoreError(f"{folder / '.lock'} cannot be written ({err.strerror}): give an --out you can write "
                         "to") from None
    try:
        _lock_now(held)
    except BlockingIOError:
        held.seek(0)
        holder = held.read().strip() or "another process"
        held.close()
        raise StoreError(f"{folder} is in use by another ludica run ({holder}); {busy}") from None
    held.seek(0)
    held.truncate()
    held.write(f"pid {os.getpid()}, since {_now()}")
    held.flush()
    return held


def _lock_now(held: IO[str], tries: int = 5) -> None:
    """The folder's lock, or BlockingIOError if another process holds it: one that looks whether a
    run is going (in_use) holds it an instant, so a refusal is tried again a few times first."""
    for _ in range(tries - 1):
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(0.02)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)


def in_use(folder: Path) -> bool:
    """Whether a ludica process holds the run folder now (lock_folder): a run still going, or one
    writing its report. Read alone: the lock is taken shared for an instant, never written."""
    try:
        with open(Path(folder) / ".lock", encoding="utf-8") as probe:
            try:
                fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False  # closing the file lets the lock go
    except OSError:  # no .lock: no run ever held the folder
        return False


class ResultsStore:
    """A run's store. `read_only`: opened for reading alone (SQLite's mode=ro): nothing is ever
    written into it, not even ludica's tables, so reading works in a read-only folder too."""

    def __init__(self, path: Path, read_only: bool = False):
        self.path = Path(path)
        existed = self.path.exists()
        if read_only and not existed:  # SQLite would say "unable to open database file"
            raise StoreError(f"{self.path} does not exist")
        self.lock = threading.RLock()
        try:
            # one connection shared by the run's jobs (threads), each use under the lock
            self.db = (sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
                       if read_only else sqlite3.connect(self.path, check_same_thread=False))
        except sqlite3.Error as err:
            raise self._refusal(err) from None
        try:
            if existed:
                self._check_owner()
            if not read_only:
                self._make_tables()
        except sqlite3.DatabaseError as err:
            self.db.close()
            raise self._refusal(err) from None
        except StoreError:
            self.db.close()
            raise

    def _refusal(self, err: sqlite3.Error) -> StoreError:
        """What SQLite's error means to the user: a file that cannot be written is not a damaged one
        (telling them to move good results away would be the wrong advice)."""
        if getattr(err, "sqlite_errorname", "").startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")):
            return StoreError(f"{self.path} cannot be opened for writing (SQLite: {err}): its folder is read-only, "
                              "or not yours; give an --out you can write to")
        return StoreError(f"{self.path} is damaged or not an SQLite file (SQLite: {err}); move it away, or give "
                          "another --out")

    def _make_tables(self) -> None:
        self.db.executescript(SCHEMA)
        for table, added in ADDED.items():
            columns = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for column, kind in added.items():
                if column not in columns:  # a store written before the column existed
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self.db.commit()

    def holds_a_run(self) -> bool:
        """Whether a run was started in this store (its settings saved): an empty file holds none."""
        tables = {row["name"] for row in self._rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return "settings" in tables and bool(self.settings())

    def _check_owner(self) -> None:
        """Refuse a file another program made: ludica's tables would be added to it."""
        owner = self.db.execute("PRAGMA application_id").fetchone()[0]
        tables = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if owner == APPLICATION_ID or (owner == 0 and tables <= TABLES):
            return
        what = f"its tables: {', '.join(sorted(tables))}" if tables else f"application id {owner:#x}"
        raise StoreError(f"{self.path} is not a ludica results store ({what}); give another --out")

    def close(self) -> None:
        self.db.close()

    # --- the run's settings: a resumed run must be the same run --------------------------------

    def _rows(self, query: str, params: tuple = ()) -> list[dict]:
        with self.lock:
            try:
                cur = self.db.execute(query, params)
                names = [d[0] for d in cur.description]
                return [dict(zip(names, row)) for row in cur]
            except sqlite3.DatabaseError as err:  # a table dropped or replaced, a page cut off
                raise StoreError(f"{self.path} is not as ludica wrote it (SQLite: {err}); {EDITED}") from None

    def _checked(self, table: str, rows: list[dict]) -> list[dict]:
        return stored.check_rows(table, rows, str(self.path), EDITED)

    def _write(self, query: str, params: tuple | list = (), many: bool = False) -> None:
        with self.lock, self.db:
            (self.db.executemany if many else self.db.execute)(query, params)

    def settings(self) -> dict[str, str]:
        """The run's settings, each a JSON text checked as stored.SETTINGS says."""
        held = {r["key"]: r["value"] for r in self._rows("SELECT key, value FROM settings")}
        return stored.check_settings(held, str(self.path), EDITED)

    def save_settings(self, values: dict[str, str]) -> None:
        self._write("INSERT OR REPLACE INTO settings VALUES (?, ?)", list(values.items()), many=True)

    def note_sent(self, endpoint: str, url: str) -> None:
        """Unseen stages went to model endpoint `endpoint` (at `url`), off this machine: kept in the
        settings under SENT ({endpoint: url}), for the report to say (evaluation/summary.py). Not
        part of the run's identity: a resumed run never compares it."""
        with self.lock:
            sent = json.loads(self.settings().get(SENT, "{}"))
            if endpoint not in sent:
                self.save_settings({SENT: json.dumps({**sent, endpoint: url}, sort_keys=True)})

    # --- stages, games and analyses ------------------------------------------------------------

    def add_stage(self, stage_hash: str, name: str, text: str, role: str, weight: float, position: int,
                  analysis_time: float, planned: int, multiplicity: int = 1,
                  divergence: tuple[float, float] | None = None) -> None:
        """A stage of the run: its canonical text (replays and reports need no other file), its role
        (public, unseen), its weight in the anytime estimate, its place in the run, the agents'
        analysis budget on it, the number of games planned there, and for a stage the sampler drew
        the draws that gave it and its divergence from the base (with its standard error)."""
        value, se = divergence if divergence is not None else (None, None)
        self._write("INSERT OR REPLACE INTO stages (stage_hash, name, text, role, weight, position, analysis_time,"
                    " planned, multiplicity, divergence, divergence_se) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (stage_hash, name, text, role, weight, position, analysis_time, planned, multiplicity, value, se))

    def stages(self) -> list[dict]:
        return self._checked("stages", self._rows("SELECT * FROM stages ORDER BY position"))

    def finished(self, stage_hash: str) -> set[tuple[str, str, int]]:
        rows = self._rows("SELECT black, white, game_index FROM games WHERE stage_hash = ?", (stage_hash,))
        return {(r["black"], r["white"], int(r["game_index"])) for r in rows}

    def add_game(self, record: GameRecord, game_index: int) -> None:
        moves = [p.move for p in record.plies]
        black_seed, white_seed = record.seat_seeds if record.seat_seeds is not None else (None, None)
        self._write(
            "INSERT INTO games (stage, stage_hash, black, white, game_index, seed, result, winner, black_score,"
            " white_score, reason, detail, plies, moves, black_time, white_time, illegal, penalties, log,"
            " finished_at, ply_seconds, ply_usage, usage, black_seed, white_seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.stage, record.stage_hash, record.players[0], record.players[1], game_index, record.seed,
             record.result, record.winner, record.scores[0], record.scores[1], record.reason, record.detail,
             len(record.plies), json.dumps(moves), record.time_used[0], record.time_used[1],
             json.dumps(record.illegal), json.dumps(record.penalties), "\n".join(record.log), _now(),
             json.dumps([[p.player, p.seconds] for p in record.plies]),
             json.dumps([[i, p.player, p.usage] for i, p in enumerate(record.plies) if p.usage]),
             json.dumps(record.usage) if any(record.usage) else None, black_seed, white_seed))

    def add_analysis(self, stage: str, stage_hash: str, agent: str, answer, lockdown: dict,
                     output: tuple[str, int]) -> None:
        self._write(
            "INSERT INTO analyses (stage, stage_hash, agent, ok, seconds, wall, failure, detail, lockdown, output,"
            " output_bytes, finished_at, usage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (stage, stage_hash, agent, answer.failure is None, answer.seconds, answer.wall, answer.failure,
             answer.detail, json.dumps(lockdown), output[0], output[1], _now(), _usage(answer)))

    def games(self, stage_hash: str | None = None) -> list[dict]:
        query = "SELECT * FROM games" + (" WHERE stage_hash = ?" if stage_hash else "") + " ORDER BY id"
        return self._checked("games", self._rows(query, (stage_hash,) if stage_hash else ()))

    def analyses(self) -> list[dict]:
        return self._checked("analyses", self._rows("SELECT * FROM analyses ORDER BY id"))
