"""The typed AST of a stage: a tree of frozen, hashable dataclasses.

One rule concept ("ludeme") = one grammar rule = one node class. Every node carries the source
span it was parsed from (`span`, excluded from equality and hashing, so a stage built in code
equals the same stage parsed from text). A concept node (a kind of board, move, effect, turn
order, end condition or result, and the pass rule: `CONCEPTS`) is declared here once:

- its class derives from its category's class (`BoardKind`, `MoveKind`, `Effect`, `TurnOrder`,
  `PassRule`, `Condition`, `Result`) and is listed in the category's tuple (`CONDITIONS`...),
  whose order numbers the alternatives of the description length;
- it declares its `keyword` and the grammar `rule` it is written with, and the traits its category
  asks of it (what the static checks read: `needs_piece`, `takes`, `at_start`...);
- each of its fields declares its `Form` (a board side, a count, a flag, a word, a direction list).

From that, the grammar rule is generated and the parser builds the node, the printer writes it and
the description length codes it, through tables by form, never through one giant visitor
(tests/test_concepts.py checks every concept in every layer, traits included).

Coordinates: a cell is (row, col), 0-based, row 0 at the top. Its name is the column letter and
the 1-based row number: Cell(row=2, col=3) is `d3` (the Othello AI Arena's notation).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar
from collections.abc import Callable

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


# --- how a concept's fields are written, read and coded ------------------------------------------
# A concept's parameters are declared once, as the `form` in each field's metadata; the parser, the
# printer and the description length read a field by its form (each keeps one table by form type),
# and the grammar rule of a concept is generated from its keyword and its fields' forms
# (gdl/parser.py). The fields' order is the order they are written in and coded in.


@dataclass(frozen=True)
class Form:
    """How a field is written; `grammar()` is its Lark fragment inside the concept's rule."""

    def grammar(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Side(Form):
    """A board side, 1..26: a number, coded by the renormalised side code."""

    def grammar(self) -> str:
        return "INT"


@dataclass(frozen=True)
class Count(Form):
    """An integer ≥ 1 coded by Elias gamma under `name` (a sampler limits it by that name),
    optionally followed by a fixed word (`after 50 plies`)."""

    name: str
    then: str = ""

    def grammar(self) -> str:
        return "INT" + (f' "{self.then}"' if self.then else "")


@dataclass(frozen=True)
class Flag(Form):
    """A word that is written or not (`wrap`, `exact`): a bit."""

    terminal: str
    word: str

    def grammar(self) -> str:
        return f"{self.terminal}?"


@dataclass(frozen=True)
class Word(Form):
    """One word of a closed vocabulary, after a leading word (`to empty`); optional when read,
    the field's default then, always printed."""

    words: tuple[str, ...]
    terminal: str
    lead: str
    rule: str  # the grammar rule of `lead TERMINAL`

    def grammar(self) -> str:
        return f"{self.rule}?"


@dataclass(frozen=True)
class Words(Form):
    """A fixed number of words of a closed vocabulary (`connect top-bottom left-right`)."""

    words: tuple[str, ...]
    terminal: str
    count: int

    def grammar(self) -> str:
        return " ".join([self.terminal] * self.count)


@dataclass(frozen=True)
class DirectionList(Form):
    """A `Directions` node (optional when read: the field's default then, always printed)."""

    def grammar(self) -> str:
        return "directions?"


def form_words(form: Form) -> tuple[str, ...]:
    """The fixed words a form writes (`to` of a target, `plies` after a count, a flag's word)."""
    return tuple(w for w in (getattr(form, "lead", ""), getattr(form, "then", ""), getattr(form, "word", "")) if w)


def _param(form: Form, default: Any = dataclasses.MISSING) -> Any:
    return field(default=default, metadata={"form": form})


def forms(kind: type) -> tuple[tuple[str, Form], ...]:
    """A concept's fields and their forms, in the order they are written and coded."""
    return _forms(kind)


# Memoised behind `forms`, which takes any class as a plain `type`: mypy calls the class object of
# a declared class (`type[Step]`) unhashable and refuses it to an lru_cache (python/mypy#11470).
@cache
def _forms(kind: type) -> tuple[tuple[str, Form], ...]:
    out = []
    for f in dataclasses.fields(kind):
        if f.name == "span":
            continue
        if "form" not in f.metadata:
            raise TypeError(f"the field {f.name!r} of {kind.__name__} has no form: declare it with a Form")
        out.append((f.name, f.metadata["form"]))
    return tuple(out)


# --- the categories of concepts --------------------------------------------------------------------
# A concept class derives from its category's class, which names the grammar rule its alternatives
# are gathered under and the traits every concept of the category declares in its own class body
# (the static checks read them; tests/test_concepts.py's "checks" layer fails a concept that does
# not declare one, so none falls back silently on another concept's answer).


class Concept:
    """What every concept class declares (a mixin: the category classes are no AST nodes)."""

    keyword: ClassVar[str]
    rule: ClassVar[str]
    alternatives: ClassVar[str]  # the grammar rule listing the category's concept rules
    traits: ClassVar[tuple[str, ...]] = ()
    statement: ClassVar[str] = ""  # the keyword of the statement the concept is, if it is one
    # The concept in plain English (gdl/english.py fills it in): `{field}` says a field's value by
    # its form, `{field:OPTION}` says it with an option of its form (a count's `ply|plies`, a flag's
    # `said when set|said when not`, a direction list's `any` or `each`), and a placeholder that is
    # no field names a phrase gdl/english.py computes from the stage (english.CONTEXT).
    sentence: ClassVar[str]


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


CellItem = Cell | CellRange


def cell_name(row: int, col: int) -> str:
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def expand(items: tuple[CellItem, ...]) -> tuple[Cell, ...]:
    """The cells a list of cells and ranges names, in the order written (duplicates kept)."""
    out: list[Cell] = []
    for item in items:
        out.extend(item.cells() if isinstance(item, CellRange) else (item,))
    return tuple(out)


# --- boards ------------------------------------------------------------------------------------


class BoardKind(Concept):
    """`board KIND ...`. Trait: `hexagonal`, whether the cells are hexagons (6 directions) or
    squares (8 directions, gdl/geometry.py). Every board has its `rows` and `cols` and may `wrap`."""

    alternatives: ClassVar[str] = "board_kind"
    statement: ClassVar[str] = "board"
    traits: ClassVar[tuple[str, ...]] = ("hexagonal",)
    hexagonal: ClassVar[bool]
    wrap: bool  # a field of each board kind

    @property
    def rows(self) -> int:
        raise NotImplementedError

    @property
    def cols(self) -> int:
        raise NotImplementedError


WRAP = Flag("WRAP", "wrap")
# What `wrap` adds to a board's sentence (a flag's text when set: see Concept.sentence).
WRAPPED = (", whose opposite edges are joined: it wraps around, so lines, moves and distances go on across "
           "the edges (a whole ring of one player's pieces is a line as long as the ring, and a line of "
           "captures that comes back round to where it started takes nothing)")


@dataclass(frozen=True)
class SquareBoard(BoardKind, Node):
    """`board square N`: N×N cells, 8 directions (n ne e se s sw w nw)."""

    keyword: ClassVar[str] = "square"
    rule: ClassVar[str] = "board_square"
    sentence: ClassVar[str] = "a square board of {size} by {size} cells{wrap:" + WRAPPED + "}"
    hexagonal: ClassVar[bool] = False
    size: int = _param(Side())
    wrap: bool = _param(WRAP, False)

    @property
    def rows(self) -> int:
        return self.size

    @property
    def cols(self) -> int:
        return self.size


@dataclass(frozen=True)
class RectBoard(BoardKind, Node):
    """`board rect ROWS COLS`: a rectangle, 8 directions like the square board."""

    keyword: ClassVar[str] = "rect"
    rule: ClassVar[str] = "board_rect"
    sentence: ClassVar[str] = "a rectangular board of {n_rows:row|rows} by {n_cols:column|columns}{wrap:" + WRAPPED + "}"
    hexagonal: ClassVar[bool] = False
    n_rows: int = _param(Side())
    n_cols: int = _param(Side())
    wrap: bool = _param(WRAP, False)

    @property
    def rows(self) -> int:
        return self.n_rows

    @property
    def cols(self) -> int:
        return self.n_cols


@dataclass(frozen=True)
class HexBoard(BoardKind, Node):
    """`board hex N`: the N×N rhombus of hexagons used by Hex, 6 directions (n ne e s sw w).

    Row r is shifted half a cell right of row r-1, so (r, c) touches (r-1, c), (r-1, c+1),
    (r, c-1), (r, c+1), (r+1, c-1) and (r+1, c).
    """

    keyword: ClassVar[str] = "hex"
    rule: ClassVar[str] = "board_hex"
    sentence: ClassVar[str] = ("a rhombus of {size} by {size} hexagonal cells, as in Hex{wrap:" + WRAPPED + "}")
    hexagonal: ClassVar[bool] = True
    size: int = _param(Side())
    wrap: bool = _param(WRAP, False)

    @property
    def rows(self) -> int:
        return self.size

    @property
    def cols(self) -> int:
        return self.size


Board = BoardKind
BOARD_KINDS: tuple[type[BoardKind], ...] = (SquareBoard, RectBoard, HexBoard)


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
TARGET = Word(TARGETS, "TARGET", "to", "target")


class MoveKind(Concept):
    """`move KIND`. Traits the static checks read (gdl/checks/moves.py):

    - `needs_piece`: the move starts from, or next to, a piece of the mover already on the board;
    - `takes_on_arrival`: landing on an enemy piece (`to enemy`, `to any`) takes it;
    - `covered_by`: the keywords of the other move kinds that give every move this one gives when
      their common fields agree (a slide that stops on the first cell is a step);
    - `reads_roll`: the move goes as far as the dice say, so it needs a `roll` (gdl/checks/chance.py).
    """

    alternatives: ClassVar[str] = "move_kind"
    traits: ClassVar[tuple[str, ...]] = ("needs_piece", "takes_on_arrival", "covered_by", "reads_roll")
    needs_piece: ClassVar[bool]
    takes_on_arrival: ClassVar[bool]
    covered_by: ClassVar[tuple[str, ...]]
    reads_roll: ClassVar[bool]


@dataclass(frozen=True)
class PlaceEmpty(MoveKind, Node):
    """`place empty`: put a new piece on any empty cell."""

    keyword: ClassVar[str] = "place empty"
    rule: ClassVar[str] = "place_empty"
    sentence: ClassVar[str] = "put a new piece on any empty cell"
    needs_piece: ClassVar[bool] = False
    takes_on_arrival: ClassVar[bool] = False
    covered_by: ClassVar[tuple[str, ...]] = ()
    reads_roll: ClassVar[bool] = False


@dataclass(frozen=True)
class PlaceGravity(MoveKind, Node):
    """`place gravity`: put a new piece on the lowest empty cell of a column (Connect Four)."""

    keyword: ClassVar[str] = "place gravity"
    rule: ClassVar[str] = "place_gravity"
    sentence: ClassVar[str] = ("put a new piece on the lowest empty cell of any column, as if dropped from the top "
                                "(the empty cell of the column nearest the bottom edge; blocked cells do not stop it)")
    needs_piece: ClassVar[bool] = False
    takes_on_arrival: ClassVar[bool] = False
    covered_by: ClassVar[tuple[str, ...]] = ("place empty",)
    reads_roll: ClassVar[bool] = False


@dataclass(frozen=True)
class PlaceAdjacent(MoveKind, Node):
    """`place adjacent`: put a new piece on an empty cell next to one of the mover's pieces."""

    keyword: ClassVar[str] = "place adjacent"
    rule: ClassVar[str] = "place_adjacent"
    sentence: ClassVar[str] = "put a new piece on an empty cell next to one of your pieces ({around})"
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = False
    covered_by: ClassVar[tuple[str, ...]] = ("place empty",)
    reads_roll: ClassVar[bool] = False


@dataclass(frozen=True)
class Step(MoveKind, Node):
    """`step DIRS to TARGET`: move a piece one cell in one of the directions."""

    keyword: ClassVar[str] = "step"
    rule: ClassVar[str] = "piece_step"
    sentence: ClassVar[str] = "move one of your pieces one cell {directions:any}, onto {target}"
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = True
    covered_by: ClassVar[tuple[str, ...]] = ("slide",)
    reads_roll: ClassVar[bool] = False
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)
    target: str = _param(TARGET, "empty")


