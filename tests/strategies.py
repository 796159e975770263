"""Hypothesis strategies that generate stage ASTs, for property tests (and the sampler's tests).

Two families:

- `stages()`: arbitrary *printable* stages, the space on which `parse(format(s)) == s` must hold.
  They need not be valid or even sensible: cells may lie off the board, player names may repeat,
  `setup` may name a player that is not playing, there may be no move and no end. Every field
  takes every value the printer can write and the parser read back.
- `codable_stages()`: the printable stages the description length codes (gdl/bits.py): board
  sides 1..26, every cell on the board, two distinct players, setups and headings of those
  players, at most one heading each, at least one move and one end, integers ≥ 1.

Strategies for each sub-node family (cells, directions, move kinds, effects, conditions, results,
...) are exported so other tests can reuse them. Integers are drawn from a small range with the
occasional large one; cells from the 26x26 names a..z, 1..26. The factories are cached: building
and validating a strategy costs far more than drawing from it.
"""
from __future__ import annotations

import itertools
import string
from functools import cache

from hypothesis import strategies as st

from ludica.gdl import ast as A
from ludica.gdl import geometry

MAX_SIDE = A.MAX_BOARD_SIDE
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines() breaks on

# --- labels --------------------------------------------------------------------------------------

NAME_START = string.ascii_letters
NAME_REST = string.ascii_letters + string.digits + "_"


@cache
def player_names() -> st.SearchStrategy[str]:
    """A player name: `[A-Za-z][A-Za-z0-9_]*` (keywords included: they are names in that place)."""
    keywords = st.sampled_from(("game", "board", "players", "setup", "move", "end", "forward", "up",
                                "all", "n", "empty", "to", "wrap", "a1", "x", "pass", "draw", "random", "in"))
    made = st.builds(lambda a, b: a + b, st.sampled_from(NAME_START),
                     st.text(alphabet=NAME_REST, max_size=8))
    return st.one_of(made, keywords)


@cache
def game_names() -> st.SearchStrategy[str]:
    """A game name: any text without `"` and without line breaks (a `#` is fine: it is quoted)."""
    return st.text(st.characters(exclude_characters='"' + LINE_BREAKS, exclude_categories=("Cs",)),
                   max_size=30)


# --- integers ------------------------------------------------------------------------------------


@cache
def naturals(min_value: int = 0) -> st.SearchStrategy[int]:
    """Mostly small integers, sometimes large ones (the grammar reads any run of digits)."""
    return st.one_of(st.integers(min_value, 12), st.integers(min_value, 10**6))


@cache
def sides(max_side: int = MAX_SIDE) -> st.SearchStrategy[int]:
    return st.integers(1, max_side)


# --- cells ---------------------------------------------------------------------------------------


@cache
def cells(rows: int = MAX_SIDE, cols: int = MAX_SIDE) -> st.SearchStrategy[A.Cell]:
    """A cell with row < rows and col < cols (by default anything a1..z26 can name)."""
    return st.builds(A.Cell, st.integers(0, rows - 1), st.integers(0, cols - 1))


@cache
def cell_ranges(rows: int = MAX_SIDE, cols: int = MAX_SIDE) -> st.SearchStrategy[A.CellRange]:
    return st.builds(A.CellRange, cells(rows, cols), cells(rows, cols))


@cache
def cell_items(rows: int = MAX_SIDE, cols: int = MAX_SIDE) -> st.SearchStrategy[A.CellItem]:
    return st.one_of(cells(rows, cols), cell_ranges(rows, cols))


@cache
def cell_lists(rows: int = MAX_SIDE, cols: int = MAX_SIDE, *, min_size: int = 1,
               max_size: int = 5) -> st.SearchStrategy[tuple[A.CellItem, ...]]:
    return st.lists(cell_items(rows, cols), min_size=min_size, max_size=max_size).map(tuple)


# --- concepts, from their fields' forms (gdl/ast.py) ------------------------------------------------


def _values(form: A.Form, sizes, integers) -> st.SearchStrategy:
    """Every value a field of the form prints and parses back as."""
    if isinstance(form, A.Side):
        return sizes if sizes is not None else sides()
    if isinstance(form, A.Count):
        chosen = dict(integers).get(form.name) if isinstance(integers, tuple) else integers
        return chosen if chosen is not None else naturals()
    if isinstance(form, A.Flag):
        return st.booleans()
    if isinstance(form, A.Word):
        return st.sampled_from(form.words)
    if isinstance(form, A.Words):
        return st.tuples(*[st.sampled_from(form.words)] * form.count)
    if isinstance(form, A.DirectionList):
        return directions()
    raise TypeError(f"tests/strategies.py draws no value of the form {type(form).__name__}")


