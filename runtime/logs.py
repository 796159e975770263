"""Per-game logs in the Othello AI Arena's two shapes: a text log (its line format) and a JSON log
(`metadata`, `initialBoard`, `moves`, `boards`, `players`, `capturedCounts`, `logText`), with what
ludica adds: passes, time spent per move, the referee's notes and penalties, the analysis of each
seat, and what each seat printed (cut off at a fixed size).
"""
from __future__ import annotations

import json
from datetime import datetime, UTC
from pathlib import Path

from ..files import slug
from ..gdl.game import Move
from .referee import SEAT_NAMES, GameRecord


def game_json(record: GameRecord, analyses: dict[str, dict] | None = None) -> dict:
    moves = []
    for ply in record.plies:
        entry: dict = {"player": SEAT_NAMES[ply.player].lower(), "strategy": record.players[ply.player],
                       "move": ply.move, "capturedCount": ply.captured, "timeSpent": ply.seconds}
        move = Move.parse(ply.move)
        if move.src is None and move.dst is not None:  # a placement: the Arena's {row, col}
            entry["row"], entry["col"] = move.dst
        if ply.note:
            entry["note"] = ply.note
        moves.append(entry)
    return {
        "metadata": {"blackStrategy": record.players[0], "whiteStrategy": record.players[1], "stage": record.stage,
                     "stageHash": record.stage_hash, "blackScore": record.scores[0], "whiteScore": record.scores[1],
                     "result": record.result, "reason": record.reason, "seed": record.seed,
                     "seatSeeds": list(record.seat_seeds) if record.seat_seeds is not None else None,
                     "timeUsed": {"black": round(record.time_used[0], 4), "white": round(record.time_used[1], 4)},
                     "date": datetime.now(UTC).isoformat(timespec="seconds")},
        "initialBoard": record.initial_board,
        "moves": moves,
        "boards": [ply.board for ply in record.plies],
        "players": [SEAT_NAMES[ply.player].lower() for ply in record.plies],
        "capturedCounts": [ply.captured for ply in record.plies],
        "penalties": record.penalties,
        "detail": record.detail,
        "analysis": analyses or {},
        "output": record.output,
        "logText": "\n".join(record.log),
    }


def write_game(folder: Path, number: int, record: GameRecord, analyses: dict[str, dict] | None = None) -> Path:
    """DIR/NNNN-black-vs-white.{json,txt}; returns the JSON path."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{number:04d}-{slug(record.players[0])}-vs-{slug(record.players[1])}"
    path = folder / f"{stem}.json"
    path.write_text(json.dumps(game_json(record, analyses), indent=1))
    (folder / f"{stem}.txt").write_text("\n".join(record.log) + "\n")
    return path
