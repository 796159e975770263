"""The catalogue of diagnostics (gdl/messages.py), message by message.

Beside every code of the catalogue sits a small bad stage that must yield it: exactly that one
diagnostic, at the expected line:column, with a caret under the expected text and the expected
words in its message and hint. A test checks that no code is left without a case, so a message
cannot silently drift or disappear. Then: several errors of one file are all reported, valid
stages get no diagnostic at all, `StageError` renders every error, and ASTs built in code (no
spans) are checked like parsed ones.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from ludica.gdl import ast as A
from ludica.gdl.checks import check_stage
from ludica.gdl.diagnostics import EXCERPT, Diagnostic, StageError
from ludica.gdl.loader import analyse, check, loads
from ludica.gdl.messages import MESSAGES
from ludica.gdl.parser import parse_diagnostics

PATH = "bad.gdl"


def stage(*lines: str) -> str:
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Case:
    """A bad stage text and the one diagnostic it must get."""

    id: str
    code: str
    text: str
    at: str  # line:column of the diagnostic
    under: str  # the source text the caret underlines
    says: tuple[str, ...]  # fragments of the rendered diagnostic (message, hint)


# A tic-tac-toe to break one line at a time (line 1 board, 2 players, 3 move, 4 end).
CASES: list[Case] = [
    # --- syntax -------------------------------------------------------------------------------
    Case("unknown-statement", "syntax.unknown-statement",
         stage("board square 3", "players x o", "mvoe place empty", "end line 3: mover wins"),
         "3:1", "mvoe", ("error: unknown statement `mvoe`", "hint: did you mean `move`?")),
    Case("unexpected-word", "syntax.unexpected-token",
         stage("board sqare 3", "players x o", "move place empty", "end line 3: mover wins"),
         "1:7", "sqare", ("unexpected word `sqare`; expected one of: `hex`, `rect`, `square`",
                          "hint: did you mean `square`?")),
    Case("unexpected-character", "syntax.unexpected-character",
         stage("board square 3", "players x o!", "move place empty", "end line 3: mover wins"),
         "2:12", "!", ("unexpected character '!'; expected one of: a player name, the end of the line",)),
    Case("unexpected-end", "syntax.unexpected-end",
         stage("board square", "players x o", "move place empty", "end line 3: mover wins"),
         "1:13", "", ("the statement ends too early; expected a number",)),
    Case("stray-indent", "syntax.stray-indent",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins", "  require capture"),
         "5:3", "require capture", ("indented line under `end`: only the effects of a `move` are indented",)),
    Case("indent-at-start", "syntax.indent-at-start",
         stage("  board square 3", "players x o", "move place empty", "end line 3: mover wins"),
         "1:3", "board square 3", ("indented line with no statement above it",)),
    Case("unclosed-string", "syntax.unclosed-string",
         stage('game "Tic', "board square 3", "players x o", "move place empty", "end line 3: mover wins"),
         "1:6", '"Tic', ("unclosed string",)),
    Case("number-too-large", "syntax.number-too-large",
         stage("board square 3", "players x o", "move place empty", "end after 10000001 plies: draw"),
         "4:11", "10000001", ("the number 10000001 is too large", "at most 1,000,000")),
    Case("number-of-5000-digits", "syntax.number-too-large",
         stage("board square " + "9" * 5000, "players x o", "move place empty", "end line 3: mover wins"),
         "1:14", "9" * 87, ("(5000 digits) is too large",)),  # the line is shown cut at 100 characters
    Case("cell-beyond-boards", "syntax.cell-beyond-boards",
         stage("board square 8", "blocked a1..z999999", "players x o", "move place empty", "end line 3: mover wins"),
         "2:13", "z999999", ("cell 'z999999' is beyond every board: rows are numbered 1 to 26",)),
    Case("too-many-rules", "check.too-many-rules",
         stage("board square 3", "players x o", *["move place empty"] * 65, "end line 3: mover wins"),
         "67:6", "place empty", ("65 move rules: a stage has at most 64",)),
    Case("stage-too-long", "syntax.stage-too-long",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins", *["# more"] * 10_000),
         "1:1", "b", ("the stage has 10,005 lines: a stage is at most 10,000 lines",)),
    # --- statements a stage needs once ----------------------------------------------------------
    Case("missing-players", "stage.missing-statement",
         stage("board square 3", "move place empty", "end line 3: mover wins"),
         "1:1", "b", ("no `players` statement: every stage names its players",)),
    Case("missing-move", "stage.missing-statement",
         stage("board square 3", "players x o", "end line 3: mover wins"),
         "1:1", "b", ("no `move` statement", "e.g. `move place empty`")),
    Case("missing-end", "stage.missing-statement",
         stage("board square 3", "players x o", "move place empty"),
         "1:1", "b", ("no `end` statement", "e.g. `end no-moves: most-pieces`")),
    Case("duplicate-statement", "stage.duplicate-statement",
         stage("board square 3", "players x o", "board square 4", "move place empty", "end line 3: mover wins"),
         "3:1", "board square 4", ("a second `board` statement (the first is on line 1)",)),
    # --- players ----------------------------------------------------------------------------------
    Case("player-count", "check.player-count",
         stage("board square 3", "players x o z", "move place empty", "end line 3: mover wins"),
         "2:1", "players x o z", ("a stage has two players, but `players` names 3: 'x', 'o' and 'z'",
                                  "hint: the engine plays two-player games")),
    Case("player-duplicate", "check.player-duplicate",
         stage("board square 3", "players x x", "move place empty", "end line 3: mover wins"),
         "2:11", "x", ("player 'x' is named twice",)),
    Case("player-name-keyword", "check.player-name-keyword",
         stage("board square 3", "players x n", "move place empty", "end line 3: mover wins"),
         "2:11", "n", ("warning: player name 'n' is also a keyword", "hint: choose another name")),
    Case("player-name-cell", "check.player-name-keyword",
         stage("board square 3", "players x c3", "move place empty", "end line 3: mover wins"),
         "2:11", "c3", ("player name 'c3' looks like a cell",)),
    # --- the board and its cells -------------------------------------------------------------------
    Case("board-size", "check.board-size",
         stage("board rect 3 30", "players x o", "move place empty", "end line 3: mover wins"),
         "1:1", "board rect 3 30", ("board size 3x30 is out of range: a board has 1 to 26 rows and 1 to 26 columns",
                                    "hint: a column is one letter (a..z)")),
    Case("board-no-cell", "check.board-no-cell",
         stage("board square 2", "blocked a1..b2", "players x o", "move place empty", "end board-full: draw"),
         "1:1", "board square 2", ("no playable cell: all 4 cells of the 2x2 board are blocked",)),
    Case("cell-off-board", "check.cell-off-board",
         stage("board square 8", "blocked b1 j9", "players x o", "move place empty", "end line 3: mover wins"),
         "2:12", "j9", ("unknown cell 'j9' (the board is 8x8: a1..h8)",
                        "hint: cells are a column letter a..h and a row number 1..8")),
    Case("cell-off-board-range", "check.cell-off-board",
         stage("board rect 3 4", "players x o", "setup x a1..e2", "move step", "end line 3: mover wins"),
         "3:13", "e2", ("unknown cell 'e2' (the board is 3x4: a1..d3)",
                        "hint: cells are a column letter a..d and a row number 1..3")),
    Case("blocked-twice", "check.blocked-twice",
         stage("board square 3", "blocked a1", "blocked b2 a1", "players x o", "move place empty", "end board-full: draw"),
         "3:12", "a1", ("warning: cell 'a1' is blocked twice (first on line 2)",)),
    # --- the initial position -------------------------------------------------------------------------
    Case("setup-unknown-player", "check.setup-unknown-player",
         stage("board square 3", "players black white", "setup whte a1", "move step", "end line 3: mover wins"),
         "3:7", "whte", ("unknown player 'whte' in `setup` (the players are 'black' and 'white')",
                         "hint: did you mean 'white'?")),
    Case("setup-name-missing", "check.setup-unknown-player",
         stage("board square 3", "players black white", "setup a1 b2", "move step", "end line 3: mover wins"),
         "3:7", "a1", ("unknown player 'a1' in `setup`",
                       "hint: `setup` names the player first, then the cells: `setup black a1 ...`")),
    Case("setup-blocked", "check.setup-blocked",
         stage("board square 3", "blocked b2", "players x o", "setup x a1 b2", "move step", "end line 3: mover wins"),
         "4:12", "b2", ("cell 'b2' is blocked, so no piece of 'x' can be set up on it",
                        "hint: blocked cells never hold a piece")),
    Case("setup-twice", "check.setup-twice",
         stage("board square 3", "players x o", "setup x a1", "setup o b1 a1..a3", "move step", "end line 3: mover wins"),
         "4:12", "a1..a3", ("cell 'a1' is set up twice (first for 'x' on line 3)",)),
    # --- forward headings ------------------------------------------------------------------------------
    Case("forward-unknown-player", "check.forward-unknown-player",
         stage("board square 3", "players x o", "forward x down, oo up", "setup x a1", "move step forward",
               "end line 3: mover wins"),
         "3:17", "oo", ("unknown player 'oo' in `forward` (the players are 'x' and 'o')", "hint: did you mean 'o'?")),
    Case("forward-twice", "check.forward-twice",
         stage("board square 3", "players x o", "forward x down, o up, x up", "setup x a1", "move step forward",
               "end line 3: mover wins"),
         "3:23", "x", ("player 'x' is given a heading twice (first at column 9 of this line)",)),
    Case("forward-missing", "check.forward-missing",
         stage("board square 8", "players white black", "setup white a1..h2", "setup black a7..h8",
               "move step forward forward-diagonal", "end reach far-row: mover wins"),
         "5:11", "forward", ("direction `forward` needs every player's forward heading, but 'white' and 'black' have none",
                             "hint: add the line `forward white down, black up`")),
    Case("forward-missing-one", "check.forward-missing",
         stage("board square 8", "players white black", "forward black up", "setup white a1..h2", "setup black a7..h8",
               "move step n", "end reach far-row: mover wins"),
         "7:5", "reach far-row", ("`reach far-row` needs every player's forward heading, but 'white' has none",
                                  "hint: complete the `forward` statement: `forward white down, black up`")),
    # --- directions -------------------------------------------------------------------------------------
    Case("direction-unknown", "check.direction-unknown",
         stage("board hex 5", "players x o", "setup x a1", "move slide n nw", "end line 3: mover wins"),
         "4:14", "nw", ("no direction 'nw' on a hex board (it has n ne e s sw w)",
                        "hint: hex boards have six directions: n ne e s sw w")),
    Case("direction-none", "check.direction-none",
         stage("board hex 5", "players x o", "setup x a1", "move step diagonal", "end line 3: mover wins"),
         "4:11", "diagonal", ("`diagonal` names no direction on a hex board", "hint: hex boards have no diagonals")),
    Case("direction-empty-word", "check.direction-empty-word",
         stage("board hex 5", "players x o", "setup x a1", "move step orthogonal diagonal", "end line 3: mover wins"),
         "4:22", "diagonal", ("warning: direction 'diagonal' names no direction on a hex board, so it adds nothing",)),
    Case("direction-duplicate", "check.direction-duplicate",
         stage("board square 3", "players x o", "move place empty", "  flip custodial n e n", "end line 3: mover wins"),
         "4:22", "n", ("warning: direction 'n' is listed twice in `n e n`",)),
    # --- moves -------------------------------------------------------------------------------------------
    Case("move-never-applies", "check.move-never-applies",
         stage("board square 3", "players x o", "move step", "end line 3: mover wins"),
         "3:6", "step", ("`move step all` can never apply: it needs a piece of the mover, but no piece is set up",
                         "hint: set up pieces, e.g. `setup x a1`")),
    Case("distance-zero", "check.distance-zero",
         stage("board square 3", "players x o", "setup x a1", "move jump 0", "end line 3: mover wins"),
         "4:6", "jump 0", ("`move jump 0` can never apply: the distance must be at least 1",)),
    Case("distance-too-far", "check.distance-too-far",
         stage("board hex 4", "players x o", "setup x a1", "move clone 7 to any", "end line 3: mover wins"),
         "4:6", "clone 7 to any", ("`move clone 7 to any` can never apply: no two cells of the 4x4 board are 7 apart (at most 6)",
                                   "hint: on this board the distance is 1 to 6")),
    Case("require-capture-never", "check.require-capture-never",
         stage("board square 3", "players x o", "move place empty", "  require capture", "  flip custodial all",
               "end line 3: mover wins"),
         "4:3", "require capture", ("`require capture` can never be met: nothing written before it in this move takes a piece",
                                    "hint: it only counts the effects written before it: move it below `flip custodial all`")),
    Case("require-capture-early", "check.require-capture-early",
         stage("board square 3", "players x o", "setup x a1", "move step all to any", "  require capture",
               "  flip custodial all", "end line 3: mover wins"),
         "5:3", "require capture", ("warning: `require capture` comes before `flip custodial all`, which it does not count",)),
    Case("require-capture-twice", "check.require-capture-twice",
         stage("board square 3", "players x o", "move place empty", "  flip custodial all", "  require capture",
               "  require capture", "end line 3: mover wins"),
         "6:3", "require capture", ("warning: a second `require capture` in the same move (the first is on line 5)",)),
    Case("move-shadowed", "check.move-shadowed",
         stage("board square 3", "players x o", "setup x a1", "move slide orthogonal to any", "move step n to enemy",
               "end line 3: mover wins"),
         "5:6", "step n to enemy", ("warning: `move step n to enemy` never applies: `move slide orthogonal to any` (line 4) "
                                    "comes first and gives every move it gives",)),
    # --- ends ------------------------------------------------------------------------------------------
    Case("line-too-short", "check.line-too-short",
         stage("board square 3", "players x o", "move place empty", "end line 0: mover wins"),
         "4:5", "line 0", ("`line 0` holds on every position",)),
    Case("line-too-long", "check.line-too-long",
         stage("board rect 2 5", "blocked c1..c2", "players x o", "move place empty", "end line 3 exact: mover wins"),
         "5:5", "line 3 exact", ("`line 3 exact` can never hold: the longest line of playable cells on the 2x5 board has 2",
                                 "hint: on this board the length is 1 to 2")),
    Case("after-zero", "check.after-zero",
         stage("board square 3", "players x o", "move place empty", "end after 0 plies: draw"),
         "4:5", "after 0 plies", ("`after 0 plies` holds on the initial position",)),
    Case("no-pieces-at-start", "check.no-pieces-at-start",
         stage("board square 3", "players x o", "setup o a1", "move place empty", "end no-pieces: mover wins"),
         "5:5", "no-pieces", ("`no-pieces` holds on the initial position: 'x' moves first and has no piece set up",)),
    Case("board-full-at-start", "check.board-full-at-start",
         stage("board rect 1 2", "players x o", "setup x a1", "setup o b1", "move step to enemy", "end board-full: draw"),
         "6:5", "board-full", ("`board-full` holds on the initial position: every playable cell is set up",)),
    Case("connect-same-sides", "check.connect-same-sides",
         stage("board hex 5", "players x o", "move place empty", "end connect left-right left-right: mover wins"),
         "4:5", "connect left-right left-right", ("warning: both players connect `left-right`",)),
    Case("end-unreachable", "check.end-unreachable",
         stage("board square 5", "players x o", "move place empty", "end line 3: mover wins", "end line 4: mover loses"),
         "5:5", "line 4", ("warning: this end can never fire: the end on line 4 holds whenever it does",
                           "hint: `line 3` holds whenever `line 4` does")),
    # --- information lines ---
    Case("refused-without-hidden", "check.information-without-hidden",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins", "refused retry"),
         "5:1", "refused retry", ("error: `refused retry` means something only on a stage with hidden information",
                                  "hint: add `hidden opponent-pieces`")),
    Case("hidden-without-refused", "check.hidden-without-refused",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins",
               "hidden opponent-pieces"),
         "5:1", "hidden opponent-pieces", ("error: a stage with `hidden` says what happens to a try",
                                           "hint: add `refused retry` (the mover tries again)")),
    Case("announce-twice", "check.announce-twice",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins",
               "hidden opponent-pieces", "refused retry", "announce turn-count", "announce turn-count"),
         "8:1", "announce turn-count", ("warning: `announce turn-count` is written twice (first line 7)",)),
    Case("reveal-twice", "check.reveal-twice",
         stage("board square 3", "players x o", "move place empty", "end line 3: mover wins",
               "hidden opponent-pieces", "refused retry", "reveal adjacent", "reveal adjacent"),
         "8:1", "reveal adjacent", ("warning: `reveal adjacent` is written twice (first line 7)",)),
    # --- chance at the start ---
    Case("random-none", "check.random-none",
         stage("board square 3", "players x o", "setup x random 0 in a1..c3", "move place empty",
               "end line 3: mover wins"),
         "3:1", "setup x random 0 in a1..c3", ("error: `setup x random 0 in a1..c3` draws no cell",
                                               "hint: draw at least 1, or remove the line")),
    Case("random-too-few-cells", "check.random-too-few-cells",
         stage("board square 3", "blocked b2", "players x o", "setup o a1", "setup x random 3 in a1..c1 b2",
               "move place empty", "end line 3: mover wins"),
         "5:1", "setup x random 3 in a1..c1 b2",
         ("error: `setup x random 3 in a1..c1 b2` draws 3 of the 2 cells it lists that start empty",
          "hint: list more cells, or draw at most 2")),
    # --- dice ---
    Case("roll-dice", "check.roll-dice",
         stage("board rect 1 8", "players x o", "forward x right, o right", "setup x a1", "roll 2d1",
               "move advance forward to empty", "end reach far-row: mover wins"),
         "5:1", "roll 2d1", ("error: `roll 2d1` throws dice this stage cannot: a roll is 1 to 4 dice of 2 to 20 faces",
                             "hint: throw 1 to 4 dice of 2 to 20 faces, like `roll 1d6`")),
    Case("roll-too-far", "check.roll-too-far",
         stage("board square 4", "players x o", "forward x right, o right", "setup x a1", "roll 4d6",
               "move advance forward to empty", "end reach far-row: mover wins"),
         "5:1", "roll 4d6", ("error: `roll 4d6` never throws less than 4, and no straight line of the 4x4 board is "
                             "longer than 3 cells", "hint: throw fewer dice, or play on a larger board")),
    Case("roll-unused", "check.roll-unused",
         stage("board square 3", "players x o", "roll 1d6", "move place empty", "end line 3: mover wins"),
         "3:1", "roll 1d6", ("error: `roll 1d6` throws dice that no move reads",
                             "hint: add a move that reads it, like `move advance forward to empty`")),
    Case("advance-without-roll", "check.advance-without-roll",
         stage("board rect 1 8", "players x o", "forward x right, o right", "setup x a1",
               "move advance forward to empty", "end reach far-row: mover wins"),
         "5:1", "move advance forward to empty",
         ("error: `move advance forward to empty` moves a piece as far as the roll, and this stage throws no dice",
          "hint: add a `roll` line, like `roll 1d6`")),
]


@dataclass(frozen=True)
class AstCase:
    """A bad stage only code can build (the parser cannot read it) and the diagnostic it gets."""

    id: str
    code: str
    stage: A.Stage
    says: tuple[str, ...]


TIC_TAC_TOE = A.Stage(
    name="tic-tac-toe", board=A.SquareBoard(3), players=A.Players(("x", "o")),
    moves=(A.MoveRule(A.PlaceEmpty()),), ends=(A.End(A.Line(3), A.MoverWins()),),
)
PIECES = dataclasses.replace(TIC_TAC_TOE, setup=(A.Setup("x", (A.Cell(0, 0),)),))

AST_CASES: list[AstCase] = [
    AstCase("game-name", "check.game-name", dataclasses.replace(TIC_TAC_TOE, name='say "hi"'),
            ("""the game name 'say "hi"' contains a quote (")""",)),
    AstCase("game-name-newline", "check.game-name", dataclasses.replace(TIC_TAC_TOE, name="two\nlines"),
            ("contains a line break",)),
    AstCase("player-name-invalid", "check.player-name-invalid",
            dataclasses.replace(TIC_TAC_TOE, players=A.Players(("x", "o o"))),
            ("player name 'o o' is not a name", "hint: a name is a letter followed by letters, digits or '_'")),
    AstCase("target", "check.invalid-value",
            dataclasses.replace(PIECES, moves=(A.MoveRule(A.Step(target="enemies")),)),
            ("target 'enemies' is not one of: empty, enemy, any",)),
    AstCase("heading", "check.invalid-value",
            dataclasses.replace(PIECES, forward=(A.Heading("x", "north"), A.Heading("o", "up"))),
            ("heading 'north' is not one of: up, down, left, right",)),
    AstCase("sides", "check.invalid-value",
            dataclasses.replace(TIC_TAC_TOE, ends=(A.End(A.Connect(("top-bottom",)), A.MoverWins()),)),
            ("`connect` sides 'top-bottom' is not one of: two pairs",)),
]