@cache
def concepts(kinds: tuple[type, ...], sizes: st.SearchStrategy[int] | None = None,
             integers: st.SearchStrategy[int] | tuple | None = None,
             weights: tuple[tuple[type, int], ...] = ()) -> st.SearchStrategy:
    """A node of any of the concept classes, every field drawn by its form: `sizes` for board
    sides, `integers` for counts (one strategy, or (count name, strategy) pairs: "line length",
    "plies", "distance"; naturals() otherwise); `weights` repeats some kinds to draw them more."""
    weight = dict(weights)
    return st.one_of(*[st.builds(kind, **{name: _values(form, sizes, integers) for name, form in A.forms(kind)})
                       for kind in kinds for _ in range(weight.get(kind, 1))])


def every_concept(kinds: tuple[type, ...], *, sides=(1,), integers=(1,), directions=None) -> list:
    """Every node of the concept classes whose fields take the given values: board sides from
    `sides`, counts from `integers`, direction lists from `directions` (every one-word list by
    default), every flag and every word of a closed vocabulary; for enumerating a small space."""
    one_word = [A.Directions((w,)) for w in A.DIRECTION_WORDS] if directions is None else directions

    def values(form: A.Form) -> list:
        if isinstance(form, A.Side):
            return list(sides)
        if isinstance(form, A.Count):
            return list(integers)
        if isinstance(form, A.Flag):
            return [False, True]
        if isinstance(form, A.Word):
            return list(form.words)
        if isinstance(form, A.Words):
            return list(itertools.product(form.words, repeat=form.count))
        if isinstance(form, A.DirectionList):
            return list(one_word)
        raise TypeError(f"tests/strategies.py enumerates no value of the form {type(form).__name__}")

    out = []
    for kind in kinds:
        names = [name for name, _ in A.forms(kind)]
        for combo in itertools.product(*[values(form) for _, form in A.forms(kind)]):
            out.append(kind(**dict(zip(names, combo))))
    return out


# --- boards --------------------------------------------------------------------------------------


