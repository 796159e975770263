"""AST → program: the named tables every kernel reads.

One lowering function per rule concept, dispatched by node class through tables that map each AST
class to its code (compiler/codes.py). Lowering is plain numpy work (a few milliseconds): a new
stage costs no numba compilation, whatever its rules, because rule *structure* becomes small
integer codes and rule *parameters* become data.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

import numpy as np

from ..gdl import ast as A
from ..gdl import geometry
from . import codes as K
from .jit import inline, kernel
from .topology import Topology, lower

# --- the program --------------------------------------------------------------------------------

# Field, number of dimensions (None: not int32, travels apart), what it holds. n: cells, n_dirs:
# compass directions of the board, L: the longest ray or line, E: the most effects of a rule, M: the
# most cells at a jump/clone distance. Column names of the 2-D tables are in codes.py.
FIELDS: tuple[tuple[str, int | None, str], ...] = (
    ("nbr", 2, "int32[n_dirs, n]: the neighbour of cell i in direction d, -1 off the board"),
    ("rays", 3, "int32[n_dirs, n, L]: the cells walked from i in direction d, nearest first"),
    ("ray_len", 2, "int32[n_dirs, n]: how many cells rays[d, i] holds"),
    ("lines", 2, "int32[n_lines, L]: every maximal line of the board along every axis"),
    ("line_len", 1, "int32[n_lines]: how many cells lines[l] holds"),
    ("line_cyclic", 1, "int32[n_lines]: 1 for a ring (a line of a wrapped board)"),
    ("rules", 2, "int32[n_rules, R_COLS]: kind, target, effect count, legality, custodial effect"),
    ("rule_dirs", 3, "int32[n_rules, 2, n_dirs]: the directions of a step/slide rule, per player"),
    ("effects", 3, "int32[n_rules, E, FX_COLS]: effect kind, over-blocked"),
    ("effect_dirs", 4, "int32[n_rules, E, 2, n_dirs]: the directions of each effect, per player"),
    ("dist", 3, "int32[n_rules, n, M]: the cells at the rule's jump/clone distance from a cell"),
    ("dist_n", 2, "int32[n_rules, n]: how many cells dist[r, i] holds"),
    ("ends", 2, "int32[n_ends, E_COLS]: condition, parameter, exact, result, in the stage's order"),
    ("game", 1, "int32[G_LEN]: cells, rows, cols, turn order, pass, max moves, sort, dedup, bitboard, dice, faces"),
    ("regions", 2, "int32[n_regions, n]: the far rows (one per player), then the connect ends' sides"),
    ("orth", 1, "int32[n_dirs]: 1 for the orthogonal directions (the steps of a connection)"),
    ("axes", 1, "int32[n_axes]: one direction per line axis (e-w, n-s, ne-sw[, nw-se])"),
    ("opposite", 1, "int32[n_dirs]: the opposite of each direction"),
    ("bb_shift", 1, "int32[n_dirs]: the bit shift of a step in direction d (boards of ≤ 64 cells)"),
    ("bb_mask", None, "uint64[n_dirs]: the cells that have a neighbour in direction d, as bits"),
)
Program = namedtuple("Program", [name for name, _, _ in FIELDS])
Program.__doc__ = "The tables of a stage, as the kernels read them:\n" + "\n".join(
    f"    {name:12} {what}" for name, _, what in FIELDS)
_PACKED = [(name, ndim) for name, ndim, _ in FIELDS if ndim is not None]
# The number of each table in pack's flat array, for a kernel that reads a few of them (unpack
# reads all twenty). tests/test_program.py holds them to FIELDS.
(T_NBR, T_RAYS, T_RAY_LEN, T_LINES, T_LINE_LEN, T_LINE_CYCLIC, T_RULES, T_RULE_DIRS, T_EFFECTS, T_EFFECT_DIRS, T_DIST,
 T_DIST_N, T_ENDS, T_GAME, T_REGIONS, T_ORTH, T_AXES, T_OPPOSITE, T_BB_SHIFT) = range(len(_PACKED))

# --- move kinds -------------------------------------------------------------------------------

_MOVE_CODES: dict[type, int] = {
    A.PlaceEmpty: K.PLACE_EMPTY, A.PlaceGravity: K.PLACE_GRAVITY, A.PlaceAdjacent: K.PLACE_ADJACENT,
    A.Step: K.STEP, A.Slide: K.SLIDE, A.Jump: K.JUMP, A.Clone: K.CLONE, A.Advance: K.ADVANCE,
}
_TARGETS = {"empty": K.TARGET_EMPTY, "enemy": K.TARGET_ENEMY, "any": K.TARGET_ANY}
_EFFECT_CODES: dict[type, int] = {
    A.FlipCustodial: K.FLIP, A.RemoveCustodial: K.REMOVE, A.ConvertAdjacent: K.CONVERT, A.RequireCapture: K.REQUIRE,
}
_HIDINGS: dict[type, int] = {A.OpponentPieces: K.OPPONENT_PIECES}
_REFUSALS: dict[type, int] = {A.Retry: K.RETRY, A.LoseTurn: K.LOSE_TURN}
_REVEALS: dict[type, int] = {A.RevealAdjacent: K.REVEAL_ADJACENT, A.RevealCapture: K.REVEAL_CAPTURE,
                             A.RevealReachable: K.REVEAL_REACHABLE}
_TURNS: dict[type, int] = {A.Alternate: K.ALTERNATE, A.FewerPieces: K.FEWER_PIECES, A.AgainAfterCapture: K.AGAIN_AFTER_CAPTURE}
_RESULTS: dict[type, int] = {
    A.MoverWins: K.MOVER_WINS, A.MoverLoses: K.MOVER_LOSES, A.MostPieces: K.MOST_PIECES,
    A.FewestPieces: K.FEWEST_PIECES, A.Draw: K.DRAW,
}


class _Builder:
    """Collects the program of one stage."""

    def __init__(self, stage: A.Stage):
        self.stage = stage
        self.topo: Topology = lower(stage)
        headings = {h.player: h.heading for h in stage.forward}
        self.headings = tuple(headings.get(p) for p in stage.player_names)
        self.regions: list[np.ndarray] = []
        self._distances: np.ndarray | None = None

    def dirs(self, directions: A.Directions) -> np.ndarray:
        """int32[2, n_dirs]: the directions a word list names for each player."""
        return np.stack([
            self.topo.direction_mask(geometry.resolve(directions.words, self.topo.is_hex, self.headings[p]))
            for p in (0, 1)
        ])

    def distances(self) -> np.ndarray:
        if self._distances is None:
            self._distances = self.topo.distances()
        return self._distances

    def region(self, cells) -> int:
        mask = np.zeros(self.topo.n_cells, dtype=np.int32)
        mask[list(cells)] = 1
        self.regions.append(mask)
        return len(self.regions) - 1


def _move_directions(kind, b: _Builder) -> np.ndarray:
    words = kind.directions if isinstance(kind, (A.Step, A.Slide, A.Advance)) else A.Directions(())
    return b.dirs(words)


def _move_distance(kind, b: _Builder) -> list[list[int]]:
    """The cells at the rule's distance from each cell (jump, clone), row-major."""
    if not isinstance(kind, (A.Jump, A.Clone)):
        return [[] for _ in range(b.topo.n_cells)]
    dist = b.distances()
    return [list(np.flatnonzero(dist[i] == kind.distance)) for i in range(b.topo.n_cells)]