def _caret_under(rendered: str, source: str, d: Diagnostic) -> str:
    """The source text that the caret line of a rendered diagnostic underlines."""
    lines = rendered.splitlines()
    source_line = source.splitlines()[d.span.line - 1]
    if len(source_line) > EXCERPT:  # cut (here, the cases' long lines are cut on the right only)
        source_line = source_line[:EXCERPT]
        assert lines[1] == source_line + "…"
    else:
        assert lines[1] == source_line
    caret = lines[2]
    start = len(caret) - len(caret.lstrip(" "))
    assert start == d.span.column - 1 and set(caret[start:]) == {"^"}
    return source_line[start:len(caret)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_catalogue_case(case: Case):
    _, found = analyse(case.text, PATH)
    assert [d.code for d in found] == [case.code], "\n".join(d.render(case.text, PATH) for d in found)
    d = found[0]
    assert f"{d.span.line}:{d.span.column}" == case.at
    rendered = d.render(case.text, PATH)
    assert rendered.startswith(f"{PATH}:{case.at}: {MESSAGES[case.code].severity}: {d.message}\n")
    assert _caret_under(rendered, case.text, d) == case.under
    for fragment in case.says:
        assert fragment in rendered, rendered


@pytest.mark.parametrize("case", AST_CASES, ids=lambda c: c.id)
def test_catalogue_ast_case(case: AstCase):
    found = check(case.stage)
    assert [d.code for d in found] == [case.code]
    rendered = found[0].render(None, PATH)
    assert rendered.startswith(f"{PATH}: {MESSAGES[case.code].severity}: ")
    for fragment in case.says:
        assert fragment in rendered, rendered


def test_every_message_has_a_case():
    covered = {c.code for c in CASES} | {c.code for c in AST_CASES}
    assert sorted(set(MESSAGES) - covered) == []
    assert sorted(covered - set(MESSAGES)) == []


def test_every_message_is_well_formed():
    for code, message in MESSAGES.items():
        assert code.split(".")[0] in ("syntax", "stage", "check"), code
        assert message.severity in ("error", "warning"), code
        assert message.text and not message.text.endswith("."), code


# --- all the errors of a file at once -------------------------------------------------------------

SEVERAL = stage(
    "board square 8",               # 1
    "blocked b1 h2 g8 a7 j9",       # 2: unknown cell j9
    "players black white",          # 3
    "setup blak d4",                # 4: unknown player
    "setup black d5 e4 b1",         # 5: a piece on blocked b1
    "move place empty",             # 6
    "  flip custodal all",          # 7: syntax
    "  require capture",            # 8
    "move jump 9",                  # 9: too far
    "pass forced",                  # 10
    "end no-moves most-pieces",     # 11: syntax
    "end line 0: draw",             # 12: line 0
)


def test_a_file_reports_every_error_on_every_line():
    _, found = analyse(SEVERAL, PATH)
    assert [(d.code, d.span.line) for d in found] == [
        ("check.cell-off-board", 2),
        ("check.setup-unknown-player", 4),
        ("check.setup-blocked", 5),
        ("syntax.unexpected-token", 7),
        ("check.distance-too-far", 9),
        ("syntax.unexpected-token", 11),
        ("check.line-too-short", 12),
    ]


def test_stage_error_renders_every_error_with_its_position():
    with pytest.raises(StageError) as info:
        loads(SEVERAL, "stages/several.gdl")
    err = info.value
    assert len(err.errors) == 7
    text = str(err)
    for d in err.errors:
        assert f"stages/several.gdl:{d.span.line}:{d.span.column}: error: {d.message}" in text
        assert SEVERAL.splitlines()[d.span.line - 1] in text.splitlines()
    assert text.count("^") >= 7
    assert "hint: did you mean `custodial`?" in text


def test_a_long_line_is_shown_cut_around_the_mistake_with_the_carets_under_it():
    wide = "setup x " + " ".join(["a1"] * 60) + " zz9 " + " ".join(["a2"] * 60)
    for source, word in ((stage("board square " + "9" * 5000, "players x o", "move place empty",
                                "end line 3: mover wins"), "9" * 30),
                         (stage("board square 3", "players x o", wide, "move place empty", "end line 3: mover wins"),
                          "zz9")):
        with pytest.raises(StageError) as info:
            loads(source, "long.gdl")
        lines = str(info.value).splitlines()
        (excerpt,) = [i for i, line in enumerate(lines) if word in line and "error" not in line]
        carets = lines[excerpt + 1]
        assert len(lines[excerpt]) <= EXCERPT + 2 and len(carets) <= EXCERPT + 2  # not a 5,000-character line
        at = carets.index("^")
        assert lines[excerpt][at:].startswith(word[:3]) and set(carets.strip()) == {"^"}


def test_warnings_alone_do_not_stop_loading():
    text = stage("board square 3", "players x o", "move place empty", "move place empty", "end line 3: mover wins")
    assert [d.code for d in check(text)] == ["check.move-shadowed"]
    assert loads(text).moves[0] == A.MoveRule(A.PlaceEmpty())


def test_a_misspelt_statement_is_not_also_missing():
    text = stage("board square 3", "players x o", "move plce empty", "ned line 3: mover wins")
    assert [d.code for d in check(text)] == ["syntax.unexpected-token", "syntax.unknown-statement"]


def test_a_statement_that_did_not_parse_draws_no_conclusion():
    """A bad `forward` or `setup` line is reported as itself, not as headings or pieces missing."""
    text = stage("board square 8", "players x o", "forward x dwn, o up", "setup x a1..h2 ;",
                 "move step forward", "end reach far-row: mover wins", "end no-pieces: mover loses")
    assert [(d.code, d.span.line) for d in check(text)] == [
        ("syntax.unexpected-token", 3), ("syntax.unexpected-character", 4)]
    assert {d.code for d in check_stage(parse_diagnostics(text).stage)} == {
        "check.forward-missing", "check.move-never-applies", "check.no-pieces-at-start"}


# --- valid stages -------------------------------------------------------------------------------------

VALID = {
    "othello-c-squares": stage(
        "# Othello AI Arena stage: blocked C-squares, captures run over blocked cells",
        'game "8x8 C-squares, occlusion-agnostic"',
        "board square 8",
        "blocked b1 h2 g8 a7",
        "players black white",
        "setup black e4 d5",
        "setup white d4 e5",
        "move place empty",
        "  flip custodial all over-blocked",
        "  require capture",
        "pass forced",
        "end no-moves: most-pieces",
    ),
    "breakthrough": stage(
        'game "Breakthrough"',
        "board square 8",
        "players white black",
        "forward white down, black up",
        "setup white a1..h2",
        "setup black a7..h8",
        "move step forward forward-diagonal to empty",
        "move step forward-diagonal to enemy",
        "end reach far-row: mover wins",
        "end no-pieces: mover wins",
    ),
    "hex": stage(
        'game "Hex"',
        "board hex 11",
        "players red blue",
        "move place empty",
        "end connect top-bottom left-right: mover wins",
    ),
    "connect-four": stage(
        'game "Connect Four"',
        "board rect 6 7",
        "players red yellow",
        "move place gravity",
        "end line 4: mover wins",
        "end board-full: draw",
    ),
    "ataxx": stage(
        'game "Ataxx"',
        "board square 7",
        "players red blue",
        "setup red a1 g7",
        "setup blue g1 a7",
        "move clone 1 to empty",
        "  convert adjacent",
        "move jump 2 to empty",
        "  convert adjacent",
        "pass forced",
        "end no-moves: most-pieces",
        "end no-pieces: mover wins",
    ),
    "custodian": stage(
        'game "Custodian"',
        "board square 7 wrap",
        "players black white",
        "move place empty",
        "  remove custodial orthogonal",
        "turn again-after-capture",
        "end board-full: most-pieces",
        "end after 80 plies: most-pieces",
    ),
    "hex-checkers": stage(
        'game "Hex steppers"',
        "board hex 6",
        "players red blue",
        "forward red down, blue up",
        "setup red a1..f1",
        "setup blue a6..f6",
        "move step forward sideways",
        "move step forward to enemy",
        "end reach far-row: mover wins",
        "end no-moves: mover loses",
    ),
}


@pytest.mark.parametrize("name", VALID)
def test_valid_stage_has_no_diagnostic(name: str):
    text = VALID[name]
    parsed, found = analyse(text, f"{name}.gdl")
    assert found == [], "\n".join(d.render(text, name) for d in found)
    assert loads(text) == parsed


# --- ASTs built in code -----------------------------------------------------------------------------


def without_spans(node):
    """The same AST with every span removed, as if it had been built in code."""
    if isinstance(node, tuple):
        return tuple(without_spans(n) for n in node)
    if not isinstance(node, A.Node):
        return node
    changes = {f.name: without_spans(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "span"}
    return dataclasses.replace(node, span=None, **changes)


def test_without_spans_removes_every_span():
    parsed = parse_diagnostics(VALID["breakthrough"]).stage
    bare = without_spans(parsed)
    assert bare == parsed and parsed.span is not None
    stack = [bare]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif isinstance(node, A.Node):
            assert node.span is None, node
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "span")


CHECKED = [c for c in CASES if c.code.startswith("check.") or c.id in ("missing-move", "missing-end")]


@pytest.mark.parametrize("case", CHECKED, ids=lambda c: c.id)
def test_an_ast_without_spans_gets_the_same_codes(case: Case):
    parsed = parse_diagnostics(case.text, "bad")
    with_spans = check_stage(parsed.stage, parsed.failed)
    bare = check_stage(without_spans(parsed.stage), parsed.failed)
    assert [d.code for d in bare] == [d.code for d in with_spans] == [case.code]
    assert all(d.span is None for d in bare)
    for d in bare:
        assert d.render(None, PATH).startswith(f"{PATH}: {d.severity}: ")


@pytest.mark.parametrize("name", VALID)
def test_a_valid_ast_without_spans_has_no_diagnostic(name: str):
    assert check_stage(without_spans(parse_diagnostics(VALID[name]).stage)) == []


def test_odd_asts_built_in_code_do_not_crash():
    odd = [
        dataclasses.replace(TIC_TAC_TOE, board=A.SquareBoard(0)),
        dataclasses.replace(TIC_TAC_TOE, board=A.RectBoard(-3, 40)),
        dataclasses.replace(TIC_TAC_TOE, players=A.Players(())),
        dataclasses.replace(TIC_TAC_TOE, moves=(), ends=()),
        dataclasses.replace(TIC_TAC_TOE, blocked=(A.Cell(-1, 99), A.CellRange(A.Cell(0, 0), A.Cell(9, 9)))),
        dataclasses.replace(PIECES, moves=(A.MoveRule(A.Step(A.Directions(()))), A.MoveRule(A.Jump(-2)))),
        dataclasses.replace(PIECES, moves=(A.MoveRule(A.Slide(A.Directions(("up",)))),)),
        dataclasses.replace(TIC_TAC_TOE, ends=(A.End(A.Line(-1), A.Draw()), A.End(A.AfterPlies(-5), A.Draw()))),
        dataclasses.replace(TIC_TAC_TOE, setup=(A.Setup("nobody", ()),), forward=(A.Heading("x", "up"),)),
    ]
    for stage_ in odd:
        found = check_stage(stage_)
        assert found and any(d.is_error for d in found), stage_
        for d in found:
            assert d.render(None, PATH)  # every message formats


# --- typos that once read as something else ------------------------------------------------------

@pytest.mark.parametrize("line, word, hint", [
    ("move step diagonals", "diagonals", "did you mean `diagonal`?"),
    ("move step forwards", "forwards", "did you mean `forward`?"),
    ("move stepn", "stepn", "did you mean `step`?"),
    ("move place empty\n  flip custodials all", "custodials", "did you mean `custodial`?"),
    ("move place empty\n  convert adjacents", "adjacents", "did you mean `adjacent`?"),
    ("move place empty\n  flip custodial north", "north", None),
])
def test_a_keyword_is_a_whole_word(line: str, word: str, hint: str | None):
    """A keyword is not read as the start of a longer word (`diagonals` is not `diagonal s`)."""
    text = stage("board square 3", "players x o", "setup x a1", line, "end line 3: mover wins")
    _, found = analyse(text, PATH)
    assert [d.code for d in found] == ["syntax.unexpected-token"]
    assert f"unexpected word `{word}`" in found[0].message
    assert found[0].hint == hint


# --- the board geometry the checks use, against the reference interpreter's ---------------------------

BOARDS = [
    "square 1", "square 3", "square 4 wrap", "square 5 wrap", "rect 2 3", "rect 2 3 wrap", "rect 3 5 wrap",
    "rect 1 6", "hex 1", "hex 4", "hex 3 wrap", "hex 4 wrap", "rect 4 6 wrap",
]


def _longest_run(topology) -> int:
    best = 0
    for cells, cyclic in topology.lines:
        playable = [i not in topology.blocked for i in cells]
        if cyclic and all(playable):
            best = max(best, len(cells))
            continue
        run = 0
        for ok in (playable * 2 if cyclic else playable):
            run = run + 1 if ok else 0
            best = max(best, run)
    return best


@pytest.mark.parametrize("board, blocked", [(b, "") for b in BOARDS]
                         + [(b, "blocked a1") for b in BOARDS if b not in ("square 1", "hex 1")]
                         + [("rect 1 6 wrap", "blocked c1"),  # the longest row runs round the edge: d1..b1
                            ("hex 3", "blocked b1 a2 b3 c3"),  # the longest line: the anti-diagonal c1 b2 a3
                            ("square 3", "blocked b1 a2 b3 c3")])
def test_distance_and_line_limits_agree_with_the_interpreter(board: str, blocked: str):
    """`jump N` and `line K` are refused exactly when the board has no such distance or line."""
    from ludica.gdl.interpreter.topology import Topology

    def codes(move: str, end: str) -> set[str]:
        lines = [f"board {board}", blocked, "players x o", "setup x a1" if not blocked else "", move, end]
        return {d.code for d in check(stage(*(line for line in lines if line)))}

    base = loads(stage(f"board {board}", blocked, "players x o", "move place empty", "end board-full: draw"))
    topology = Topology(base)
    most = max(max(topology.distances(i)) for i in range(topology.size))
    longest = _longest_run(topology)
    if most >= 1:
        assert "check.distance-too-far" not in codes(f"move jump {most}", "end board-full: draw")
    assert "check.distance-too-far" in codes(f"move jump {most + 1}", "end board-full: draw")
    assert "check.line-too-long" not in codes("move place empty", f"end line {longest}: draw")
    assert "check.line-too-long" in codes("move place empty", f"end line {longest + 1}: draw")


# Each recognised common mistake (gdl/parser.py COMMON_MISTAKES) gets its hint, on its line.
MISTAKES = [
    ("end no-moves most-pieces", "a colon separates the condition from its result"),
    ("board square 8x8", "sizes are numbers"),
    ("setup black d0", "rows are numbered from 1"),
    ("move step to enemy\n  capture on-arrival", "arriving on an enemy piece captures it"),
    ("move: place empty", "no colon after the statement's keyword"),
]


@pytest.mark.parametrize("line, hint", MISTAKES, ids=[m[1][:20] for m in MISTAKES])
def test_common_mistake_hints(line, hint):
    from ludica.gdl.parser import COMMON_MISTAKES

    assert any(h.startswith(hint) for _, h in COMMON_MISTAKES)
    text = f"board square 8\nplayers black white\nmove place empty\n{line}\nend no-moves: draw\n"
    _, problems = analyse(text, "bad.gdl")
    errors = [d for d in problems if d.is_error]
    on_line = 4 + line.count("\n")  # the error is on the mistake's (last) line
    assert len(errors) == 1 and errors[0].span.line == on_line and errors[0].hint.startswith(hint), errors