@dataclass(frozen=True)
class Slide(MoveKind, Node):
    """`slide DIRS to TARGET`: move a piece over empty cells, any distance, in one direction."""

    keyword: ClassVar[str] = "slide"
    rule: ClassVar[str] = "piece_slide"
    sentence: ClassVar[str] = ("move one of your pieces in a straight line {directions:any}, across zero or more "
                                "empty cells, and stop on {target}")
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = True
    covered_by: ClassVar[tuple[str, ...]] = ()
    reads_roll: ClassVar[bool] = False
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)
    target: str = _param(TARGET, "empty")


@dataclass(frozen=True)
class Jump(MoveKind, Node):
    """`jump N to TARGET`: move a piece to a cell at distance exactly N, over anything."""

    keyword: ClassVar[str] = "jump"
    rule: ClassVar[str] = "piece_jump"
    sentence: ClassVar[str] = ("move one of your pieces to {target} exactly {distance:cell|cells} away, "
                                "whatever lies between {measured}")
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = True
    covered_by: ClassVar[tuple[str, ...]] = ()
    reads_roll: ClassVar[bool] = False
    distance: int = _param(Count("distance"), 2)
    target: str = _param(TARGET, "empty")


@dataclass(frozen=True)
class Clone(MoveKind, Node):
    """`clone N to TARGET`: like jump, but the origin keeps its piece (a new piece appears)."""

    keyword: ClassVar[str] = "clone"
    rule: ClassVar[str] = "piece_clone"
    sentence: ClassVar[str] = ("put a new piece on {target} exactly {distance:cell|cells} away from one of your "
                                "pieces, whatever lies between; that piece stays where it is {measured}")
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = True
    covered_by: ClassVar[tuple[str, ...]] = ()
    reads_roll: ClassVar[bool] = False
    distance: int = _param(Count("distance"), 1)
    target: str = _param(TARGET, "empty")


