"""What a results store's rows and settings must hold, checked as they are read back.

SQLite keeps whatever a hand puts in a cell (text in an INTEGER column, NULL where ludica never
writes one, JSON nested a hundred thousand deep), and a store is a file anyone may edit. Every
reader (the report, the summary, `ludica serve`) reads it through ResultsStore, which checks each
row here: a value of the wrong kind is a StoreError that names the file, the table, the row and
the column, and says what it should be, rather than a traceback (or a server error) deep in the
ratings. JSON is parsed within bounds (MAX_JSON_CHARS, MAX_JSON_DEPTH) that nothing ludica writes
comes near.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from ..files import bounded_json
from ..gdl.diagnostics import LudicaError


MAX_JSON_CHARS = 16_000_000  # a game's moves and clocks, a run's settings: far below this
MAX_JSON_DEPTH = 32  # ludica writes at most 4 levels (usage per seat per ply)
MAX_WHOLE = 2**63  # SQLite's integers are 64-bit: beyond is no count ludica wrote
SEED_BITS = 256  # a seed in the settings' JSON (a draw's secret one: 64 bits, unsigned)
SCORE_RESULTS = ("black", "white", "draw", "none")
ROLES = ("public", "unseen")


class Wrong(LudicaError, ValueError):
    """A value that is not what its place holds: the message says what it should be (check_rows
    and check_settings say it as a StoreError, with the file, table, row and column)."""


def parse_json(text: str) -> Any:
    """JSON text within MAX_JSON_CHARS characters and MAX_JSON_DEPTH levels of nesting; Wrong if not."""
    if not isinstance(text, str):
        raise Wrong(f"JSON text, not {_kind(text)}")
    try:
        return bounded_json(text, max_chars=MAX_JSON_CHARS, max_depth=MAX_JSON_DEPTH)
    except ValueError as err:
        raise Wrong(str(err)) from None


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a whole number", float: "a number", str: "text", bytes: "bytes", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


# --- the kinds of values ---------------------------------------------------------------------------

Check = Callable[[Any], Any]


def text(value):
    if not isinstance(value, str):
        raise Wrong(f"text, not {_kind(value)}")
    return value


def seed(value):
    if type(value) is not int or abs(value) >= 2**SEED_BITS:
        raise Wrong(f"a whole number of at most {SEED_BITS} bits, not {value!r:.40}")
    return value


def optional(check: Check) -> Check:
    def checked(value):
        return None if value is None else check(value)
    return checked


def whole(low: int = -MAX_WHOLE, high: int = MAX_WHOLE - 1) -> Check:
    def checked(value):
        if type(value) is not int or not low <= value <= high:
            raise Wrong(f"a whole number from {low:,} to {high:,}, not {value!r:.40}")
        return value
    return checked


def number(low: float = -math.inf, high: float = math.inf, *, above: bool = False) -> Check:
    """A finite number from `low` (`above`: greater than it) to `high`."""
    def checked(value):
        if (type(value) not in (int, float) or not math.isfinite(value) or not low <= value <= high
                or (above and value == low)):
            raise Wrong(f"a finite number {'above' if above else 'from'} {low:g}{f' to {high:g}' if high < math.inf else ''}, "
                        f"not {value!r:.40}")
        return value
    return checked


def one_of(*values) -> Check:
    def checked(value):
        if value not in values:
            raise Wrong(f"one of {', '.join(map(repr, values))}, not {value!r:.40}")
        return value
    return checked


def _each(items) -> None:
    """Each (place, check, item): a refusal says the item's place within its list or object."""
    for place, check, item in items:
        try:
            check(item)
        except Wrong as err:
            raise Wrong(f"{place}: {err}") from None


def list_of(check: Check, length: int | None = None) -> Check:
    def checked(value):
        if not isinstance(value, list) or (length is not None and len(value) != length):
            raise Wrong(f"a list{f' of {length}' if length is not None else ''}, not {_kind(value)}"
                        + (f" of {len(value)}" if isinstance(value, list) else ""))
        _each((f"[{i}]", check, item) for i, item in enumerate(value))
        return value
    return checked


def tuple_of(*checks: Check) -> Check:
    """A list of exactly len(checks) items, each its own check."""
    def checked(value):
        if not isinstance(value, list) or len(value) != len(checks):
            raise Wrong(f"a list of {len(checks)}, not {_kind(value)}")
        _each((f"[{i}]", check, item) for i, (check, item) in enumerate(zip(checks, value)))
        return value
    return checked


def object_of(fields: dict[str, Check] | None = None, values: Check | None = None) -> Check:
    """An object: `fields` checked where present (others allowed), or every value by `values`."""
    def checked(value):
        if not isinstance(value, dict):
            raise Wrong(f"an object, not {_kind(value)}")
        _each((f".{key}", check, item) for key, item in value.items()
              if (check := values if values is not None else (fields or {}).get(key)) is not None)
        return value
    return checked


def anything(value):
    return value


def as_json(check: Check) -> Check:
    """JSON text whose value passes `check`."""
    def checked(value):
        return check(parse_json(value))
    return checked


# --- the store's tables ----------------------------------------------------------------------------

_time = number(0)
_seat = one_of(0, 1)
_usage = object_of(values=anything)