@cache
def boards(sizes: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[A.Board]:
    return concepts(A.BOARD_KINDS, sizes=sizes if sizes is not None else sides())


# --- directions, moves, effects ------------------------------------------------------------------


@cache
def direction_words() -> st.SearchStrategy[str]:
    return st.sampled_from(A.DIRECTION_WORDS)


@cache
def directions(max_words: int = 4) -> st.SearchStrategy[A.Directions]:
    """A non-empty union of direction words (repeats allowed: they print and parse)."""
    return st.lists(direction_words(), min_size=1, max_size=max_words).map(lambda w: A.Directions(tuple(w)))


@cache
def targets() -> st.SearchStrategy[str]:
    return st.sampled_from(A.TARGETS)


@cache
def move_kinds(distances: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[A.MoveKind]:
    return concepts(A.MOVE_KINDS, integers=distances)


@cache
def effects() -> st.SearchStrategy[A.Effect]:
    return concepts(A.EFFECT_KINDS)


@cache
def move_rules(distances: st.SearchStrategy[int] | None = None, max_effects: int = 3) -> st.SearchStrategy[A.MoveRule]:
    return st.builds(A.MoveRule, move_kinds(distances),
                     st.lists(effects(), max_size=max_effects).map(tuple))


# --- turn order, ends ----------------------------------------------------------------------------


@cache
def turn_orders() -> st.SearchStrategy[A.TurnOrder]:
    return concepts(A.TURN_ORDERS)


@cache
def pass_rules() -> st.SearchStrategy[A.PassForced | None]:
    return st.one_of(st.none(), concepts(A.PASS_RULES))


@cache
def information() -> st.SearchStrategy[dict]:
    """Information lines, any combination (printable; `refused`, `announce` or `reveal` alone is an
    error the checks report)."""
    return st.fixed_dictionaries({"hidden": st.one_of(st.none(), concepts(A.HIDINGS)),
                                  "refused": st.one_of(st.none(), concepts(A.REFUSALS)),
                                  "announce": _lists(concepts(A.ANNOUNCEMENTS), 0, 2),
                                  "reveal": _lists(concepts(A.REVEALS), 0, 2)})


@cache
def codable_information() -> st.SearchStrategy[dict]:
    """Information lines the description length codes: none, or `hidden` with `refused`."""
    return st.one_of(st.just({}), st.fixed_dictionaries({"hidden": concepts(A.HIDINGS), "refused": concepts(A.REFUSALS),
                                                         "announce": _lists(concepts(A.ANNOUNCEMENTS), 0, 2),
                                                         "reveal": _lists(concepts(A.REVEALS), 0, 2)}))


@cache
def chance() -> st.SearchStrategy[dict]:
    """Chance lines, any combination (printable: a count of 0 or more cells than listed, or dice out
    of bounds, are errors the checks report)."""
    return st.fixed_dictionaries({
        "random_blocked": _lists(st.builds(A.RandomBlocked, naturals(0), cell_lists()), 0, 2),
        "random_setup": _lists(st.builds(A.RandomSetup, player_names(), naturals(0), cell_lists()), 0, 2),
        "roll": st.none() | st.builds(A.Roll, naturals(0), naturals(0))})


@cache
def codable_chance(rows: int, cols: int) -> st.SearchStrategy[dict]:
    """Chance lines the description length codes: none, or at least one line, counts ≥ 1, dice within
    their bounds."""
    lines = st.fixed_dictionaries({
        "random_blocked": _lists(st.builds(A.RandomBlocked, naturals(1), cell_lists(rows, cols)), 0, 2),
        "random_setup": _lists(st.tuples(st.integers(0, 1), naturals(1), cell_lists(rows, cols)), 0, 2),
        "roll": st.none() | st.builds(A.Roll, st.integers(1, A.MAX_DICE), st.integers(2, A.MAX_FACES))})
    return st.one_of(st.just({}), lines.filter(lambda d: d["random_blocked"] or d["random_setup"] or d["roll"]))


@cache
def conditions(integers: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[A.Condition]:
    return concepts(A.CONDITIONS, integers=integers)


@cache
def results() -> st.SearchStrategy[A.Result]:
    return concepts(A.RESULTS)


@cache
def ends(integers: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[A.End]:
    return st.builds(A.End, conditions(integers), results())


# --- whole stages --------------------------------------------------------------------------------

# A player named in `setup` or `forward`: 0 or 1 for one of the stage's players, or any name.
_PLAYER_REFS = st.one_of(st.integers(0, 1), player_names())


_HEADING_ENTRIES = st.tuples(_PLAYER_REFS, st.sampled_from(A.HEADINGS))
_SETUP_ENTRIES = st.tuples(_PLAYER_REFS, cell_lists())


def _named(ref: int | str, names: tuple[str, str]) -> str:
    return names[ref] if isinstance(ref, int) else ref


@cache
def _lists(strategy: st.SearchStrategy, min_size: int, max_size: int) -> st.SearchStrategy[tuple]:
    return st.lists(strategy, min_size=min_size, max_size=max_size).map(tuple)


@st.composite
def stages(draw, max_moves: int = 4, max_ends: int = 4) -> A.Stage:
    """An arbitrary printable stage (not necessarily valid: see the module docstring)."""
    names = (draw(player_names()), draw(player_names()))
    headings = draw(_lists(_HEADING_ENTRIES, 0, 3))
    setups = draw(_lists(_SETUP_ENTRIES, 0, 3))
    return A.Stage(
        name=draw(game_names()),
        board=draw(boards()),
        players=A.Players(names),
        moves=draw(_lists(move_rules(), 0, max_moves)),
        ends=draw(_lists(ends(), 0, max_ends)),
        blocked=draw(cell_lists(min_size=0)),
        forward=tuple(A.Heading(_named(p, names), h) for p, h in headings),
        setup=tuple(A.Setup(_named(p, names), c) for p, c in setups),
        turn=draw(turn_orders()),
        pass_rule=draw(pass_rules()),
        **draw(information()),
        **draw(chance()),
    )


_HEADINGS = st.sampled_from(A.HEADINGS)
_HEADING_ORDERS = st.sampled_from([(), (0,), (1,), (0, 1), (1, 0)])
_TWO_NAMES = st.lists(player_names(), min_size=2, max_size=2, unique=True).map(tuple)


@cache
def _setup_entries(rows: int, cols: int) -> st.SearchStrategy[tuple[int, tuple]]:
    return st.tuples(st.integers(0, 1), cell_lists(rows, cols))


@st.composite
def codable_stages(draw, max_moves: int = 4, max_ends: int = 4, max_side: int = MAX_SIDE) -> A.Stage:
    """A printable stage inside the description length's domain (see gdl/bits.py)."""
    names = draw(_TWO_NAMES)
    board = draw(boards(sides(max_side)))
    rows, cols = board.rows, board.cols
    positive = naturals(1)
    setups = draw(_lists(_setup_entries(rows, cols), 0, 3))
    return A.Stage(
        name=draw(game_names()),
        board=board,
        players=A.Players(names),
        moves=draw(_lists(move_rules(positive), 1, max_moves)),
        ends=draw(_lists(ends(positive), 1, max_ends)),
        blocked=draw(cell_lists(rows, cols, min_size=0)),
        forward=tuple(A.Heading(names[p], draw(_HEADINGS)) for p in draw(_HEADING_ORDERS)),
        setup=tuple(A.Setup(names[p], c) for p, c in setups),
        turn=draw(turn_orders()),
        pass_rule=draw(pass_rules()),
        **draw(codable_information()),
        **_setups_named(draw(codable_chance(rows, cols)), names),
    )


def _setups_named(chance: dict, names: tuple[str, str]) -> dict:
    """codable_chance's random setups with their players named."""
    if "random_setup" in chance:
        chance = dict(chance, random_setup=tuple(A.RandomSetup(names[p], n, c) for p, n, c in chance["random_setup"]))
    return chance


# --- playable stages (for differential tests of the compiled kernels) -----------------------------


@cache
def _conditions_on(rows: int, cols: int, max_plies: int, lines: int = 1, reaches: int = 1,
                   counts: int = 1) -> st.SearchStrategy[A.Condition]:
    """Every end condition, with line lengths within a rows x cols board and ply counts up to
    max_plies; lines, far rows and no-pieces weighed `lines`, `reaches`, `counts` times as much."""
    longest = max(rows, cols)
    integers = (("line length", st.integers(min(2, longest), longest)), ("plies", st.integers(2, max_plies)))
    return concepts(A.CONDITIONS, integers=integers, weights=((A.Line, lines), (A.ReachFarRow, reaches),
                                                              (A.NoPieces, counts)))


@st.composite
def playable_stages(draw, max_side: int = 8, max_moves: int = 3, max_ends: int = 3) -> A.Stage:
    """A stage on a small board (sides ≤ max_side, mostly 3..6) that is likely to pass the static
    checks with no error and to last more than a few plies: distinct setup cells off the blocked
    cells, every player given a heading (most of the time), jump and clone distances 1..4, line
    lengths within the board. The caller still filters with `check_stage` (e.g. `require capture`
    with nothing before it). Covers every board kind (wrapped or not), move kind, target, effect,
    turn order, end condition and result."""
    side = st.one_of(st.integers(3, 6), st.integers(1, max_side))
    wrap = draw(st.booleans())
    board = draw(st.one_of(
        st.builds(A.SquareBoard, side, st.just(wrap)),
        st.builds(A.RectBoard, side, side, st.just(wrap)),
        st.builds(A.HexBoard, side, st.just(wrap)),
    ))
    rows, cols = board.rows, board.cols
    names = draw(st.sampled_from([("black", "white"), ("x", "o"), ("red", "blue")]))
    blocked = draw(st.lists(cells(rows, cols), max_size=min(3, rows * cols - 1), unique=True))
    free = [A.Cell(r, c) for r in range(rows) for c in range(cols) if A.Cell(r, c) not in blocked]
    moves = draw(_lists(move_rules(st.integers(1, 4)), 1, max_moves))
    places = any(not m.kind.needs_piece for m in moves)  # moves that bring pieces onto the board
    # Few pieces where placements fill the board, more where pieces only move.
    most = min(len(free) // 2, 3 if places else 8)
    placed = draw(st.lists(st.sampled_from(free), unique=True, max_size=most)) if free and most else []
    owners = draw(st.lists(st.integers(0, 1), min_size=len(placed), max_size=len(placed)))
    setup = tuple(A.Setup(names[p], tuple(c for c, o in zip(placed, owners) if o == p))
                  for p in (0, 1) if p in owners)
    headed = draw(st.sampled_from([(0, 1), (0, 1), (0, 1), (1, 0), (0,), (1,), ()]))
    condition = _conditions_on(rows, cols, 120)
    return A.Stage(
        name="random",
        board=board,
        players=A.Players(names),
        moves=moves,
        ends=draw(_lists(st.builds(A.End, condition, results()), 1, max_ends)),
        blocked=tuple(blocked),
        forward=tuple(A.Heading(names[p], draw(_HEADINGS)) for p in headed),
        setup=setup,
        turn=draw(turn_orders()),
        pass_rule=draw(pass_rules()),
    )


@st.composite
def _bitboard_boards(draw, max_cells: int, min_cols: int, max_blocked: int):
    """(board, blocked cells, free cells): a square, rectangular or hex board of at most
    max_cells cells (sides 2..8, a rectangle's columns from min_cols), wrapped now and then,
    with up to max_blocked blocked cells."""
    kind = draw(st.sampled_from(["square", "square", "rect", "hex"]))
    wrap = draw(st.integers(0, 9)) == 0
    side = st.integers(2, 8)
    if kind == "rect":
        rows = draw(side)
        board = A.RectBoard(rows, draw(st.integers(min_cols, min(8, max_cells // rows))), wrap)
    else:
        board = (A.SquareBoard if kind == "square" else A.HexBoard)(draw(side), wrap)
    rows, cols = board.rows, board.cols
    blocked = draw(st.lists(cells(rows, cols), max_size=min(max_blocked, rows * cols - 2), unique=True))
    free = [A.Cell(r, c) for r in range(rows) for c in range(cols) if A.Cell(r, c) not in blocked]
    return board, blocked, free


_OTHELLO_ENDS = st.one_of(st.just(A.NoMoves()), st.just(A.BoardFull()), st.just(A.NoPieces()),
                          st.builds(A.AfterPlies, st.integers(2, 80)))


@st.composite
def othello_like_stages(draw, max_cells: int = 64) -> A.Stage:
    """Stages of the Othello family, which the compiler plays with bitboards: a placement with a
    custodial effect and `require capture` (mostly `place empty` + `flip custodial`, exactly the
    Arena's rules), on square, rectangular and hex boards of at most max_cells cells (wrapped
    now and then), with blocked cells, any setup, directions (forward-relative ones included),
    over-blocked or not, any turn order and pass rule, and the ends the family allows."""
    board, blocked, free = draw(_bitboard_boards(max_cells, 2, 6))
    rows, cols = board.rows, board.cols
    names = ("black", "white")
    r0, c0 = max(rows // 2 - 1, 0), max(cols // 2 - 1, 0)
    centre = [A.Cell(r, c) for r in (r0, r0 + 1) for c in (c0, c0 + 1) if r < rows and c < cols]
    if draw(st.booleans()) and all(c in free for c in centre) and len(centre) == 4:
        placed, owners = centre, [1, 0, 0, 1]
    else:
        placed = draw(st.lists(st.sampled_from(free), unique=True, min_size=2, max_size=min(len(free), 8)))
        owners = draw(st.lists(st.integers(0, 1), min_size=len(placed), max_size=len(placed)))
    setup = tuple(A.Setup(names[p], tuple(c for c, o in zip(placed, owners) if o == p))
                  for p in (0, 1) if p in owners)
    place = draw(st.sampled_from([A.PlaceEmpty()] * 4 + [A.PlaceGravity(), A.PlaceAdjacent()]))
    custodial = draw(st.sampled_from([A.FlipCustodial] * 4 + [A.RemoveCustodial]))
    words = draw(st.one_of(st.just(("all",)), directions().map(lambda d: d.words)))
    effect = custodial(A.Directions(words), draw(st.booleans()))
    return A.Stage(
        name="othello-like",
        board=board,
        players=A.Players(names),
        moves=(A.MoveRule(place, (effect, A.RequireCapture())),),
        ends=draw(_lists(st.builds(A.End, _OTHELLO_ENDS, results()), 1, 2)),
        blocked=tuple(blocked),
        forward=tuple(A.Heading(n, draw(_HEADINGS)) for n in names),
        setup=setup,
        turn=draw(turn_orders()),
        pass_rule=draw(st.sampled_from([A.PassForced(), A.PassForced(), None])),
    )


@st.composite
def placement_stages(draw, max_side: int = 8) -> A.Stage:
    """Pure placement games (one `place empty` or `place gravity` rule without effects: the family
    the compiler plays with straight code, testing ends around the cell just played), on every
    board kind, with any ends (lines exact or not, connections, far rows, counts, plies), turn
    order and pass rule, and setups that sometimes already hold a line or a connection."""
    side = st.one_of(st.integers(2, 6), st.integers(1, max_side))
    wrap = draw(st.integers(0, 2)) == 0
    board = draw(st.one_of(
        st.builds(A.SquareBoard, side, st.just(wrap)),
        st.builds(A.RectBoard, side, side, st.just(wrap)),
        st.builds(A.HexBoard, side, st.just(wrap)),
    ))
    rows, cols = board.rows, board.cols
    names = ("x", "o")
    blocked = draw(st.lists(cells(rows, cols), max_size=min(3, rows * cols - 1), unique=True))
    free = [A.Cell(r, c) for r in range(rows) for c in range(cols) if A.Cell(r, c) not in blocked]
    placed = draw(st.lists(st.sampled_from(free), unique=True, max_size=min(len(free) - 1, 5))) if len(free) > 1 else []
    owners = draw(st.lists(st.integers(0, 1), min_size=len(placed), max_size=len(placed)))
    setup = tuple(A.Setup(names[p], tuple(c for c, o in zip(placed, owners) if o == p))
                  for p in (0, 1) if p in owners)
    condition = _conditions_on(rows, cols, 60, lines=2)
    return A.Stage(
        name="placement",
        board=board,
        players=A.Players(names),
        moves=(A.MoveRule(draw(st.sampled_from([A.PlaceEmpty(), A.PlaceEmpty(), A.PlaceGravity()])), ()),),
        ends=draw(_lists(st.builds(A.End, condition, results()), 1, 3)),
        blocked=tuple(blocked),
        forward=tuple(A.Heading(n, draw(_HEADINGS)) for n in names),
        setup=setup,
        turn=draw(turn_orders()),
        pass_rule=draw(pass_rules()),
    )


@st.composite
def stepping_stages(draw, max_cells: int = 64) -> A.Stage:
    """Stepping-piece games (every move rule a `step` without effects: the family the compiler
    plays with bitboards, Breakthrough's), on square, rectangular and hex boards of at most
    max_cells cells (wrapped now and then, which leaves the family), with blocked cells, rows of
    pieces facing each other or pieces anywhere, one to three step rules with any directions
    (forward-relative ones included) and targets, any ends, turn order and pass rule."""
    board, blocked, free = draw(_bitboard_boards(max_cells, 1, 4))
    rows, cols = board.rows, board.cols
    names = ("white", "black")
    if draw(st.booleans()):  # Breakthrough-like: the first rows against the last ones
        depth = draw(st.integers(1, max(1, rows // 3)))
        placed = [c for c in free if c.row < depth or c.row >= rows - depth]
        owners = [0 if c.row < depth else 1 for c in placed]
        heading = ("down", "up")
    else:
        placed = draw(st.lists(st.sampled_from(free), unique=True, min_size=min(len(free), 2),
                               max_size=min(len(free), 12)))
        owners = [0, 1][: len(placed)] + draw(st.lists(st.integers(0, 1), min_size=len(placed) - 2,
                                                       max_size=len(placed) - 2))
        heading = (draw(_HEADINGS), draw(_HEADINGS))
    setup = tuple(A.Setup(names[p], tuple(c for c, o in zip(placed, owners) if o == p))
                  for p in (0, 1) if p in owners)
    # direction words the board has (hex boards have no diagonals)
    hexagonal = isinstance(board, A.HexBoard)
    presets = [("forward",), ("all",), ("orthogonal",), ("sideways",), ("backward",)]
    if not hexagonal:
        presets += [("forward", "forward-diagonal"), ("forward-diagonal",), ("diagonal",)]
    single = tuple(geometry.steps(hexagonal)) + ("all", "orthogonal", "forward", "sideways", "backward")
    words = st.one_of(st.sampled_from(presets), st.lists(st.sampled_from(single), min_size=1, max_size=3).map(tuple))
    step = st.builds(lambda w, t: A.MoveRule(A.Step(A.Directions(w), t)), words, targets())
    condition = _conditions_on(rows, cols, 80, reaches=2, counts=2)
    return A.Stage(
        name="stepping",
        board=board,
        players=A.Players(names),
        moves=draw(_lists(step, 1, 3)),
        ends=draw(_lists(st.builds(A.End, condition, results()), 1, 3)),
        blocked=tuple(blocked),
        forward=tuple(A.Heading(n, h) for n, h in zip(names, heading)),
        setup=setup,
        turn=draw(turn_orders()),
        pass_rule=draw(pass_rules()),
    )