@dataclass(frozen=True)
class Advance(MoveKind, Node):
    """`advance DIRECTIONS to TARGET`: a piece moved exactly as many cells as the roll (the stage's
    `roll` line) in a straight line, over whatever lies between (a dice race's move)."""

    keyword: ClassVar[str] = "advance"
    rule: ClassVar[str] = "piece_advance"
    sentence: ClassVar[str] = ("move one of your pieces exactly as many cells as this turn's roll in a straight line "
                                "{directions:any}, passing over whatever lies between, onto {target}")
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = True
    covered_by: ClassVar[tuple[str, ...]] = ()
    reads_roll: ClassVar[bool] = True
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)
    target: str = _param(TARGET, "empty")


MOVE_KINDS: tuple[type[MoveKind], ...] = (PlaceEmpty, PlaceGravity, PlaceAdjacent, Step, Slide, Jump, Clone, Advance)
PLACEMENTS: tuple[type[MoveKind], ...] = (PlaceEmpty, PlaceGravity, PlaceAdjacent)


# --- effects (indented under their move) ---------------------------------------------------------

OVER_BLOCKED = Flag("OVER_BLOCKED", "over-blocked")
# The custodial effects' shared words: what `over-blocked` changes, and that all lines are read at once.
OVER_BLOCKED_LINES = ("; an empty cell{over_blocked:|, a blocked cell} or the board's edge ends a line with nothing "
                      "taken{over_blocked:, but a blocked cell is skipped over, neither taken nor ending the line}.")
