"""The Stages pages: the bundled stages, each stage folder `ludica serve` was given, and a sampled
set's manifest (what each variant changed, its τ, the filter figures); one stage with its .gdl text,
its `check` diagnostics with their carets, its description length and τ, and its initial board as
the JSON spec the shared board renderer (evaluation/static/board.js) draws."""
from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import stages as bundled_stages
from ..compiler import compile as compile_stage
from ..evaluation.report import board_cells
from ..files import read_json
from ..gdl import analyse, description_length, load, read_stage, rules
from ..gdl.diagnostics import LudicaError, StageFileError
from ..sampler.cost import TAU_GAMES, counted_games, tau
from ..sampler.edits import describe

__all__ = ["MANIFEST_NUMBERS", "StageSet", "StageView", "board_spec", "shown", "stage_sets", "stage_view"]

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class StageSet:
    """A set of stage files as the pages list them: the bundled stages, or a folder."""
    title: str
    files: tuple[Path, ...]
    manifest: dict = field(default_factory=dict, compare=False, hash=False)  # a sampled set's, by file name
    base: Path | None = None  # a variant set's base stage file, where it still is

    def entry(self, name: str) -> dict:
        """What the set's manifest says of the file `name` ({} without a manifest)."""
        return self.manifest.get(name, {})

    def name(self, path: Path) -> str:
        """A stage's name as its list shows it: its manifest's, else its `game "..."` line's, else its
        file's (a file that cannot be read still gets a line, and its page says why)."""
        if "name" in self.entry(path.name):
            return str(self.entry(path.name)["name"])
        try:  # read as a stage is: a FIFO, a device or a huge file is not read
            named = _GAME_LINE.search(read_stage(path))
        except (OSError, StageFileError):
            named = None
        return named[1] if named else path.stem


_GAME_LINE = re.compile(r'^\s*game\s+"([^"\n]*)"', re.M)


def stage_sets(folders: tuple[Path, ...]) -> list[StageSet]:
    """The bundled stages first, then each folder in the order given."""
    sets = [StageSet("Bundled stages", tuple(bundled_stages.bundled()))]
    for folder in folders:
        manifest, base = _manifest(folder)
        sets.append(StageSet(str(folder), tuple(sorted(folder.glob("*.gdl"))), manifest, base))
    return sets


def _manifest(folder: Path) -> tuple[dict, Path | None]:
    """A sampled set's manifest.json: its stages by file name ({} for a folder without one), and
    the base stage's file for a variant set, if it is still there. One that is not as the sampler
    writes it (read within read_json's bounds) is a LudicaError naming it."""
    path = folder / MANIFEST
    if not path.is_file():
        return {}, None
    fix = "correct it, or remove it (the folder's stages are then served without it)"
    data = read_json(path, fix=fix)
    try:
        entries = {s["file"]: s for s in data.get("stages", []) if _entry(s)}
        base = Path((data.get("base") or {}).get("file", ""))
        return entries, base if base.suffix == ".gdl" and base.is_file() else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise LudicaError(f"{path} is not a manifest `ludica sample` wrote: {err}; {fix}") from None


def _entry(entry) -> bool:
    """A manifest's stage as the pages read it (TypeError if not): a file name, its τ a number, its
    filter figures an object, its divergence an object or null."""
    if not (isinstance(entry, dict) and isinstance(entry.get("file"), str)
            and type(entry.get("tau", 0.0)) in (int, float) and isinstance(entry.get("figures", {}), dict)
            and isinstance(entry.get("divergence") or {}, dict)):
        raise TypeError(f"a stage's entry should hold its file's name, its tau as a number, its figures as an "
                        f"object and its divergence as an object or null, not {str(entry)[:80]}")
    return True


def _changes(stage_set: StageSet, entry: dict, stage) -> str | None:
    """What a variant changed from its base: as its manifest says, or as sampler/edits says of the
    two stages when the manifest does not (one written before it said so)."""
    if entry.get("changes") is not None or stage is None or stage_set.base is None:
        return entry.get("changes")
    try:
        return describe(load(stage_set.base), stage)
    except LudicaError:  # the base changed since and no longer loads: nothing to compare with
        return None


# a sampled stage's numbers in its manifest (sampler/output.py), as its page names them
MANIFEST_NUMBERS = {"K": "K = bits + log2 τ", "bits": "bits of the change from its base",
                     "multiplicity": "draws that gave it", "levin_weight": "weight in the set"}


@dataclass(frozen=True)
class StageView:
    """One stage as its page shows it; `board` and `bits` are None for a stage with errors."""
    name: str
    path: Path
    text: str
    diagnostics: list[str]  # each rendered as `ludica check` prints it: file:line:col, the line, a caret
    errors: int
    bits: float | None
    tau: float | None
    board: dict | None  # board_spec of the initial position
    changes: str | None  # what a sampled variant changed from its base
    figures: dict  # the sampler's filter figures, as its manifest holds them
    sampled: dict  # the manifest's other numbers of the stage (K, weight, divergence, ...)
    rules: tuple[str, ...] = ()  # its rules in plain English, a paragraph each (gdl.rules); none for errors


def stage_view(stage_set: StageSet, path: Path) -> StageView:
    """The page's data of one stage file (its diagnostics rather than an error for a broken file)."""
    try:
        text = read_stage(path)
    except StageFileError as err:
        return StageView(path.stem, path, "", [str(err)], 1, None, None, None, None, {}, {})
    stage, diagnostics = analyse(text, path)
    rendered = [d.render(text, str(path)) for d in diagnostics]
    errors = sum(d.is_error for d in diagnostics)
    entry = stage_set.entry(path.name)
    numbers = {label: entry[k] for k, label in MANIFEST_NUMBERS.items() if k in entry}
    if isinstance(entry.get("divergence"), dict):
        numbers["divergence from the base (± s.e.)"] = (f"{entry['divergence'].get('value')} ± "
                                                         f"{entry['divergence'].get('se')}")
    if stage is None or errors:
        return StageView(stage.name if stage else path.stem, path, text, rendered, errors, None, None, None,
                         entry.get("changes"), entry.get("figures", {}), numbers)
    game = compile_stage(stage.without_information())  # a hidden stage: its true game's board, as the sampler's τ
    return StageView(stage.name, path, text, rendered, 0, description_length(stage),
                     entry.get("tau") or _tau(stage), board_spec(game), _changes(stage_set, entry, stage),
                     entry.get("figures", {}), numbers, tuple(rules(stage)))


@functools.lru_cache(maxsize=256)
def _tau(stage) -> float:
    """τ as the sampler counts it (sampler/cost.py), for a stage no manifest measured."""
    return tau(cost for _, cost in counted_games(compile_stage(stage.without_information()), TAU_GAMES))


def board_spec(game, state=None) -> dict:
    """A position as the board renderer reads it: the board's shape and its cells row by row as
    one string ('.' empty, '1' first player, '2' second, '#' blocked: the replay's alphabet)."""
    info = game.info
    board = game.board(game.initial_state() if state is None else state)
    return {"rows": info.rows, "cols": info.cols, "hex": info.board_kind == "hex", "wrap": info.wrap,
            "players": list(info.players), "cells": board_cells(board)}


def shown(value) -> str:
    """A figure as the pages print it: floats to 4 significant digits, the rest as JSON text."""
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.4g}"
    return value if isinstance(value, str) else json.dumps(value)