def _legality(rule: A.MoveRule) -> tuple[int, int]:
    """How the kernels decide `require capture` for a rule: LEGAL_ALWAYS without one; for a
    placement whose only effect before it is a custodial one, LEGAL_CUSTODIAL (a ray test that
    changes nothing, as Othello needs); otherwise LEGAL_PLAY (play it on a scratch board)."""
    if not any(isinstance(e, A.RequireCapture) for e in rule.effects):
        return K.LEGAL_ALWAYS, -1
    first = next(i for i, e in enumerate(rule.effects) if isinstance(e, A.RequireCapture))
    before = rule.effects[:first]
    placement = isinstance(rule.kind, A.PLACEMENTS)
    if placement and len(before) == 1 and isinstance(before[0], (A.FlipCustodial, A.RemoveCustodial)):
        return K.LEGAL_CUSTODIAL, 0
    return K.LEGAL_PLAY, -1


# --- end conditions: (code, parameter, exact) ---------------------------------------------------


def _cond_line(c: A.Line, b: _Builder) -> tuple[int, int, int]:
    return K.LINE, c.length, int(c.exact)


def _cond_reach(c: A.ReachFarRow, b: _Builder) -> tuple[int, int, int]:
    return K.REACH_FAR_ROW, 0, 0  # regions 0 and 1 are the far rows


