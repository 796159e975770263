"""The bundled stages' fingerprints, computed once and shipped (issue 34: first contact).

Every draw sets aside the candidates that are a public stage: the same canonical key (symmetry.py,
plain Python) or the same random games (their fingerprint, screen.py). Fingerprinting the bundled
stages plays their random games, and so compiled the kernels of every form they have (the generic
step, the placement and piece families...) in the process that draws, before a candidate was
screened: 18 s of a fresh clone's first `ludica evaluate`, whose Othello variants need none of
them. A fingerprint is a function of the stage's game and of the filters' random games only, so the
bundled stages' are kept in bundled_prints.json, keyed on the digest of each stage's canonical text,
with the settings of its random games and a digest of the code that plays them: a stage and
settings the table has take their fingerprint from it (the base of a draw too, when it is a
bundled stage as it is); any other is screened.

tests/test_sampler.py plays every bundled stage again and holds the table to what it plays. After a
change to a bundled stage or to the code that plays them, write it again:

    scripts/bundled-prints
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from functools import cache
from pathlib import Path

from .. import stages as bundled_stages
from ..gdl import ast as A
from ..gdl import format as canonical, load
from .. import compiler
from . import cost, screen, symmetry

TABLE = Path(__file__).with_name("bundled_prints.json")


def digest(stage: A.Stage) -> str:
    """The digest of the stage's canonical text: the table's key."""
    return hashlib.sha256(canonical(stage).encode()).hexdigest()


@cache
def engine() -> str:
    """The digest of the code that plays and hashes a fingerprint's games (the compiler, and the
    sampler's modules that play and hash them): after any edit to it the table's fingerprints are
    played again (and the test names the script to write them)."""
    files = sorted(Path(compiler.__path__[0]).rglob("*.py")) + [Path(str(m.__file__)) for m in (cost, screen, symmetry)]
    h = hashlib.sha256()
    for file in files:
        h.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return h.hexdigest()[:32]


def settings(stage: A.Stage, filters: screen.Filters) -> dict:
    """What a fingerprint's random games depend on besides the stage: their number, their cap, the
    seed and count of the first of them (cost.py's τ games), and the code that plays them."""
    return {"random_games": filters.random_games, "max_plies": filters.cap(stage), "tau_games": cost.TAU_GAMES,
            "tau_seed": cost.TAU_SEED, "engine": engine()}


@cache
def _table() -> dict[str, dict]:
    try:
        table = json.loads(TABLE.read_text())
    except (OSError, ValueError):
        return {}  # no table (a partial install): every stage is screened
    return table if isinstance(table, dict) else {}


def fingerprint(stage: A.Stage, filters: screen.Filters) -> str | None:
    """The fingerprint of the stage's random games under `filters` (None: it has none, it does not
    compile): the table's, else screened."""
    entry = _table().get(digest(stage))
    if isinstance(entry, dict) and entry.get("settings") == settings(stage, filters):
        return entry.get("fingerprint")
    return screened(stage, filters)


def screened(stage: A.Stage, filters: screen.Filters) -> str | None:
    """The fingerprint of the stage's random games, played."""
    return screen.screen(stage, replace(filters, enabled=False)).fingerprint


def table(filters: screen.Filters = screen.Filters()) -> dict[str, dict]:
    """Every bundled stage's fingerprint under `filters`, played, as the table keeps them."""
    out = {}
    for path in bundled_stages.bundled():  # by name
        stage = load(path)
        out[digest(stage)] = {"stage": path.stem, "settings": settings(stage, filters),
                              "fingerprint": screened(stage, filters)}
    return out


def write() -> int:
    """The table written again (scripts/bundled-prints); the number of stages in it."""
    played = table()
    TABLE.write_text(json.dumps(played, indent=1) + "\n")
    _table.cache_clear()
    return len(played)