ALL_AT_ONCE = "All the lines are read on the board as it was before any of them is taken."


class Effect(Concept):
    """An effect of a move. Trait: `takes`, whether it can take pieces (what `require capture`
    counts, gdl/checks/moves.py)."""

    alternatives: ClassVar[str] = "effect"
    traits: ClassVar[tuple[str, ...]] = ("takes",)
    takes: ClassVar[bool]
    verb: ClassVar[str]  # what a move does to the pieces it takes with the effect ("flips"), "" if none


@dataclass(frozen=True)
class FlipCustodial(Effect, Node):
    """`flip custodial DIRS [over-blocked]`: enemy runs closed by the mover's piece change side."""

    keyword: ClassVar[str] = "flip custodial"
    rule: ClassVar[str] = "effect_flip"
    sentence: ClassVar[str] = ("Then, looking from the cell just played {directions:each}, every unbroken line of "
                                "one or more of your opponent's pieces closed at its far end by one of your pieces "
                                "is flipped: those pieces become yours" + OVER_BLOCKED_LINES + " " + ALL_AT_ONCE)
    verb: ClassVar[str] = "flips"
    takes: ClassVar[bool] = True
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)
    over_blocked: bool = _param(OVER_BLOCKED, False)


@dataclass(frozen=True)
class RemoveCustodial(Effect, Node):
    """`remove custodial DIRS [over-blocked]`: enemy runs closed by the mover's piece are removed."""

    keyword: ClassVar[str] = "remove custodial"
    rule: ClassVar[str] = "effect_remove"
    sentence: ClassVar[str] = ("Then, looking from the cell just played {directions:each}, every unbroken line of "
                                "one or more of your opponent's pieces closed at its far end by one of your pieces "
                                "is removed from the board" + OVER_BLOCKED_LINES + " " + ALL_AT_ONCE)
    verb: ClassVar[str] = "removes"
    takes: ClassVar[bool] = True
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)
    over_blocked: bool = _param(OVER_BLOCKED, False)


@dataclass(frozen=True)
class ConvertAdjacent(Effect, Node):
    """`convert adjacent DIRS`: enemy pieces next to the arrival cell change side (Ataxx)."""

    keyword: ClassVar[str] = "convert adjacent"
    rule: ClassVar[str] = "effect_convert"
    sentence: ClassVar[str] = ("Then every piece of your opponent's on a cell next to the cell just played "
                                "({directions:any}) becomes yours.")
    verb: ClassVar[str] = "converts"
    takes: ClassVar[bool] = True
    directions: Directions = _param(DirectionList(), ALL_DIRECTIONS)


@dataclass(frozen=True)
class RequireCapture(Effect, Node):
    """`require capture`: the move is legal only if the effects written before this line, with the
    capture on arrival, took at least one piece (captured, flipped, removed or converted)."""

    keyword: ClassVar[str] = "require capture"
    rule: ClassVar[str] = "effect_require"
    sentence: ClassVar[str] = "This move is allowed only if it {takes} at least one piece."
    verb: ClassVar[str] = ""
    takes: ClassVar[bool] = False


EFFECT_KINDS: tuple[type[Effect], ...] = (FlipCustodial, RemoveCustodial, ConvertAdjacent, RequireCapture)


@dataclass(frozen=True)
class MoveRule(Node):
    """`move KIND` and the effects indented under it, applied in the order written."""

    kind: MoveKind
    effects: tuple[Effect, ...] = ()


# --- turn order, passing -------------------------------------------------------------------------


class TurnOrder(Concept):
    """`turn ORDER`."""

    alternatives: ClassVar[str] = "turn_order"
    statement: ClassVar[str] = "turn"


