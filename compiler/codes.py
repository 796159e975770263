"""The vocabulary the kernels share: one integer code per rule concept, the columns of the program's
tables, the layout of a state, and the statuses a kernel returns.

Each concept category is numbered here and nowhere else; program.py maps AST classes to these
codes, each kernel dispatcher has one branch per code and answers BAD_CODE for a code it does not
know (never another concept's branch), and each family (families/) lists the codes it handles.
tests/test_concepts.py checks that every concept of the AST reaches every one of those places.

Every kernel's docstring gives each array it takes or returns a line `name: dtype[dims] — what`
(tests/test_kernel_docs.py), with the dimensions named so: n_cells, the board's cells (program.FIELDS
writes n), so a state is int32[n_cells + 4]; n_dirs, n_rules, n_ends, n_lines, n_regions, n_axes,
L, E, M and the column counts below, as program.FIELDS defines them; max_moves, the longest move
list (G_MAX_MOVES); n_packed, the length of a packed array of tables (program.pack_tables);
n_starts and games, the start positions and the games of a playout batch. `P: Program`, `tables:
Tables` and `tuple` name records of such arrays, each documented where it is made.
"""
from __future__ import annotations

# --- rule concepts ------------------------------------------------------------------------------

MOVE_KINDS = PLACE_EMPTY, PLACE_GRAVITY, PLACE_ADJACENT, STEP, SLIDE, JUMP, CLONE, ADVANCE = range(8)
TARGETS = TARGET_EMPTY, TARGET_ENEMY, TARGET_ANY = range(3)
EFFECTS = FLIP, REMOVE, CONVERT, REQUIRE = range(4)
TURNS = ALTERNATE, FEWER_PIECES, AGAIN_AFTER_CAPTURE = range(3)
CONDITIONS = NO_MOVES, BOARD_FULL, LINE, REACH_FAR_ROW, CONNECT, NO_PIECES, AFTER_PLIES = range(7)
RESULTS = MOVER_WINS, MOVER_LOSES, MOST_PIECES, FEWEST_PIECES, DRAW = range(5)

# Information lines (compiler/information.py): what a player does not see, what follows a refused
# try. Families play no hidden stage, so these are no category of theirs.
HIDINGS = (OPPONENT_PIECES,) = range(1)
REFUSALS = RETRY, LOSE_TURN = range(2)
REVEALS = REVEAL_ADJACENT, REVEAL_CAPTURE, REVEAL_REACHABLE = range(3)  # a stage's are a bit mask of these
REVEAL_MASK = (1 << len(REVEALS)) - 1  # every reveal's bit

# The categories of concepts whose codes each family declares it handles or excludes (families/).
CATEGORIES: dict[str, tuple[int, ...]] = {
    "moves": MOVE_KINDS, "targets": TARGETS, "effects": EFFECTS, "turns": TURNS, "conditions": CONDITIONS,
    "results": RESULTS,
}


def coverage(**categories) -> dict[str, frozenset[int]]:
    """A family's HANDLES or EXCLUDES: category name → codes (a category not named: none). Codes are
    named one by one: a whole category would take a concept added later without anyone deciding."""
    unknown = set(categories) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"no concept category {sorted(unknown)}: categories are {sorted(CATEGORIES)}")
    for category, codes in categories.items():
        if codes is CATEGORIES[category]:
            raise ValueError(f"name the {category} codes one by one, not the whole category")
    return {category: frozenset(categories.get(category, ())) for category in CATEGORIES}


# How a rule's `require capture` is decided: no such effect; a ray test that changes nothing (a
# placement whose only effect before it is custodial, as Othello); play it on a scratch board.
LEGALITIES = LEGAL_ALWAYS, LEGAL_CUSTODIAL, LEGAL_PLAY = range(3)

# --- columns of the program's tables (program.Program documents each table) ---------------------

R_KIND, R_TARGET, R_N_EFFECTS, R_LEGALITY, R_CUSTODIAL = range(5)  # rules[r, :]
R_COLS = 5
FX_KIND, FX_OVER_BLOCKED = range(2)  # effects[r, e, :]
FX_COLS = 2
E_CONDITION, E_PARAM, E_EXACT, E_RESULT = range(4)  # ends[e, :]
E_COLS = 4
# game[:]: cells, rows, cols, turn order, pass forced, the longest move list, whether generated
# moves need sorting, de-duplicating, whether sides fit bitboards (≤ 64 cells, no wrap), the roll's
# dice and their faces (0 and 0 without dice)
G_CELLS, G_ROWS, G_COLS, G_TURN, G_PASS, G_MAX_MOVES, G_SORT, G_DEDUP, G_BITBOARD, G_DICE, G_FACES = range(11)
G_LEN = 11  # the length of the game row

# --- a state: int32[n_cells + 4] ------------------------------------------------------------------
# The cells row-major (-1 blocked, 0 empty, 1 the first player's piece, 2 the second's), then at
# these offsets after the cells: the side to move, the mover (who made the last move or pass; the
# last player in turn order before the first move), the ply, and the roll the side to move threw
# (0 on a stage without dice; a move's step leaves it 0 and its thrower sets it: calls.py).
TO_MOVE, MOVER, PLY, ROLL = 0, 1, 2, 3
STATE_EXTRA = 4

# --- statuses -------------------------------------------------------------------------------------
NONE = -1  # no winner (a draw), no cell, no rule (a pass)
CUT = -2  # a playout stopped at max_plies
# A kernel met a code it has no branch for: a compiler bug (a concept added to program.py and
# forgotten in a kernel). Reported as the winner of the game, and raised as an error in Python.
BAD_CODE = -3
REFUSED = -1  # what playing a move answers when `require capture` refuses it
# What a condition dispatcher answers: it holds, it does not, or the code is unknown.
HOLDS, HOLDS_NOT, UNKNOWN = 1, 0, -1
NEEDS_BOARD = -2  # the bitboard form's answer for a condition read with the board's tables (board_bits)

# --- calls from Python (calls.py) -----------------------------------------------------------------
# A move crosses the call as one int, its code: the destination cell of a placement, (origin + 1) *
# n_cells + destination of a piece move, PASS_CODE for a pass. A step's `out` buffer lists the
# position's moves as codes (max_moves of them), then their rules (max_moves more).
PASS_CODE = -1
STATUS_ONLY = -2  # the code of a step that plays nothing: the status of the state itself
NOT_A_MOVE = -3  # the code of a move that names a cell off the board (never legal)
ILLEGAL = -4  # the winner a step answers for a move that is not among the position's
# the winner a step answers for a state that breaks the layout above (an array from outside the
# game, e.g. an agent's: the kernels read states without bounds checks, so they check it first)
BAD_STATE = -5


def move_code(src: int, dst: int, size: int) -> int:
    """The code of the move src→dst on a board of `size` cells (src -1: a placement; dst -1 too: a
    pass). Plain Python, compiled for the kernels as calls.encode: one definition for both."""
    return dst if src < 0 else (src + 1) * size + dst


def move_cells(code: int, size: int) -> tuple[int, int]:
    """(origin, destination) of a move's code; origin -1 for a placement, (-1, -1) for a pass
    (move_code's inverse; calls.decode in the kernels)."""
    if code < size:
        return -1, code
    return code // size - 1, code % size
