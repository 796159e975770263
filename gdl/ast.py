"""The typed AST of a stage: a tree of frozen, hashable dataclasses.

One rule concept ("ludeme") = one grammar rule = one node class. Every node carries the source
span it was parsed from (`span`, excluded from equality and hashing, so a stage built in code
equals the same stage parsed from text). A concept node (a kind of board, move, effect, turn
order, end condition or result, and the pass rule: `CONCEPTS`) declares its keyword and the
grammar rule it is written with as the class variables `keyword` and `rule`; the parser builds it
from that rule, and the printer, the description length and the interpreters dispatch on the
node's class through tables, never through one giant visitor (tests/test_concepts.py checks that
every concept is in every table).

Coordinates: a cell is (row, col), 0-based, row 0 at the top. Its name is the column letter and
the 1-based row number: Cell(row=2, col=3) is `d3` (the Othello AI Arena's notation).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Union

COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_BOARD_SIDE = len(COLUMN_LETTERS)  # a column is one letter, so at most 26 columns (and rows)


@dataclass(frozen=True)
class Span:
    """Where a node came from: 1-based line and column, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True)
class Node:
    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


# --- cells -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell(Node):
    row: int
    col: int

    @property
    def name(self) -> str:
        return cell_name(self.row, self.col)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CellRange(Node):
    """`a1..h2`: every cell of the rectangle spanned by two corners, in row-major order."""

    first: Cell
    last: Cell

    def cells(self) -> tuple[Cell, ...]:
        r0, r1 = sorted((self.first.row, self.last.row))
        c0, c1 = sorted((self.first.col, self.last.col))
        return tuple(Cell(r, c, span=self.span) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))


CellItem = Union[Cell, CellRange]


def cell_name(row: int, col: int) -> str:
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def expand(items: tuple[CellItem, ...]) -> tuple[Cell, ...]:
    """The cells a list of cells and ranges names, in the order written (duplicates kept)."""
    out: list[Cell] = []
    for item in items:
        out.extend(item.cells() if isinstance(item, CellRange) else (item,))
    return tuple(out)


# --- boards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SquareBoard(Node):
    """`board square N`: N×N cells, 8 directions (n ne e se s sw w nw)."""

    keyword: ClassVar[str] = "square"
    rule: ClassVar[str] = "board_square"
    size: int
    wrap: bool = False

    @property
    def rows(self) -> int:
        return self.size

    @property
    def cols(self) -> int:
        return self.size


@dataclass(frozen=True)
class RectBoard(Node):
    """`board rect ROWS COLS`: a rectangle, 8 directions like the square board."""

    keyword: ClassVar[str] = "rect"
    rule: ClassVar[str] = "board_rect"
    n_rows: int
    n_cols: int
    wrap: bool = False

    @property
    def rows(self) -> int:
        return self.n_rows

    @property
    def cols(self) -> int:
        return self.n_cols


@dataclass(frozen=True)
class HexBoard(Node):
    """`board hex N`: the N×N rhombus of hexagons used by Hex, 6 directions (n ne e s sw w).

    Row r is shifted half a cell right of row r-1, so (r, c) touches (r-1, c), (r-1, c+1),
    (r, c-1), (r, c+1), (r+1, c-1) and (r+1, c).
    """

    keyword: ClassVar[str] = "hex"
    rule: ClassVar[str] = "board_hex"
    size: int
    wrap: bool = False

    @property
    def rows(self) -> int:
        return self.size

    @property
    def cols(self) -> int:
        return self.size


Board = Union[SquareBoard, RectBoard, HexBoard]
BOARD_KINDS: tuple[type, ...] = (SquareBoard, RectBoard, HexBoard)


# --- directions --------------------------------------------------------------------------------

# Direction words, in the order the description length numbers them. Compass words name single
# directions; the others name sets, resolved per board (hex boards have no diagonals) and, for
# the forward-relative ones, per player (see `forward`).
DIRECTION_WORDS: tuple[str, ...] = (
    "all", "orthogonal", "diagonal", "forward", "forward-diagonal", "backward", "sideways",
    "n", "ne", "e", "se", "s", "sw", "w", "nw",
)