COLUMNS: dict[str, dict[str, Check]] = {
    "games": {
        "id": whole(0), "stage": text, "stage_hash": text, "black": text, "white": text, "game_index": whole(0),
        "seed": whole(), "result": one_of(*SCORE_RESULTS), "winner": optional(_seat), "black_score": whole(),
        "white_score": whole(), "reason": text, "detail": optional(text), "plies": whole(0),
        "moves": as_json(list_of(text)), "black_time": _time, "white_time": _time,
        "illegal": as_json(list_of(whole(0), 2)), "penalties": as_json(list_of(text)), "log": text,
        "finished_at": text, "ply_seconds": as_json(list_of(tuple_of(_seat, _time))),
        "ply_usage": as_json(list_of(tuple_of(whole(0), _seat, _usage))),
        "usage": optional(as_json(optional(list_of(optional(_usage), 2)))),
    },
    "analyses": {
        "id": whole(0), "stage": text, "stage_hash": text, "agent": text, "ok": one_of(0, 1), "seconds": _time,
        "wall": _time, "failure": optional(text), "detail": optional(text), "lockdown": optional(as_json(anything)),
        "output": optional(text), "output_bytes": optional(whole(0)), "finished_at": text,
        "usage": optional(as_json(optional(_usage))),
    },
    "stages": {
        "stage_hash": text, "name": text, "text": text, "role": one_of(*ROLES),
        "weight": number(0, above=True), "position": whole(), "analysis_time": _time, "planned": whole(0),
        "multiplicity": whole(1), "divergence": optional(number()), "divergence_se": optional(number(0)),
    },
}


# columns that are there together or not at all: a value and its standard error
PAIRED = {"stages": ("divergence", "divergence_se")}


def _first_wrong(values: dict, checks: dict[str, Check]) -> tuple[str, Wrong] | None:
    """The first of `values` its check refuses (its key and why), if one is."""
    for key, value in values.items():
        check = checks.get(key)
        if check is not None:
            try:
                check(value)
            except Wrong as err:
                return key, err
    return None


def check_rows(table: str, rows: list[dict], where: str, fix: str) -> list[dict]:
    """`rows` of `table`, each column as COLUMNS says; else a StoreError naming the row and column."""
    from .records import StoreError

    for row in rows:
        which = (f"row {row['id']}" if "id" in row and type(row["id"]) is int
                 else f"the row of stage {str(row.get('stage_hash'))[:16]!r}")
        wrong = _first_wrong(row, COLUMNS[table])
        if wrong is not None:
            column, err = wrong
            raise StoreError(f"{where}: table {table}, {which}, column {column}: should be {err}; {fix}")
        pair = PAIRED.get(table, ())
        if pair and len({row.get(column) is None for column in pair}) > 1:
            raise StoreError(f"{where}: table {table}, {which}: columns {' and '.join(pair)} should both hold a "
                             f"number or neither; {fix}")
    return rows


# --- the run's settings ----------------------------------------------------------------------------

def _options(value):
    """A run's Options as run.run_settings stores them: known fields, each of its default's kind."""
    from .plans import RULE_TIERS, Options

    object_of()(value)
    fields = {f.name: f for f in dataclasses.fields(Options)}
    for key, item in value.items():
        if key not in fields:
            raise Wrong(f"a run's options ({key!r} is not one: {', '.join(fields)})")
        default = getattr(Options(), key)
        if key == "model_rules":
            fine = item in RULE_TIERS
        elif isinstance(default, bool):
            fine = type(item) is bool
        elif isinstance(default, int):
            fine = type(item) is int
        elif isinstance(default, float):
            fine = type(item) in (int, float) and math.isfinite(item) and item > 0
        else:
            fine = isinstance(item, type(default))
        if not fine:
            raise Wrong(f".{key}: {'one of ' + ', '.join(RULE_TIERS) if key == 'model_rules' else _kind(default)}"
                        f"{' above 0' if isinstance(default, float) else ''}, not {item!r:.40}")
    if "games" in value and value["games"] < 1:
        raise Wrong(".games: a whole number, 1 or more")
    return value


SENT = "unseen sent to"  # the settings key of ResultsStore.note_sent: {endpoint: URL}
RULES_READABLE = "rules readable by"  # the agents that held unseen stages' rules in memory (evaluation.rules_in_memory)

_names = list_of(text)
_invocation = object_of({"command": text, "version": text, "machine": text, "started": text})
_config = object_of({"seed": seed, "games": whole(1), "format": text, "schedule": text,
                     "adaptation": list_of(number(0)), "reference_games": whole(0)})

SETTINGS: dict[str, Check] = {
    "stages": as_json(_names), "agents": as_json(_names), "agent files": as_json(_names),
    "options": as_json(_options),
    "evaluation": as_json(object_of({"adaptation": object_of(values=tuple_of(text, number(0))),
                                     "baselines": _names, "config": _config,
                                     "roles": list_of(one_of(*ROLES)), "weights": list_of(number(0))})),
    "invocations": as_json(list_of(_invocation)),
    "draw": as_json(object_of({"seed": seed, "secret": one_of(True, False)})),
    "base": text,  # a stage's text: the report loads it (report.stored_stage)
    SENT: as_json(object_of(values=text)),  # endpoint: URL (records.note_sent)
    RULES_READABLE: as_json(_names),  # evaluation.rules_in_memory
}


def check_settings(settings: dict, where: str, fix: str) -> dict[str, str]:
    """A run's settings, each as SETTINGS says where it is there (a setting missing is read with
    its default, as for a run made before it was kept)."""
    from .records import StoreError

    wrong = _first_wrong(settings, SETTINGS)
    if wrong is not None:
        key, err = wrong
        raise StoreError(f"{where}: setting {key!r} should be {err}; {fix}")
    return settings
