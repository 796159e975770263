"""When two descriptions are one game: a canonical key under the board's symmetries and the
players' labels, and a behavioural fingerprint.

`canonical_key(stage)`: the rules with the labels dropped (the game's name; players by position,
first and second), cell lists as sets (a range is its cells), `board square N` and `board rect N N`
as one board, move rules in order (the first rule that allows a move plays it), each under every
symmetry of the board that the rules allow, the least of them hashed. A symmetry is one of the
eight maps of the square's dihedral group on (row, column) offsets that keeps the board's
neighbourhood (all eight on square boards; on rectangles the four that keep the shape, or all
eight with rows and columns exchanged; four on the hex rhombus), keeps `place gravity`'s downward
pull, and sends every compass word and heading the stage names to another. Colours: the players
are positions (who moves first), so renaming them or writing them the other way round with their
setups exchanged is the same key.

`fingerprint(lengths, costs, winners)`: a hash of what the seeded random games did (their plies,
counted costs and winners); two stages that play the same random games are one game in practice
(e.g. `all` and `orthogonal diagonal`, a move rule written twice).
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import replace
from itertools import product

from ..gdl import ast as A

SQUARE_COMPASS = {"n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "se": (1, 1), "s": (1, 0), "sw": (1, -1),
                  "w": (0, -1), "nw": (-1, -1)}
HEX_COMPASS = {"n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "s": (1, 0), "sw": (1, -1), "w": (0, -1)}
HEADINGS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
SIDES = {"top-bottom": (1, 0), "left-right": (0, 1)}
# The dihedral group of the square as 2x2 integer matrices acting on (row, column) offsets.
DIHEDRAL = tuple(((a, b), (c, d)) for a, b, c, d in product((-1, 0, 1), repeat=4)
                 if abs(a * d - b * c) == 1 and {abs(a), abs(b)} == {0, 1} and {abs(c), abs(d)} == {0, 1})


def _apply(m, v):
    return (m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1])


def _lookup(table: dict, v) -> str | None:
    for word, u in table.items():
        if u == v:
            return word
    return None


def _uses_gravity(stage: A.Stage) -> bool:
    return any(isinstance(m.kind, A.PlaceGravity) for m in stage.moves)


def symmetries(stage: A.Stage) -> list:
    """The maps (matrices) under which the stage's rules can be rewritten as the same game."""
    hexagonal = isinstance(stage.board, A.HexBoard)
    compass = HEX_COMPASS if hexagonal else SQUARE_COMPASS
    out = []
    for m in DIHEDRAL:
        if {_apply(m, v) for v in compass.values()} != set(compass.values()):
            continue
        if _uses_gravity(stage) and _apply(m, (1, 0)) != (1, 0):
            continue
        if all(_lookup(compass, _apply(m, compass[w])) is not None for w in _compass_words(stage) if w in compass):
            out.append(m)
    return out


def _compass_words(stage: A.Stage) -> set[str]:
    words = set()
    for rule in stage.moves:
        for node in (rule.kind, *rule.effects):
            if hasattr(node, "directions"):
                words.update(node.directions.words)
    return words


def _map_cell(m, cell: tuple[int, int], rows: int, cols: int) -> tuple[int, int]:
    """The cell's image, the board's image moved back to start at row 0, column 0."""
    corners = [_apply(m, (r, c)) for r in (0, rows - 1) for c in (0, cols - 1)]
    r0, c0 = min(p[0] for p in corners), min(p[1] for p in corners)
    r, c = _apply(m, cell)
    return r - r0, c - c0