@dataclass(frozen=True)
class Directions(Node):
    """A union of direction words, e.g. `forward forward-diagonal`; never empty."""

    words: tuple[str, ...]


ALL_DIRECTIONS = Directions(("all",))

# --- moves -------------------------------------------------------------------------------------

TARGETS: tuple[str, ...] = ("empty", "enemy", "any")  # where a moving piece may land


@dataclass(frozen=True)
class PlaceEmpty(Node):
    """`place empty`: put a new piece on any empty cell."""

    keyword: ClassVar[str] = "place empty"
    rule: ClassVar[str] = "place_empty"


@dataclass(frozen=True)
class PlaceGravity(Node):
    """`place gravity`: put a new piece on the lowest empty cell of a column (Connect Four)."""

    keyword: ClassVar[str] = "place gravity"
    rule: ClassVar[str] = "place_gravity"


@dataclass(frozen=True)
class PlaceAdjacent(Node):
    """`place adjacent`: put a new piece on an empty cell next to one of the mover's pieces."""

    keyword: ClassVar[str] = "place adjacent"
    rule: ClassVar[str] = "place_adjacent"


@dataclass(frozen=True)
class Step(Node):
    """`step DIRS to TARGET`: move a piece one cell in one of the directions."""

    keyword: ClassVar[str] = "step"
    rule: ClassVar[str] = "piece_step"
    directions: Directions = ALL_DIRECTIONS
    target: str = "empty"


@dataclass(frozen=True)
class Slide(Node):
    """`slide DIRS to TARGET`: move a piece over empty cells, any distance, in one direction."""

    keyword: ClassVar[str] = "slide"
    rule: ClassVar[str] = "piece_slide"
    directions: Directions = ALL_DIRECTIONS
    target: str = "empty"


@dataclass(frozen=True)
class Jump(Node):
    """`jump N to TARGET`: move a piece to a cell at distance exactly N, over anything."""

    keyword: ClassVar[str] = "jump"
    rule: ClassVar[str] = "piece_jump"
    distance: int = 2
    target: str = "empty"


@dataclass(frozen=True)
class Clone(Node):
    """`clone N to TARGET`: like jump, but the origin keeps its piece (a new piece appears)."""

    keyword: ClassVar[str] = "clone"
    rule: ClassVar[str] = "piece_clone"
    distance: int = 1
    target: str = "empty"


MoveKind = Union[PlaceEmpty, PlaceGravity, PlaceAdjacent, Step, Slide, Jump, Clone]
MOVE_KINDS: tuple[type, ...] = (PlaceEmpty, PlaceGravity, PlaceAdjacent, Step, Slide, Jump, Clone)
PLACEMENTS: tuple[type, ...] = (PlaceEmpty, PlaceGravity, PlaceAdjacent)


# --- effects (indented under their move) ---------------------------------------------------------


@dataclass(frozen=True)
class FlipCustodial(Node):
    """`flip custodial DIRS [over-blocked]`: enemy runs closed by the mover's piece change side."""

    keyword: ClassVar[str] = "flip custodial"
    rule: ClassVar[str] = "effect_flip"
    directions: Directions = ALL_DIRECTIONS
    over_blocked: bool = False


@dataclass(frozen=True)
class RemoveCustodial(Node):
    """`remove custodial DIRS [over-blocked]`: enemy runs closed by the mover's piece are removed."""

    keyword: ClassVar[str] = "remove custodial"
    rule: ClassVar[str] = "effect_remove"
    directions: Directions = ALL_DIRECTIONS
    over_blocked: bool = False


@dataclass(frozen=True)
class ConvertAdjacent(Node):
    """`convert adjacent DIRS`: enemy pieces next to the arrival cell change side (Ataxx)."""

    keyword: ClassVar[str] = "convert adjacent"
    rule: ClassVar[str] = "effect_convert"
    directions: Directions = ALL_DIRECTIONS


