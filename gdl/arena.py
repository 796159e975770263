"""Import an Othello AI Arena stage config as a ludica stage.

    from_arena({"name": "Standard 8x8", "boardSize": 8, "initialBlocked": [],
                "initialPlayer1": [{"r": 3, "c": 4}, {"r": 4, "c": 3}],
                "initialPlayer2": [{"r": 3, "c": 3}, {"r": 4, "c": 4}]})

gives the stage

    game "Standard 8x8"
    board square 8
    players black white
    setup black e4 d5
    setup white d4 e5
    move place empty
      flip custodial all            # `over-blocked` with ignoreOcclusion
      require capture
    turn fewer-pieces               # only with fewerPiecesContinue
    pass forced
    end no-moves: most-pieces

`to_arena(stage)` goes the other way: the config of a stage the Arena can express (the shapes
`from_arena` builds, and only those), or None.

The Arena sets up blocked cells first, then black on cells still empty, then white on cells
still empty, and ignores positions off the board (see /work/shared/ARENA.md). The stage keeps
only the cells the Arena actually fills, so it plays the same game; every cell dropped on the
way is reported as a warning sentence.
"""
from __future__ import annotations

import json
from typing import Any

from .ast import (
    ALL_DIRECTIONS, MAX_BOARD_SIDE, Alternate, Cell, End, FewerPieces, FlipCustodial, MostPieces,
    MoveRule, NoMoves, PassForced, PlaceEmpty, Players, RequireCapture, SquareBoard, Setup, Stage,
    cell_name, expand,
)
from .diagnostics import LudicaError

_REQUIRED = {
    "name": "a string",
    "boardSize": f"an integer from 1 to {MAX_BOARD_SIDE}",
    "initialBlocked": 'a list of cells like {"r": 0, "c": 1}',
    "initialPlayer1": 'a list of cells like {"r": 3, "c": 4}',
    "initialPlayer2": 'a list of cells like {"r": 3, "c": 3}',
}
_FLAGS = ("ignoreOcclusion", "fewerPiecesContinue")
_CONTENT = {-1: "blocked", 1: "black", 2: "white"}


