"""Reading a move out of a language model's free text, and saying what was wrong with it.

    found_move("I'll take the corner.\n**Move:** `D3`")   # "d3"
    hint(game, state, legal, "e9", list_legal=False)        # "e9 is off the board: columns run a to h, ..."

`found_move` is lenient, as a person reading the answer would be: markdown is stripped, case is
ignored, `b2–b3`, `b2->b3`, `b2 to b3` and `b2xb3` all read `b2-b3`; the last `move: X` wins (a
line that starts with `move`, or `move:` anywhere), else the last move-shaped word (`d3`, `b2-b3`
or `pass`). It never raises, on any text.
`hint` is the feedback after a bad answer: what kind of miss it was (no move found, off the board,
an occupied or blocked cell, a piece that is not the model's, not legal now), never a list of the
legal moves unless the model is told them anyway (`list_legal`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...compiler.game import CompiledGame
from ...gdl.ast import COLUMN_LETTERS

MARKS = ("X", "O")  # the first player's pieces, the second's, as gdl.render draws them
QUOTED = 40  # the most characters of the model's text a hint quotes

PARSED = 16_000  # the characters of an answer read for its move: its end, where the move line is asked for

# Every pattern here is linear in the text: runs of spaces are made one space first, so no `\s*`
# can rescan a long run at every position of it (a megabyte of blanks from a broken server).
_MARKDOWN = re.compile(r"[*`_~#>|\[\]]")
_BLANKS = re.compile(r"[^\S\n]+")
_LINES = re.compile(r"\n\s*")
_DASHES = re.compile(r" ?(?:->|=>|[\u2010-\u2015\u2212\u2192\u27f6]|\bto\b|(?<=\d)x(?=[a-z])) ?")
_CELL = r"([a-z])(\d{1,4})"
_TOKEN = re.compile(rf"(?<![a-z0-9]){_CELL}(?: ?- ?{_CELL})?(?![a-z0-9])|(?<![a-z0-9])(pass)(?![a-z0-9])")
# where the model says its move: a line that starts with it (`Move: d3`, `**Final move** d3`), or
# `move:` / `move is:` anywhere in a line (`The best move: d3, since c4 is weak`)
_MOVE_SAID = re.compile(r"^[^a-z0-9\n]*(?:final |my )?move\b ?(?:is\b ?)?[:=\-]? ?|\bmove ?(?:is ?)?[:=] ?",
                        re.MULTILINE)
SAID_SPAN = 200  # the characters after `move:` searched for the move


def _plain(text: str) -> str:
    """The end of the text lower-cased, without markdown, its blanks one space, its arrows and
    dashes hyphens."""
    text = _LINES.sub("\n", _BLANKS.sub(" ", _MARKDOWN.sub(" ", text[-PARSED:].lower())))
    return _DASHES.sub("-", text)


def _tokens(text: str) -> list[str]:
    found = []
    for m in _TOKEN.finditer(text):
        if m.group(5):
            found.append("pass")
        elif m.group(3):
            found.append(f"{m.group(1)}{int(m.group(2))}-{m.group(3)}{int(m.group(4))}")
        else:
            found.append(f"{m.group(1)}{int(m.group(2))}")
    return found


def found_move(text: object) -> str | None:
    """The move `text` means, written as the referee reads moves (`d3`, `b2-b3`, `pass`), or None.
    The move may still be off the board or illegal: `hint` says so."""
    if not isinstance(text, str):
        return None
    plain = _plain(text)
    for said in reversed(list(_MOVE_SAID.finditer(plain))):  # the last place it says its move, with a move
        end = plain.find("\n", said.end())
        tokens = _tokens(plain[said.end(): min(said.end() + SAID_SPAN, len(plain) if end < 0 else end)])
        if tokens:
            return tokens[0]
    tokens = _tokens(plain)
    return tokens[-1] if tokens else None


def quoted(text: str, limit: int = QUOTED) -> str:
    """A piece of the model's text fit to quote in a message: one line, printable, short."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def move_syntax(game: CompiledGame) -> str:
    """How this stage's moves are written, in words, from its rules (the kinds of move it has)."""
    places, steps = move_kinds(game)
    forms = []
    if places:
        forms.append(f"a new piece put on a cell is written as that cell, such as {example_cell(game)}")
    if steps:
        forms.append(f"a piece moved is written as its start and end cells joined by a hyphen, such as "
                     f"{example_step(game)}")
    if game.info.has_pass:
        forms.append("a pass (only when you have no other move) is written pass")
    return "; ".join(forms)