@dataclass(frozen=True)
class RequireCapture(Node):
    """`require capture`: the move is legal only if the effects written before this line, with the
    capture on arrival, took at least one piece (captured, flipped, removed or converted)."""

    keyword: ClassVar[str] = "require capture"
    rule: ClassVar[str] = "effect_require"


Effect = Union[FlipCustodial, RemoveCustodial, ConvertAdjacent, RequireCapture]
EFFECT_KINDS: tuple[type, ...] = (FlipCustodial, RemoveCustodial, ConvertAdjacent, RequireCapture)


@dataclass(frozen=True)
class MoveRule(Node):
    """`move KIND` and the effects indented under it, applied in the order written."""

    kind: MoveKind
    effects: tuple[Effect, ...] = ()


# --- turn order, passing -------------------------------------------------------------------------


@dataclass(frozen=True)
class Alternate(Node):
    """`turn alternate` (the default): the players take turns."""

    keyword: ClassVar[str] = "alternate"
    rule: ClassVar[str] = "turn_alternate"


@dataclass(frozen=True)
class FewerPieces(Node):
    """`turn fewer-pieces`: after a move, the side with strictly fewer pieces moves next;
    equal counts alternate (the Arena's fewerPiecesContinue)."""

    keyword: ClassVar[str] = "fewer-pieces"
    rule: ClassVar[str] = "turn_fewer_pieces"


@dataclass(frozen=True)
class AgainAfterCapture(Node):
    """`turn again-after-capture`: a move that took at least one piece is followed by another."""

    keyword: ClassVar[str] = "again-after-capture"
    rule: ClassVar[str] = "turn_again_after_capture"


TurnOrder = Union[Alternate, FewerPieces, AgainAfterCapture]
TURN_ORDERS: tuple[type, ...] = (Alternate, FewerPieces, AgainAfterCapture)


@dataclass(frozen=True)
class PassForced(Node):
    """`pass forced`: a side with no move passes while the opponent has one."""

    keyword: ClassVar[str] = "forced"
    rule: ClassVar[str] = "pass_rule"


# --- ends ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoMoves(Node):
    """`no-moves`: the side to move has no legal move (a forced pass counts as a move)."""

    keyword: ClassVar[str] = "no-moves"
    rule: ClassVar[str] = "cond_no_moves"


@dataclass(frozen=True)
class BoardFull(Node):
    """`board-full`: no empty cell is left."""

    keyword: ClassVar[str] = "board-full"
    rule: ClassVar[str] = "cond_board_full"


@dataclass(frozen=True)
class Line(Node):
    """`line K [exact]`: the mover has K pieces in a row (exactly K, not more, with `exact`)."""

    keyword: ClassVar[str] = "line"
    rule: ClassVar[str] = "cond_line"
    length: int = 3
    exact: bool = False


@dataclass(frozen=True)
class ReachFarRow(Node):
    """`reach far-row`: a piece of the mover stands on the last row in its forward direction."""

    keyword: ClassVar[str] = "reach far-row"
    rule: ClassVar[str] = "cond_reach_far_row"


SIDE_PAIRS: tuple[str, ...] = ("top-bottom", "left-right")


@dataclass(frozen=True)
class Connect(Node):
    """`connect SIDES SIDES`: the mover's pieces join its two sides (first pair: first player)."""

    keyword: ClassVar[str] = "connect"
    rule: ClassVar[str] = "cond_connect"
    sides: tuple[str, ...] = ("top-bottom", "left-right")


@dataclass(frozen=True)
class NoPieces(Node):
    """`no-pieces`: the side to move has no piece on the board."""

    keyword: ClassVar[str] = "no-pieces"
    rule: ClassVar[str] = "cond_no_pieces"