def _cond_connect(c: A.Connect, b: _Builder) -> tuple[int, int, int]:
    base = len(b.regions)
    rows, cols = b.topo.rows, b.topo.cols
    for pair in c.sides:
        if pair == "top-bottom":
            b.region(range(cols)), b.region(range((rows - 1) * cols, rows * cols))
        else:
            b.region(range(0, rows * cols, cols)), b.region(range(cols - 1, rows * cols, cols))
    return K.CONNECT, base, 0


def _cond_after(c: A.AfterPlies, b: _Builder) -> tuple[int, int, int]:
    return K.AFTER_PLIES, c.plies, 0


def _cond_plain(code: int) -> Callable:
    return lambda c, b: (code, 0, 0)


_CONDITIONS: dict[type, Callable] = {
    A.NoMoves: _cond_plain(K.NO_MOVES), A.BoardFull: _cond_plain(K.BOARD_FULL), A.Line: _cond_line,
    A.ReachFarRow: _cond_reach, A.Connect: _cond_connect, A.NoPieces: _cond_plain(K.NO_PIECES),
    A.AfterPlies: _cond_after,
}


def _far_row(b: _Builder, player: int) -> list[int]:
    rows, cols = b.topo.rows, b.topo.cols
    heading = b.headings[player]
    if heading == "down":
        return list(range((rows - 1) * cols, rows * cols))
    if heading == "up":
        return list(range(cols))
    if heading == "right":
        return list(range(cols - 1, rows * cols, cols))
    if heading == "left":
        return list(range(0, rows * cols, cols))
    return []


def information(stage: A.Stage) -> np.ndarray:
    """The codes of a hidden stage's information lines: int32[3], its hiding's, its refusal's and its
    reveals' (a bit mask: bit k for reveal code k) (compiler/information.py's kernels read them;
    announcements change what a player is told, not the views, so the kernels need none)."""
    if stage.hidden is None or stage.refused is None:
        raise ValueError(f"{stage.name!r} hides nothing: it has no `hidden` line with its `refused` line")
    reveals = 0
    for r in stage.reveal:
        reveals |= 1 << _REVEALS[type(r)]
    return np.array([_HIDINGS[type(stage.hidden)], _REFUSALS[type(stage.refused)], reveals], np.int32)