@dataclass(frozen=True)
class Alternate(TurnOrder, Node):
    """`turn alternate` (the default): the players take turns."""

    keyword: ClassVar[str] = "alternate"
    rule: ClassVar[str] = "turn_alternate"
    sentence: ClassVar[str] = "The players take turns, one move each."


@dataclass(frozen=True)
class FewerPieces(TurnOrder, Node):
    """`turn fewer-pieces`: after a move, the side with strictly fewer pieces moves next;
    equal counts alternate (the Arena's fewerPiecesContinue)."""

    keyword: ClassVar[str] = "fewer-pieces"
    rule: ClassVar[str] = "turn_fewer_pieces"
    sentence: ClassVar[str] = ("After each move, the player with strictly fewer pieces on the board "
                                "moves next, even if that is the player who just moved; with as many pieces "
                                "each, the other player moves next.")


@dataclass(frozen=True)
class AgainAfterCapture(TurnOrder, Node):
    """`turn again-after-capture`: a move that took at least one piece is followed by another."""

    keyword: ClassVar[str] = "again-after-capture"
    rule: ClassVar[str] = "turn_again_after_capture"
    sentence: ClassVar[str] = ("A player whose move took at least one piece moves again; "
                                "otherwise the other player moves next.")


TURN_ORDERS: tuple[type[TurnOrder], ...] = (Alternate, FewerPieces, AgainAfterCapture)


class PassRule(Concept):
    """`pass RULE`."""

    alternatives: ClassVar[str] = "pass_kind"
    statement: ClassVar[str] = "pass"


@dataclass(frozen=True)
class PassForced(PassRule, Node):
    """`pass forced`: a side with no move passes while the opponent has one."""

    keyword: ClassVar[str] = "forced"
    rule: ClassVar[str] = "pass_forced"
    sentence: ClassVar[str] = ("If you have no legal move but your opponent has one, you must pass: "
                                "passing is then your only move. If neither player can move, nobody passes.")


PASS_RULES: tuple[type[PassRule], ...] = (PassForced,)

# --- information: what each player is told --------------------------------------------------------
# A stage's rules say what happens; its information lines say what each player is told, never
# changing the rules. A stage with `hidden` is played as tries: the mover chooses among the moves
# legal on its own view of the board, and the true position accepts or refuses each (docs/language.md,
# "Information"; the reference semantics: gdl/interpreter/information.py).


class Hiding(Concept):
    """`hidden WHAT`: what a player does not see of the board."""

    alternatives: ClassVar[str] = "hiding_kind"
    statement: ClassVar[str] = "hidden"


@dataclass(frozen=True)
class OpponentPieces(Hiding, Node):
    """`hidden opponent-pieces`: a player sees its own pieces, always, and the rest of the board as
    it last saw it: at the start (a public position), where its own move changed a cell, where its
    own pieces changed, and where a refused try showed the truth."""

    keyword: ClassVar[str] = "opponent-pieces"
    rule: ClassVar[str] = "hidden_opponent_pieces"
    sentence: ClassVar[str] = ("You do not see your opponent's moves. You see your own pieces at all times, and "
                                "every other cell as you last saw it: as it was at the start, as your own move left "
                                "it, as it became when one of your pieces was taken or changed side there, or as "
                                "a refused try showed it. You choose your move among those your view of the board "
                                "allows (a try); the true board may refuse it.")


HIDINGS: tuple[type[Hiding], ...] = (OpponentPieces,)


class Refusal(Concept):
    """`refused WHAT`: what follows a try the true position refuses. Either way the mover is told
    the try was refused and sees the true content of the move's destination."""

    alternatives: ClassVar[str] = "refusal_kind"
    statement: ClassVar[str] = "refused"


@dataclass(frozen=True)
class Retry(Refusal, Node):
    """`refused retry`: the mover tries again (OpenSpiel's classical phantom games)."""

    keyword: ClassVar[str] = "retry"
    rule: ClassVar[str] = "refused_retry"
    sentence: ClassVar[str] = ("A try the true board refuses is not played: you are told so, you see what is "
                                "truly on the cell it was to reach, and you try again.")


@dataclass(frozen=True)
class LoseTurn(Refusal, Node):
    """`refused lose-turn`: the mover's turn is over (OpenSpiel's abrupt phantom games)."""

    keyword: ClassVar[str] = "lose-turn"
    rule: ClassVar[str] = "refused_lose_turn"
    sentence: ClassVar[str] = ("A try the true board refuses is not played: you are told so, you see what is "
                                "truly on the cell it was to reach, and your turn is over.")


REFUSALS: tuple[type[Refusal], ...] = (Retry, LoseTurn)


class Announcement(Concept):
    """`announce FACT`: a public fact told to both players after every try."""

    alternatives: ClassVar[str] = "announcement"
    statement: ClassVar[str] = "announce"