@dataclass(frozen=True)
class AfterPlies(Node):
    """`after N plies`: N plies (moves and passes) have been played."""

    keyword: ClassVar[str] = "after"
    rule: ClassVar[str] = "cond_after_plies"
    plies: int = 100


Condition = Union[NoMoves, BoardFull, Line, ReachFarRow, Connect, NoPieces, AfterPlies]
CONDITIONS: tuple[type, ...] = (NoMoves, BoardFull, Line, ReachFarRow, Connect, NoPieces, AfterPlies)


@dataclass(frozen=True)
class MoverWins(Node):
    keyword: ClassVar[str] = "mover wins"
    rule: ClassVar[str] = "result_mover_wins"


@dataclass(frozen=True)
class MoverLoses(Node):
    keyword: ClassVar[str] = "mover loses"
    rule: ClassVar[str] = "result_mover_loses"


@dataclass(frozen=True)
class MostPieces(Node):
    keyword: ClassVar[str] = "most-pieces"
    rule: ClassVar[str] = "result_most_pieces"


@dataclass(frozen=True)
class FewestPieces(Node):
    keyword: ClassVar[str] = "fewest-pieces"
    rule: ClassVar[str] = "result_fewest_pieces"


@dataclass(frozen=True)
class Draw(Node):
    keyword: ClassVar[str] = "draw"
    rule: ClassVar[str] = "result_draw"


Result = Union[MoverWins, MoverLoses, MostPieces, FewestPieces, Draw]
RESULTS: tuple[type, ...] = (MoverWins, MoverLoses, MostPieces, FewestPieces, Draw)


@dataclass(frozen=True)
class End(Node):
    """`end CONDITION: RESULT`. Ends are tested in order on every position; the first that holds
    ends the game with its result."""

    condition: Condition
    result: Result


# Every concept node, category by category in the order of the statements that hold them.
CONCEPTS: tuple[type, ...] = (
    *BOARD_KINDS, *MOVE_KINDS, *EFFECT_KINDS, *TURN_ORDERS, PassForced, *CONDITIONS, *RESULTS,
)


# --- statements that name things -----------------------------------------------------------------

HEADINGS: tuple[str, ...] = ("up", "down", "left", "right")


@dataclass(frozen=True)
class Heading(Node):
    """One entry of `forward P1 down, P2 up`: the way a player's forward directions point."""

    player: str
    heading: str


@dataclass(frozen=True)
class Setup(Node):
    """`setup PLAYER CELLS`: the player's pieces in the initial position."""

    player: str
    cells: tuple[CellItem, ...]


@dataclass(frozen=True)
class Players(Node):
    """`players P1 P2`: the players' names, in turn order (the first listed moves first)."""

    names: tuple[str, ...]


# --- the stage -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage(Node):
    """A whole stage: the root of the AST, a hashable value.

    `name` and the player names are labels: they are printed and shown, but they are not rules,
    so they do not count in the description length.
    """

    name: str
    board: Board
    players: Players
    moves: tuple[MoveRule, ...]
    ends: tuple[End, ...]
    blocked: tuple[CellItem, ...] = ()
    forward: tuple[Heading, ...] = ()
    setup: tuple[Setup, ...] = ()
    turn: TurnOrder = Alternate()
    pass_rule: PassForced | None = None

    @property
    def player_names(self) -> tuple[str, ...]:
        return self.players.names

    @property
    def blocked_cells(self) -> frozenset[tuple[int, int]]:
        return frozenset((c.row, c.col) for c in expand(self.blocked))


def _hash_with_class(cls: type) -> None:
    # A frozen dataclass hashes its fields only, so every node without fields (NoMoves, Draw,
    # PlaceEmpty...) would hash alike and sets of nodes would degrade; mix the class in.
    by_fields = cls.__hash__
    cls.__hash__ = lambda self: hash((cls.__name__, by_fields(self)))


for _cls in [c for c in list(globals().values()) if isinstance(c, type) and issubclass(c, Node)]:
    _hash_with_class(_cls)