def build(stage: A.Stage) -> tuple[Program, np.ndarray]:
    """The program of a stage and its initial state."""
    b = _Builder(stage)
    topo, n = b.topo, b.topo.n_cells
    b.region(_far_row(b, 0)), b.region(_far_row(b, 1))

    rules = stage.moves
    n_eff = max([len(r.effects) for r in rules] + [1])
    rule_table = np.zeros((len(rules), K.R_COLS), dtype=np.int32)
    rdirs = np.zeros((len(rules), 2, len(topo.directions)), dtype=np.int32)
    effects = np.zeros((len(rules), n_eff, K.FX_COLS), dtype=np.int32)
    edirs = np.zeros((len(rules), n_eff, 2, len(topo.directions)), dtype=np.int32)
    near = [_move_distance(r.kind, b) for r in rules]
    width = max([len(cells) for lists in near for cells in lists] + [1])
    dist = np.full((len(rules), n, width), -1, dtype=np.int32)
    dist_n = np.zeros((len(rules), n), dtype=np.int32)
    max_moves = 1
    for i, rule in enumerate(rules):
        mode, custodial = _legality(rule)
        target = _TARGETS[getattr(rule.kind, "target", "empty")]
        rule_table[i, [K.R_KIND, K.R_TARGET, K.R_N_EFFECTS, K.R_LEGALITY, K.R_CUSTODIAL]] = (
            _MOVE_CODES[type(rule.kind)], target, len(rule.effects), mode, custodial)
        rdirs[i] = _move_directions(rule.kind, b)
        for e, effect in enumerate(rule.effects):
            effects[i, e, K.FX_KIND] = _EFFECT_CODES[type(effect)]
            effects[i, e, K.FX_OVER_BLOCKED] = getattr(effect, "over_blocked", False)
            if hasattr(effect, "directions"):
                edirs[i, e] = b.dirs(effect.directions)
        for cell, cells in enumerate(near[i]):
            dist[i, cell, : len(cells)] = cells
            dist_n[i, cell] = len(cells)
        # candidates before de-duplication: on a small wrapped board several directions reach
        # one cell, so the bound counts directions, not destinations
        if isinstance(rule.kind, (*A.PLACEMENTS, A.Clone)):
            max_moves += n
        elif isinstance(rule.kind, (A.Step, A.Advance)):  # one destination a direction
            max_moves += n * len(topo.directions)
        elif isinstance(rule.kind, A.Slide):
            max_moves += n * len(topo.directions) * topo.rays.shape[2]
        else:
            max_moves += n * width

    ends = np.zeros((len(stage.ends), K.E_COLS), dtype=np.int32)
    for e, end in enumerate(stage.ends):
        ends[e, [K.E_CONDITION, K.E_PARAM, K.E_EXACT]] = _CONDITIONS[type(end.condition)](end.condition, b)
        ends[e, K.E_RESULT] = _RESULTS[type(end.result)]

    one_rule = len(rules) == 1 and isinstance(rules[0].kind, (A.PlaceEmpty, A.PlaceAdjacent, A.Clone))
    bitboard = n <= 64 and not topo.wrap
    game = np.zeros(K.G_LEN, dtype=np.int32)
    game[[K.G_CELLS, K.G_ROWS, K.G_COLS]] = n, topo.rows, topo.cols
    game[K.G_TURN], game[K.G_PASS] = _TURNS[type(stage.turn)], stage.pass_rule is not None
    game[K.G_MAX_MOVES] = max_moves
    game[K.G_SORT] = not one_rule
    # on a small wrapped board two directions can reach the same cell: de-duplicate there too
    game[K.G_DEDUP] = len(rules) > 1 or topo.wrap
    game[K.G_BITBOARD] = bitboard
    if stage.roll is not None:
        game[K.G_DICE], game[K.G_FACES] = stage.roll.dice, stage.roll.faces
    orth = topo.direction_mask(geometry.resolve(("orthogonal",), topo.is_hex, None))
    names = tuple(geometry.steps(topo.is_hex))
    axes = np.array([names.index(a) for a in geometry.axes(topo.is_hex)], dtype=np.int32)
    shift, mask, opposite = _bitboard_steps(topo)
    program = Program(
        nbr=topo.nbr, rays=topo.rays, ray_len=topo.ray_len, lines=topo.lines, line_len=topo.line_len,
        line_cyclic=topo.line_cyclic, rules=rule_table, rule_dirs=rdirs, effects=effects, effect_dirs=edirs,
        dist=dist, dist_n=dist_n, ends=ends, game=game, regions=np.stack(b.regions), orth=orth, axes=axes,
        opposite=opposite, bb_shift=shift, bb_mask=mask,
    )
    return program, initial_state(stage, topo)