@dataclass(frozen=True)
class TurnCount(Announcement, Node):
    """`announce turn-count`: both players are told of every try, whose it was, and how many there
    have been in all (OpenSpiel's reveal-numturns), not which move was tried nor whether it was refused."""

    keyword: ClassVar[str] = "turn-count"
    rule: ClassVar[str] = "announce_turn_count"
    sentence: ClassVar[str] = ("After every try, both players are told that a try was made and by whom, so each "
                                "knows how many tries there have been in all; not which move was tried, nor "
                                "whether it was refused.")


@dataclass(frozen=True)
class AnnouncedRefusals(Announcement, Node):
    """`announce refusals`: both players are told of every refused try, and whose it was (not which
    move); with it, every try a player is told of comes with its fate."""

    keyword: ClassVar[str] = "refusals"
    rule: ClassVar[str] = "announce_refusals"
    sentence: ClassVar[str] = ("After every refused try, both players are told that a try was refused and whose "
                                "it was, not which move it was; a try a player is told of comes with whether it "
                                "was refused.")


@dataclass(frozen=True)
class AnnouncedCaptures(Announcement, Node):
    """`announce captures`: both players are told of every try that took pieces, whose it was, and how
    many it took (not where)."""

    keyword: ClassVar[str] = "captures"
    rule: ClassVar[str] = "announce_captures"
    sentence: ClassVar[str] = ("After every move that takes pieces, both players are told that it did, whose move it "
                                "was and how many pieces it took, not where.")


ANNOUNCEMENTS: tuple[type[Announcement], ...] = (TurnCount, AnnouncedRefusals, AnnouncedCaptures)


class Reveal(Concept):
    """`reveal EVENT`: true cells copied into a player's view after every played try, beyond what its
    hiding shows it (fog of war, dark chess)."""

    alternatives: ClassVar[str] = "reveal_kind"
    statement: ClassVar[str] = "reveal"


@dataclass(frozen=True)
class RevealAdjacent(Reveal, Node):
    """`reveal adjacent`: each player sees every cell next to one of its own pieces (fog of war of
    radius 1)."""

    keyword: ClassVar[str] = "adjacent"
    rule: ClassVar[str] = "reveal_adjacent"
    sentence: ClassVar[str] = ("After every move played, each player also sees, as they truly are, the cells next to "
                                "its own pieces (in every direction of the board).")


@dataclass(frozen=True)
class RevealCapture(Reveal, Node):
    """`reveal capture`: a move that takes pieces shows both players every cell it changed."""

    keyword: ClassVar[str] = "capture"
    rule: ClassVar[str] = "reveal_capture"
    sentence: ClassVar[str] = "A move that takes pieces is seen by both players: every cell it changed, as it now is."


@dataclass(frozen=True)
class RevealReachable(Reveal, Node):
    """`reveal reachable`: each player sees every cell one of its moves could reach on the true board,
    as if it were to move (dark chess)."""

    keyword: ClassVar[str] = "reachable"
    rule: ClassVar[str] = "reveal_reachable"
    sentence: ClassVar[str] = ("After every move played, each player also sees, as they truly are, the cells its moves "
                                "could reach on the true board if it were to move now.")


REVEALS: tuple[type[Reveal], ...] = (RevealAdjacent, RevealCapture, RevealReachable)

# --- ends ----------------------------------------------------------------------------------------


class Condition(Concept):
    """The condition of an `end`. Traits the static checks read (gdl/checks/ends.py):

    - `needs_heading`: the condition reads the players' forward headings;
    - `minimum`: the field (a number) the condition asks at least of, or None: a condition with a
      larger value implies it (`line 5` holds only where `line 4` does), unless it is `exact`;
    - `at_start`: the name of the check of gdl/checks/ends.py `AT_START` that tells whether the
      condition already holds on the initial position, or None if no check is needed.
    """

    alternatives: ClassVar[str] = "condition"
    traits: ClassVar[tuple[str, ...]] = ("needs_heading", "minimum", "at_start")
    needs_heading: ClassVar[bool]
    minimum: ClassVar[str | None]
    at_start: ClassVar[str | None]


@dataclass(frozen=True)
class NoMoves(Condition, Node):
    """`no-moves`: the side to move has no legal move (a forced pass counts as a move)."""

    keyword: ClassVar[str] = "no-moves"
    rule: ClassVar[str] = "cond_no_moves"
    sentence: ClassVar[str] = "the player to move has no legal move (not even a pass)"
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = None
    at_start: ClassVar[str | None] = None


@dataclass(frozen=True)
class BoardFull(Condition, Node):
    """`board-full`: no empty cell is left."""

    keyword: ClassVar[str] = "board-full"
    rule: ClassVar[str] = "cond_board_full"
    sentence: ClassVar[str] = "no empty cell is left on the board"
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = None
    at_start: ClassVar[str | None] = "board-full"