def _rules(stage: A.Stage, m) -> tuple:
    """The stage's rules under the map m, labels dropped, as plain nested tuples."""
    board = stage.board
    rows, cols = board.rows, board.cols
    rows2, cols2 = (rows, cols) if _apply(m, (1, 0))[0] != 0 else (cols, rows)
    hexagonal = isinstance(board, A.HexBoard)
    compass = HEX_COMPASS if hexagonal else SQUARE_COMPASS
    first = stage.players.names[0]

    def cells(items) -> tuple:
        return tuple(sorted({_map_cell(m, (c.row, c.col), rows, cols) for c in A.expand(items)}))

    def words(d: A.Directions) -> tuple:
        return tuple(sorted({_lookup(compass, _apply(m, compass[w])) if w in compass else w for w in d.words}))

    def node(n) -> tuple:
        fields = []
        # its fields alone: a concept's class-level words (keyword, sentence, traits) are no rule
        for name in (f.name for f in dataclasses.fields(n)) if dataclasses.is_dataclass(n) else ():
            if name == "span":
                continue
            value = getattr(n, name)
            if isinstance(value, A.Directions):
                value = words(value)
            elif name == "sides":
                value = tuple(_lookup(SIDES, tuple(abs(x) for x in _apply(m, SIDES[s]))) for s in value)
            fields.append(value)
        return (type(n).__name__, *fields)

    setups: dict[int, set[tuple[int, int]]] = {0: set(), 1: set()}
    for s in stage.setup:
        setups[0 if s.player == first else 1].update(cells(s.cells))
    headings = {0 if h.player == first else 1: _lookup(HEADINGS, _apply(m, HEADINGS[h.heading])) for h in stage.forward}
    rules: tuple = (
        ("hex" if hexagonal else "grid", rows2, cols2, board.wrap),
        cells(stage.blocked),
        tuple(sorted(setups[0])), tuple(sorted(setups[1])),
        tuple(headings.get(p) or "" for p in (0, 1)),
        tuple((node(r.kind), tuple(node(e) for e in r.effects)) for r in stage.moves),  # in order: the first
        # rule that allows a move plays it
        node(stage.turn), stage.pass_rule is not None,
        tuple((node(e.condition), node(e.result)) for e in stage.ends),
    )
    if stage.random_start:  # a start drawn at random: its lines, in order (a fixed start's key is as it was)
        rules = (*rules, tuple((b.count, cells(b.cells)) for b in stage.random_blocked),
                 tuple((0 if r.player == first else 1, r.count, cells(r.cells)) for r in stage.random_setup))
    if stage.roll is not None:  # the dice
        rules = (*rules, node(stage.roll))
    if stage.hidden is None:  # a perfect-information stage's key is as it always was
        return rules
    # what each player is told is part of the game: phantom tic-tac-toe is not tic-tac-toe
    told = (*rules, node(stage.hidden), node(stage.refused), tuple(node(a) for a in stage.announce))
    return (*told, tuple(node(r) for r in stage.reveal)) if stage.reveal else told  # (keys as before without)


def canonical_key(stage: A.Stage) -> str:
    """A hash shared by every description of the stage's game up to symmetry and labels."""
    least = min(repr(_rules(stage, m)) for m in symmetries(stage))
    return hashlib.sha256(least.encode()).hexdigest()[:32]


def fingerprint(lengths, costs, winners, told: str = "") -> str:
    """A hash of what seeded random games did: plies, counted cost and winner of each (and `told`,
    the information lines of a stage that hides information: its true game is its base's)."""
    data = repr((list(map(int, lengths)), list(map(int, costs)), list(map(int, winners))))
    if told:
        data += "\n" + told
    return hashlib.sha256(data.encode()).hexdigest()[:32]


def relabelled(stage: A.Stage, names: tuple[str, str]) -> A.Stage:
    """The stage with its players renamed (by position): the same game."""
    swap = dict(zip(stage.players.names, names))
    return replace(stage, players=A.Players(names), setup=tuple(replace(s, player=swap[s.player]) for s in stage.setup),
                   forward=tuple(replace(h, player=swap[h.player]) for h in stage.forward),
                   random_setup=tuple(replace(r, player=swap[r.player]) for r in stage.random_setup))