def _bitboard_steps(topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per direction: the bit shift of a step, the cells that have a neighbour that way, and the
    opposite direction. On a board of at most 64 cells without wrap a step is a fixed shift of
    the row-major index (hex boards included)."""
    steps = geometry.steps(topo.is_hex)
    shift = np.array([dr * topo.cols + dc for dr, dc in steps.values()], dtype=np.int32)
    mask = np.zeros(len(steps), dtype=np.uint64)
    if topo.n_cells <= 64:
        for d in range(len(steps)):
            for i in np.flatnonzero(topo.nbr[d] >= 0):
                mask[d] |= np.uint64(1) << np.uint64(i)
    vectors = list(steps.values())
    opposite = np.array([vectors.index((-dr, -dc)) for dr, dc in vectors], dtype=np.int32)
    return shift, mask, opposite


# --- packed: the int32 tables in one array, for calls from Python -------------------------------


def pack(program: Program) -> np.ndarray:
    """The program's int32 tables in one flat array (pack_tables, in the order of FIELDS), so that a
    call from Python hands the kernels two arrays (this one and bb_mask) instead of twenty: each
    array argument costs the call its unboxing."""
    for name, ndim in _PACKED:
        t = getattr(program, name)
        assert t.dtype == np.int32 and t.ndim == ndim, (name, t.dtype, t.ndim)
    return pack_tables([getattr(program, name) for name, _ in _PACKED])


def pack_tables(tables: list[np.ndarray]) -> np.ndarray:
    """int32 tables of 1 to 4 dimensions in one flat int32 array: a header of (offset, 4 sides)
    per table, then the tables; table k reads back with table1..table4(flat, k)."""
    header = np.zeros(5 * len(tables), dtype=np.int32)
    offset = len(header)
    for k, t in enumerate(tables):
        header[5 * k: 5 * k + 5] = [offset, *t.shape, *[1] * (4 - t.ndim)]
        offset += t.size
    return np.concatenate([header] + [np.asarray(t, dtype=np.int32).ravel() for t in tables]).astype(np.int32)


class Layout:
    """The order of a family's int32 tables in its packed array, declared once by name: `pack` takes
    the tables by name and lays them out in this order, `number(name)` is where a kernel reads one
    back (table1..table4), so the order cannot differ between the two
    (tests/test_families.py unpacks every family's tables and compares them by name)."""

    def __init__(self, *names: str):
        self.names = names

    def number(self, name: str) -> int:
        return self.names.index(name)

    def pack(self, **tables: np.ndarray) -> np.ndarray:
        if set(tables) != set(self.names):
            raise ValueError(f"tables {sorted(tables)} do not fit the layout {self.names}")
        return pack_tables([tables[name] for name in self.names])


@inline
def _table(flat, k):
    """Table k of a packed array, flat, and its four sides.

    flat: int32[n_packed] — pack_tables' array (a header of five int32 per table, then the tables)
    -> table: int32[s0 * s1 * s2 * s3] — a view
    -> sides: int32[4] — a view: its shape, padded with 1
    """
    o = 5 * k
    start = flat[o]
    return flat[start: start + flat[o + 1] * flat[o + 2] * flat[o + 3] * flat[o + 4]], flat[o + 1: o + 5]


@inline
def table1(flat, k):
    """Table k of a packed array, a view of it in its own shape.

    flat: int32[n_packed] — pack_tables' array
    -> table: int32[s0] — a view (its sides read from the header)
    """
    return _table(flat, k)[0]


@inline
def table2(flat, k):
    """Table k of a packed array, a view of it in its own shape.

    flat: int32[n_packed] — pack_tables' array
    -> table: int32[s0, s1] — a view (its sides read from the header)
    """
    t, s = _table(flat, k)
    return t.reshape((s[0], s[1]))


@inline
def table3(flat, k):
    """Table k of a packed array, a view of it in its own shape.

    flat: int32[n_packed] — pack_tables' array
    -> table: int32[s0, s1, s2] — a view (its sides read from the header)
    """
    t, s = _table(flat, k)
    return t.reshape((s[0], s[1], s[2]))


@inline
def table4(flat, k):
    """Table k of a packed array, a view of it in its own shape.

    flat: int32[n_packed] — pack_tables' array
    -> table: int32[s0, s1, s2, s3] — a view (its sides read from the header)
    """
    t, s = _table(flat, k)
    return t.reshape((s[0], s[1], s[2], s[3]))


@kernel
def unpack(flat, bb_mask):
    """The Program of pack's flat array (views, no copies). The table numbers follow FIELDS, whose
    number of dimensions chooses table1..table4 (tests/test_program.py checks every field).

    flat: int32[n_packed] — pack's array (a step's may go on past the tables: scratch, the listing)
    bb_mask: uint64[n_dirs] — the one table that is not int32
    -> P: Program — every table by name (FIELDS gives each one's dtype and shape)
    """
    return Program(
        nbr=table2(flat, T_NBR), rays=table3(flat, T_RAYS), ray_len=table2(flat, T_RAY_LEN),
        lines=table2(flat, T_LINES), line_len=table1(flat, T_LINE_LEN), line_cyclic=table1(flat, T_LINE_CYCLIC),
        rules=table2(flat, T_RULES), rule_dirs=table3(flat, T_RULE_DIRS), effects=table3(flat, T_EFFECTS),
        effect_dirs=table4(flat, T_EFFECT_DIRS), dist=table3(flat, T_DIST), dist_n=table2(flat, T_DIST_N),
        ends=table2(flat, T_ENDS), game=table1(flat, T_GAME), regions=table2(flat, T_REGIONS),
        orth=table1(flat, T_ORTH), axes=table1(flat, T_AXES), opposite=table1(flat, T_OPPOSITE),
        bb_shift=table1(flat, T_BB_SHIFT), bb_mask=bb_mask,
    )


def initial_state(stage: A.Stage, topo: Topology) -> np.ndarray:
    """Blocked cells first, then each `setup` in order; the first player to move, the last
    player in turn order as the mover, ply 0."""
    n = topo.n_cells
    state = np.zeros(n + K.STATE_EXTRA, dtype=np.int32)
    state[:n][topo.blocked] = -1
    for setup in stage.setup:
        player = stage.player_names.index(setup.player)
        for cell in A.expand(setup.cells):
            state[topo.index(cell.row, cell.col)] = player + 1
    state[n + K.TO_MOVE], state[n + K.MOVER], state[n + K.PLY] = 0, 1, 0
    return state