def configs_from_json(text: str, source: object) -> list:
    """The configs of an Arena JSON text (one object, or a list of them), not yet checked: each
    goes to `from_arena`. LudicaError naming `source` (the file) if the text is not JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LudicaError(f"{source}:{err.lineno}:{err.colno}: not JSON: {err.msg}") from None
    except RecursionError:
        raise LudicaError(f"{source}: JSON nested too deeply to be an Arena stage config") from None
    except ValueError:  # an integer of thousands of digits
        raise LudicaError(f"{source}: a number of thousands of digits: too large to be part of an Arena stage "
                          "config") from None
    return data if isinstance(data, list) else [data]


def from_arena(config: dict[str, Any], warnings: list[str] | None = None) -> Stage:
    """The Stage of an Arena stage config (a JSON object, as a dict).

    Raises ValueError naming every key that is missing or holds the wrong kind of value.
    Cells the Arena would ignore (off the board, or already taken) are left out of the stage,
    with one sentence each appended to `warnings` if a list is given.
    """
    warn = warnings.append if warnings is not None else (lambda message: None)
    if not isinstance(config, dict):
        raise ValueError(f"an Arena stage config is a JSON object, not {type(config).__name__}")
    problems = _problems(config)
    if problems:
        raise ValueError("; ".join(problems))
    for key in config:
        if key not in _REQUIRED and key not in _FLAGS:
            warn(f"unknown key {key!r}: ignored (the Arena's keys are {', '.join([*_REQUIRED, *_FLAGS])})")
    name, size = _one_line(config["name"], warn), config["boardSize"]
    flags = {key: config.get(key, False) for key in _FLAGS}

    # Fill the board in the Arena's order, keeping only the cells that land.
    content: dict[tuple[int, int], int] = {}
    kept: dict[int, list[Cell]] = {}
    for key, value in (("initialBlocked", -1), ("initialPlayer1", 1), ("initialPlayer2", 2)):
        kept[value] = []
        for r, c in ((item["r"], item["c"]) for item in config[key]):
            where = f"{key} ({r},{c})"
            if not (0 <= r < size and 0 <= c < size):
                warn(f"{where} is off the {size}x{size} board: ignored, as the Arena does")
            elif (r, c) in content:
                warn(f"{where} = {cell_name(r, c)} is already {_CONTENT[content[r, c]]}: ignored, as the Arena does")
            else:
                content[r, c] = value
                kept[value].append(Cell(r, c))

    setup = tuple(Setup(player, tuple(kept[value])) for player, value in (("black", 1), ("white", 2)) if kept[value])
    return Stage(
        name=name,
        board=SquareBoard(size),
        players=Players(("black", "white")),
        blocked=tuple(kept[-1]),
        setup=setup,
        moves=(MoveRule(PlaceEmpty(), (FlipCustodial(ALL_DIRECTIONS, flags["ignoreOcclusion"]), RequireCapture())),),
        turn=FewerPieces() if flags["fewerPiecesContinue"] else Alternate(),
        pass_rule=PassForced(),
        ends=(End(NoMoves(), MostPieces()),),
    )


def to_arena(stage: Stage) -> dict[str, Any] | None:
    """The Arena stage config of `stage`, if the Arena can express it, else None.

    The Arena expresses a square board (not wrapped), black and white, blocked cells, initial
    pieces, and the one rule set `from_arena` writes: placing on an empty cell, flipping custodial
    runs in all directions (over blocked cells: `ignoreOcclusion`), a capture required, turns that
    alternate (or `fewerPiecesContinue`), a forced pass, and the end when nobody can move, most
    pieces winning. The flags are keys of the config only when true, as the Arena's stages write
    them. A config is returned only if `from_arena` gives `stage` back from it exactly (the
    same cells in the same order, written one by one, not as ranges; the name as a config keeps
    it): else None, never a config of some other stage.
    """
    board, moves = stage.board, stage.moves
    if not (isinstance(board, SquareBoard) and not board.wrap and len(moves) == 1
            and isinstance(moves[0].kind, PlaceEmpty) and len(moves[0].effects) == 2
            and isinstance(moves[0].effects[0], FlipCustodial) and isinstance(moves[0].effects[1], RequireCapture)
            and isinstance(stage.turn, (Alternate, FewerPieces))):
        return None
    pieces: dict[str, list[dict[str, int]]] = {"black": [], "white": []}
    for setup in stage.setup:
        if setup.player not in pieces:
            return None
        pieces[setup.player] += [{"r": cell.row, "c": cell.col} for cell in expand(setup.cells)]
    config: dict[str, Any] = {
        "name": stage.name,
        "boardSize": board.size,
        "initialBlocked": [{"r": cell.row, "c": cell.col} for cell in expand(stage.blocked)],
        "initialPlayer1": pieces["black"],
        "initialPlayer2": pieces["white"],
    }
    if moves[0].effects[0].over_blocked:
        config["ignoreOcclusion"] = True
    if isinstance(stage.turn, FewerPieces):
        config["fewerPiecesContinue"] = True
    try:
        back = from_arena(config)
    except ValueError:
        return None
    return config if back == stage else None


def _one_line(name: str, warn) -> str:
    """The name as a stage can hold it: one line, no double quote (`game "..."`)."""
    fixed = " ".join(name.replace('"', "'").split())
    if fixed != name:
        warn(f"the name {name!r} became {fixed!r}: a stage's name is one line without double quotes")
    return fixed


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _problems(config: dict[str, Any]) -> list[str]:
    """What is wrong with a config's keys, in the order the Arena documents them."""
    problems = []
    for key, expected in _REQUIRED.items():
        if key not in config:
            problems.append(f"missing key {key!r}: expected {expected}")
            continue
        value = config[key]
        if key == "name":
            ok = isinstance(value, str)
        elif key == "boardSize":
            ok = _is_int(value) and 1 <= value <= MAX_BOARD_SIDE
        else:
            ok = isinstance(value, list)
            if ok:
                problems.extend(
                    f"key {key!r}, item {k}: expected a cell like {{\"r\": 3, \"c\": 4}} with integer r and c, "
                    f"not {item!r}"
                    for k, item in enumerate(value)
                    if not (isinstance(item, dict) and _is_int(item.get("r")) and _is_int(item.get("c")))
                )
        if not ok:
            problems.append(f"key {key!r} must be {expected}, not {value!r}")
    for key in _FLAGS:
        if not isinstance(config.get(key, False), bool):
            problems.append(f"key {key!r} must be true or false, not {config[key]!r}")
    return problems