@dataclass(frozen=True)
class Line(Condition, Node):
    """`line K [exact]`: the mover has K pieces in a row (exactly K, not more, with `exact`)."""

    keyword: ClassVar[str] = "line"
    rule: ClassVar[str] = "cond_line"
    sentence: ClassVar[str] = ("the player who just moved has {exact:exactly|at least} {length:piece|pieces} "
                                "in an unbroken straight line {axes}{exact: (a longer line does not count)}")
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = "length"
    at_start: ClassVar[str | None] = None
    length: int = _param(Count("line length"), 3)
    exact: bool = _param(Flag("EXACT", "exact"), False)


@dataclass(frozen=True)
class ReachFarRow(Condition, Node):
    """`reach far-row`: a piece of the mover stands on the last row in its forward direction."""

    keyword: ClassVar[str] = "reach far-row"
    rule: ClassVar[str] = "cond_reach_far_row"
    sentence: ClassVar[str] = ("a piece of the player who just moved stands on that player's far "
                                "row ({far_rows})")
    needs_heading: ClassVar[bool] = True
    minimum: ClassVar[str | None] = None
    at_start: ClassVar[str | None] = None


SIDE_PAIRS: tuple[str, ...] = ("top-bottom", "left-right")


@dataclass(frozen=True)
class Connect(Condition, Node):
    """`connect SIDES SIDES`: the mover's pieces join its two sides (first pair: first player)."""

    keyword: ClassVar[str] = "connect"
    rule: ClassVar[str] = "cond_connect"
    sentence: ClassVar[str] = ("the pieces of the player who just moved join that player's two sides ({sides}) "
                                "in an unbroken chain, each piece next to the one before it {linked}")
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = None
    at_start: ClassVar[str | None] = None
    sides: tuple[str, ...] = _param(Words(SIDE_PAIRS, "SIDES", 2), ("top-bottom", "left-right"))


@dataclass(frozen=True)
class NoPieces(Condition, Node):
    """`no-pieces`: the side to move has no piece on the board."""

    keyword: ClassVar[str] = "no-pieces"
    rule: ClassVar[str] = "cond_no_pieces"
    sentence: ClassVar[str] = "the player to move has no piece on the board"
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = None
    at_start: ClassVar[str | None] = "no-pieces"


@dataclass(frozen=True)
class AfterPlies(Condition, Node):
    """`after N plies`: N plies (moves and passes) have been played."""

    keyword: ClassVar[str] = "after"
    rule: ClassVar[str] = "cond_after_plies"
    sentence: ClassVar[str] = ("{plies:ply has|plies have} been played in all (each move and "
                                "each pass is one ply)")
    needs_heading: ClassVar[bool] = False
    minimum: ClassVar[str | None] = "plies"
    at_start: ClassVar[str | None] = None
    plies: int = _param(Count("plies", then="plies"), 100)


CONDITIONS: tuple[type[Condition], ...] = (NoMoves, BoardFull, Line, ReachFarRow, Connect, NoPieces, AfterPlies)


class Result(Concept):
    """The result of an `end`. Its trait: `counts_pieces`, whether it compares the players'
    pieces on the board (a page shows the counts of a stage whose result does, and no other's)."""

    alternatives: ClassVar[str] = "result"
    traits: ClassVar[tuple[str, ...]] = ("counts_pieces",)
    counts_pieces: ClassVar[bool]


@dataclass(frozen=True)
class MoverWins(Result, Node):
    keyword: ClassVar[str] = "mover wins"
    rule: ClassVar[str] = "result_mover_wins"
    sentence: ClassVar[str] = "the player who just moved wins"
    counts_pieces: ClassVar[bool] = False


@dataclass(frozen=True)
class MoverLoses(Result, Node):
    keyword: ClassVar[str] = "mover loses"
    rule: ClassVar[str] = "result_mover_loses"
    sentence: ClassVar[str] = "the player who just moved loses"
    counts_pieces: ClassVar[bool] = False


@dataclass(frozen=True)
class MostPieces(Result, Node):
    keyword: ClassVar[str] = "most-pieces"
    rule: ClassVar[str] = "result_most_pieces"
    sentence: ClassVar[str] = "the player with more pieces on the board wins (a draw if both have as many)"
    counts_pieces: ClassVar[bool] = True


@dataclass(frozen=True)
class FewestPieces(Result, Node):
    keyword: ClassVar[str] = "fewest-pieces"
    rule: ClassVar[str] = "result_fewest_pieces"
    sentence: ClassVar[str] = "the player with fewer pieces on the board wins (a draw if both have as many)"
    counts_pieces: ClassVar[bool] = True


@dataclass(frozen=True)
class Draw(Result, Node):
    keyword: ClassVar[str] = "draw"
    rule: ClassVar[str] = "result_draw"
    sentence: ClassVar[str] = "the game is a draw"
    counts_pieces: ClassVar[bool] = False


RESULTS: tuple[type[Result], ...] = (MoverWins, MoverLoses, MostPieces, FewestPieces, Draw)