def move_kinds(game: CompiledGame) -> tuple[bool, bool]:
    """Whether the stage has placements, and whether it has moves of a piece."""
    from ...gdl import ast as A
    kinds = [rule.kind for rule in game.stage.moves]
    steps = any(isinstance(k, (A.Step, A.Slide, A.Jump)) for k in kinds)
    return (not steps) or any(not isinstance(k, (A.Step, A.Slide, A.Jump)) for k in kinds), steps


def example_cell(game: CompiledGame) -> str:
    """A cell of this board to show the notation with (d3 on boards that have it)."""
    return f"{COLUMN_LETTERS[min(3, game.cols - 1)]}{min(3, game.rows)}"


def example_step(game: CompiledGame) -> str:
    """A piece move on this board to show the notation with (b2-b3 on boards that have it)."""
    column = COLUMN_LETTERS[min(1, game.cols - 1)]
    return f"{column}{min(2, game.rows - 1)}-{column}{min(3, game.rows)}"


def example(game: CompiledGame) -> str:
    """A move written as this stage writes its moves: a placement if it has them, else a piece move."""
    places, _ = move_kinds(game)
    return example_cell(game) if places else example_step(game)


def hint(game: CompiledGame, state: np.ndarray, legal: Sequence[str], move: str | None, list_legal: bool = False,
         answer: str = "") -> str:
    """Why `move` (what `found_move` read in the model's `answer`) is not a move to play now; ""
    when it is one of `legal`."""
    if move is not None and move in legal:
        return ""
    said = _miss(game, state, legal, move, answer)
    count = len(legal)
    tail = f" There {'is 1 legal move' if count == 1 else f'are {count} legal moves'} in this position."
    if list_legal:
        tail += " The legal moves: " + " ".join(legal) + "."
    return said + tail + f" Answer again, ending with a line like `move: {example(game)}`."


def _miss(game: CompiledGame, state: np.ndarray, legal: Sequence[str], move: str | None, answer: str) -> str:
    if move is None:
        shown = f" ('{quoted(answer)}')" if answer.strip() else " (it was empty)"
        return (f"I found no move in your answer{shown}. Moves are written so: {move_syntax(game)}; "
                f"end your answer with a line `move: {example(game)}`.")
    if move == "pass":
        return "pass is not allowed now: you may pass only when you have no other move."
    cells = [(int(c[1:]) - 1, COLUMN_LETTERS.index(c[0])) for c in move.split("-")]
    off = [c for c, (r, col) in zip(move.split("-"), cells) if not (0 <= r < game.rows and 0 <= col < game.cols)]
    if off:
        return (f"{move} is off the board: {' and '.join(off)} {'is' if len(off) == 1 else 'are'} not a cell; "
                f"columns run a to {COLUMN_LETTERS[game.cols - 1]} and rows 1 to {game.rows}.")
    board = game.board(state)
    me = game.to_move(state)
    places, steps = move_kinds(game)
    legal_places = [m for m in legal if "-" not in m and m != "pass"]
    legal_steps = [m for m in legal if "-" in m]

    def holds(cell: str, at: tuple[int, int]) -> str:
        value = int(board[at])
        if value < 0:
            return f"{cell} is blocked (#): no piece can ever stand there"
        if value == 0:
            return f"{cell} is empty"
        return f"{cell} holds {'your' if value == me + 1 else 'an opposing'} piece ({MARKS[value - 1]})"

    if len(cells) == 1:
        cell, at = move, cells[0]
        starts = sum(m.split("-")[0] == cell for m in legal_steps)
        if starts:
            return (f"{cell} names only a cell, but it is the start of {starts} of your legal piece moves: write a "
                    f"piece move as its start and end cells joined by a hyphen, such as {example_step(game)}.")
        if not legal_places:
            return (f"{cell} names only a cell, but every legal move now moves a piece: write its start and end "
                    f"cells joined by a hyphen, such as {example_step(game)}.")
        if int(board[at]) != 0:
            return f"{cell} cannot take a new piece: {holds(cell, at)}."
        return f"{cell} is not a legal move now (the cell is empty, but the rules do not allow a piece there now)."
    (start, end), (src, dst) = move.split("-"), cells
    if not legal_steps and places and not steps:
        return (f"{move} moves a piece, but in this game every move puts a new piece on a cell: write the cell "
                f"only, such as {example_cell(game)}.")
    if int(board[src]) != me + 1:
        return f"{move} starts at {start}, which holds no piece of yours: {holds(start, src)}."
    if int(board[dst]) == me + 1:
        return f"{move} ends on {end}, which holds a piece of yours."
    if int(board[dst]) < 0:
        return f"{move} ends on {end}, which is blocked (#): no piece can ever stand there."
    starts = sum(m.split("-")[0] == start for m in legal_steps)
    return (f"{move} is not a legal move now; the piece on {start} has "
            + (f"{starts} legal move{'s' if starts != 1 else ''}." if starts else "no legal move."))