@dataclass(frozen=True)
class End(Node):
    """`end CONDITION: RESULT`. Ends are tested in order on every position; the first that holds
    ends the game with its result."""

    condition: Condition
    result: Result


# Each category of concepts with its alternatives, in the order the description length numbers
# them, and the statement keyword that writes it when the concept is a statement of its own.
CATEGORIES: tuple[tuple[type[Concept], tuple[type[Concept], ...]], ...] = (
    (BoardKind, BOARD_KINDS), (MoveKind, MOVE_KINDS), (Effect, EFFECT_KINDS), (TurnOrder, TURN_ORDERS),
    (PassRule, PASS_RULES), (Condition, CONDITIONS), (Result, RESULTS),
    (Hiding, HIDINGS), (Refusal, REFUSALS), (Announcement, ANNOUNCEMENTS), (Reveal, REVEALS),
)

# Every concept node, category by category in the order of the statements that hold them.
CONCEPTS: tuple[type[Concept], ...] = tuple(kind for _, kinds in CATEGORIES for kind in kinds)

# Keywords that open a statement, in the order the canonical printer writes them.
STATEMENT_KEYWORDS = ("game", "board", "blocked", "players", "forward", "setup", "roll", "move", "turn", "pass", "end",
                      "hidden", "refused", "announce", "reveal")


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


# --- chance at the start: cells drawn from the game's seed (docs/language.md, "Chance") ---------


@dataclass(frozen=True)
class RandomBlocked(Node):
    """`blocked random N in CELLS`: N cells among CELLS blocked at the start, drawn at random from
    the game's seed (each set of N cells equally likely), before any random setup."""

    count: int
    cells: tuple[CellItem, ...]


@dataclass(frozen=True)
class RandomSetup(Node):
    """`setup PLAYER random N in CELLS`: N of the player's pieces placed at the start on cells drawn
    at random, from the game's seed, among those of CELLS still empty (each set equally likely);
    the random lines are drawn in the order written, after the random blocked cells."""

    player: str
    count: int
    cells: tuple[CellItem, ...]


# Dice bounds: a roll's total stays small (a move's distance, at most 4 x 20 = 80 cells), and a die
# of one face is no chance.
MAX_DICE, MAX_FACES = 4, 20


@dataclass(frozen=True)
class Roll(Node):
    """`roll KdN`: before every turn, K dice of N faces are thrown for the side to move, from the
    game's seed; their total, the roll (K to K·N), is seen by both players and read by `advance`."""

    dice: int
    faces: int

    @property
    def lowest(self) -> int:
        return self.dice

    @property
    def highest(self) -> int:
        return self.dice * self.faces

    @property
    def totals(self) -> range:
        """Every roll the dice can total, lowest first."""
        return range(self.lowest, self.highest + 1)


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
    # Information lines: `hidden` makes the stage one of hidden information, played as tries;
    # `refused` (required with it) and the announcements only mean something with it.
    hidden: Hiding | None = None
    refused: Refusal | None = None
    announce: tuple[Announcement, ...] = ()
    reveal: tuple[Reveal, ...] = ()
    # Chance at the start: drawn from the game's seed before the first move, in this order.
    random_blocked: tuple[RandomBlocked, ...] = ()
    random_setup: tuple[RandomSetup, ...] = ()
    # Chance during the game: the dice thrown before every turn.
    roll: Roll | None = None

    @property
    def random_start(self) -> bool:
        """Whether the start is drawn at random (a `random` line): each game's start comes from its seed."""
        return bool(self.random_blocked or self.random_setup)

    @property
    def chance(self) -> bool:
        """Whether anything is drawn from the game's seed: a random start or dice."""
        return self.random_start or self.roll is not None

    def without_information(self) -> Stage:
        """The stage played with the whole board in view: its true game (a stage without
        information lines is itself)."""
        if self.hidden is None and self.refused is None and not self.announce and not self.reveal:
            return self
        return dataclasses.replace(self, hidden=None, refused=None, announce=(), reveal=())

    @property
    def player_names(self) -> tuple[str, ...]:
        return self.players.names

    @property
    def blocked_cells(self) -> frozenset[tuple[int, int]]:
        return frozenset((c.row, c.col) for c in expand(self.blocked))


def _hash_with_class(cls: type[Node]) -> None:
    # A frozen dataclass hashes its fields only, so every node without fields (NoMoves, Draw,
    # PlaceEmpty...) would hash alike and sets of nodes would degrade; mix the class in.
    by_fields: Callable[[Node], int] = cls.__hash__

    def __hash__(self: Node) -> int:
        return hash((cls.__name__, by_fields(self)))

    # replaced on purpose: mypy rightly flags a plain assignment to a method, so not `cls.__hash__ = ...`
    setattr(cls, "__hash__", __hash__)  # noqa: B010


for _cls in [c for c in list(globals().values()) if isinstance(c, type) and issubclass(c, Node)]:
    _hash_with_class(_cls)
