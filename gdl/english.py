"""A stage's rules in plain English, generated from its AST: what a person reads on a stage's page
and what a language-model agent is prompted with.

    english.rules(stage)          # paragraphs: board, players and setup, turns, moves, passing, ends
    english.rules_text(stage)     # the same, one text
    english.changes(base, variant)  # what a variant changed, one sentence a change

Each concept's sentence is declared with the concept (gdl/ast.py, `Concept.sentence`): `{field}`
says a field's value by its form (one sayer per form, `_FORM_SAYERS`, like the printer's table),
`{field:OPTION}` with an option of the form, and any other placeholder names a phrase computed
from the stage (`CONTEXT`: how far a jump is measured, what lines the board has...). This module
only puts the sentences in order and says what belongs to no concept (cells, setup, headings).
Player names are the stage's labels; the rules speak to the player whose turn it is ("you").
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import ast as A
from . import geometry

__all__ = ["rules", "rules_text", "changes", "sentence", "differences", "Difference", "CONTEXT", "far_row", "sides"]

_PLACEHOLDER = re.compile(r"\{(\w+)(?::([^{}]*))?\}")


def placeholders(template: str) -> list[str]:
    """The names a sentence template fills in, in order (tests/test_concepts.py reads them)."""
    return [m.group(1) for m in _PLACEHOLDER.finditer(template)]


# --- lists and plurals ---------------------------------------------------------------------------


def _join(items: Iterable[str], last: str = "and") -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def _counted(n: int, option: str) -> str:
    """`n` with its noun: option `ply|plies` says "1 ply", "40 plies"."""
    one, _, many = option.partition("|")
    return f"{n} {one if n == 1 else many or one}"


# --- the stage as the sentences need it ----------------------------------------------------------


@dataclass(frozen=True)
class _Stage:
    """The facts of a stage that the sentences say: its board's shape and its players."""

    stage: A.Stage

    @property
    def board(self) -> A.BoardKind:
        return self.stage.board

    @property
    def is_hex(self) -> bool:
        return geometry.hexagonal(self.board)

    @property
    def names(self) -> tuple[str, ...]:
        return self.stage.player_names

    def heading(self, player: int) -> str | None:
        name = self.names[player] if player < len(self.names) else None
        return next((h.heading for h in self.stage.forward if h.player == name), None)

    def column(self, col: int) -> str:
        return A.COLUMN_LETTERS[col]

    def all_directions(self) -> str:
        return f"the {len(geometry.steps(self.is_hex))} directions"


# --- directions ----------------------------------------------------------------------------------

# How the forward-relative direction words read (what they point to is said for each player).
RELATIVE_PHRASES = {"forward": "straight forward", "forward-diagonal": "diagonally forward",
                     "backward": "straight backward", "sideways": "sideways"}


def _direction_set(dirs: tuple[str, ...], quantifier: str, at: _Stage) -> str:
    """A set of compass directions, as `in any of ...` (quantifier `any`) or `in each of ...`."""
    every = tuple(geometry.steps(at.is_hex))
    if not dirs:
        return "in no direction at all (the words name no direction on this board)"
    if dirs == every:
        return f"in {quantifier} of {at.all_directions()}"
    if len(dirs) == 1:
        return f"in direction {dirs[0]}"
    for kind in ("orthogonal", "diagonal"):
        if not at.is_hex and dirs == geometry.resolve((kind,), False, None):
            return f"in {quantifier} of the {len(dirs)} {kind} directions ({_join(dirs)})"
    return f"in {quantifier} of the directions {_join(dirs)}"


def _say_directions(form: A.DirectionList, value: A.Directions, option: str, at: _Stage) -> str:
    quantifier = option or "any"
    unknown = [w for w in value.words if w not in geometry.words(at.is_hex)]
    if unknown:  # only in a stage the checks refuse: say what it wrote
        return f"in the directions {_join(value.words)} (the board has no {_join(unknown, 'or')})"
    relative = [w for w in value.words if w in geometry.RELATIVE_WORDS]
    if not relative:
        return _direction_set(geometry.resolve(value.words, at.is_hex, None), quantifier, at)
    # Forward-relative words point another way for each player: say the words, then what they are.
    words = _join(dict.fromkeys(RELATIVE_PHRASES.get(w, f"direction {w}") for w in value.words), "or")
    each = []
    for player, name in enumerate(at.names[:2]):
        try:
            dirs = geometry.resolve(value.words, at.is_hex, at.heading(player))
        except geometry.DirectionError:
            each.append(f"for {name} none, as {name} has no forward direction")
            continue
        each.append(f"for {name} {_join(dirs, 'or') if dirs else 'none on this board'}")
    lead = "in any direction that is" if quantifier == "any" else "in each direction that is"
    return f"{lead} {words} ({'; '.join(each)})"


# --- cells ---------------------------------------------------------------------------------------


def _cells(items: tuple[A.CellItem, ...], at: _Stage) -> str:
    """Cells in row-major order, each once however written; whole rows said by their numbers."""
    cells = sorted({(c.row, c.col) for c in A.expand(items)})
    rows, cols = at.board.rows, at.board.cols
    by_row = {r for r, _ in cells}
    if len(by_row) * cols == len(cells) and len(cells) > 2 and max(by_row) < rows:
        whole = _join(str(r + 1) for r in sorted(by_row))
        return f"every cell of row{'s' * (len(by_row) > 1)} {whole}"
    return _join(A.cell_name(r, c) for r, c in cells)


def _cell_count(items: tuple[A.CellItem, ...]) -> int:
    return len({(c.row, c.col) for c in A.expand(items)})


# --- the sayers: a field's value by its form -----------------------------------------------------

# How a word of a closed vocabulary reads, by the grammar terminal of its form.
WORD_PHRASES: dict[str, dict[str, str]] = {
    "TARGET": {
        "empty": "an empty cell",
        "enemy": "a cell holding a piece of your opponent's, which is captured (removed from the board)",
        "any": "an empty cell or a cell holding a piece of your opponent's, which is then captured (removed "
               "from the board)",
    },
    "SIDES": {
        "top-bottom": "the top and bottom rows, rows 1 and {rows}",
        "left-right": "the left and right columns, columns a and {last_column}",
    },
}


def _word(terminal: str, word: str, at: _Stage) -> str:
    return WORD_PHRASES[terminal][word].format(rows=at.board.rows, last_column=at.column(at.board.cols - 1))


def sides(stage: A.Stage, pair: str) -> str:
    """A pair of sides of the board (`connect`'s "top-bottom"), said: "the top and bottom rows, rows 1 and 11"."""
    return _word("SIDES", pair, _Stage(stage))


def _say_flag(form: A.Flag, value: bool, option: str, at: _Stage) -> str:
    when_set, _, when_not = option.partition("|")
    return when_set if value else when_not


def _say_words(form: A.Words, value: tuple[str, ...], option: str, at: _Stage) -> str:
    # The only list of words is a pair of sides, one a player in turn order (gdl/ast.py Connect).
    return "; ".join(f"for {name}, {_word(form.terminal, word, at)}" for name, word in zip(at.names, value))


_FORM_SAYERS: dict[type, Callable[[Any, Any, str, _Stage], str]] = {
    A.Side: lambda form, v, option, at: _counted(v, option) if option else str(v),
    A.Count: lambda form, v, option, at: _counted(v, option) if option else str(v),
    A.Flag: _say_flag,
    A.Word: lambda form, v, option, at: _word(form.terminal, v, at),
    A.Words: _say_words,
    A.DirectionList: _say_directions,
}


# --- the phrases a sentence may use that are no field: computed from the stage -------------------


def _takes(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    """What a move does to the pieces it can have taken before `node` (`require capture`)."""
    verbs = []
    if move is not None:
        if move.kind.takes_on_arrival and getattr(move.kind, "target", "empty") != "empty":
            verbs.append("captures")
        for effect in move.effects:
            if effect is node:
                break
            verbs.append(effect.verb)
    verbs = [v for v in dict.fromkeys(verbs) if v]
    if not verbs:
        return "takes (and nothing before this sentence takes any, so the move is never allowed)"
    return _join(verbs, "or")


def far_row(stage: A.Stage, player: int) -> str | None:
    """The row or column a player's forward direction ends at ("row 8", "column a"); None for a
    player without a forward direction."""
    at = _Stage(stage)
    far = {"down": f"row {at.board.rows}", "up": "row 1",
           "right": f"column {at.column(at.board.cols - 1)}", "left": "column a"}
    return far.get(at.heading(player) or "")


def _far_rows(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    return "; ".join(f"for {name}, {far_row(at.stage, p) or 'none, as it has no forward direction'}"
                     for p, name in enumerate(at.names[:2]))


def _linked(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    if at.is_hex:
        return f"in any of {at.all_directions()}"
    return "orthogonally (n, e, s or w of it, not diagonally)"


def _axes(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    if at.is_hex:
        return "along one of the board's three axes (w to e, n to s, or ne to sw)"
    return "along a row, a column or a diagonal"


def _measured(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    return (f"(the distance is the fewest one-cell steps in any of {at.all_directions()} that lead there, "
            "counting blocked cells)")


def _around(node: A.Concept, at: _Stage, move: A.MoveRule | None = None) -> str:
    return f"in any of {at.all_directions()}"


# The placeholders of the concepts' sentences that are no field: name -> phrase from the stage (and
# the move rule the concept is in, for an effect).
CONTEXT: dict[str, Callable[..., str]] = {
    "takes": _takes, "far_rows": _far_rows, "linked": _linked, "axes": _axes, "measured": _measured,
    "around": _around,
}


def sentence(node: A.Concept, stage: A.Stage, move: A.MoveRule | None = None) -> str:
    """A concept node's sentence, filled in from its fields and the stage it is in."""
    at = _Stage(stage)
    fields = dict(A.forms(type(node)))

    def fill(m: re.Match) -> str:
        name, option = m.group(1), m.group(2) or ""
        if name in fields:
            return _FORM_SAYERS[type(fields[name])](fields[name], getattr(node, name), option, at)
        return CONTEXT[name](node, at, move)

    return _PLACEHOLDER.sub(fill, type(node).sentence)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- the paragraphs ------------------------------------------------------------------------------


def _uses_directions(stage: A.Stage) -> bool:
    nodes = [m.kind for m in stage.moves] + [e for m in stage.moves for e in m.effects]
    return bool(stage.forward) or any(isinstance(getattr(n, "directions", None), A.Directions) for n in nodes)


def _board(at: _Stage) -> str:
    b, stage = at.board, at.stage
    out = [f"The game is played on {sentence(b, stage)}."]
    last = A.cell_name(b.rows - 1, b.cols - 1)
    out.append(f"Columns are lettered a to {at.column(b.cols - 1)} from left to right and rows are numbered 1 to "
               f"{b.rows} from top to bottom, so a1 is the top-left cell and {last} the bottom-right one.")
    if at.is_hex:
        out.append("Each row is shifted half a cell to the right of the row above it, so a cell touches up to six "
                   "others: n and ne in the row above, w and e in its own row, sw and s in the row below.")
    elif _uses_directions(stage):
        out.append("Directions are named as on a compass with north at the top: n points to row 1, s to the "
                   "bottom, e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.")
    if stage.blocked:
        cells = _cells(stage.blocked, at)
        one = _cell_count(stage.blocked) == 1
        out.append(f"{'The cell' if one else 'The cells'} {cells} {'is' if one else 'are'} blocked: out of play, "
                   "never holding a piece; a move or a line cannot pass through a blocked cell unless a rule below "
                   "says so.")
    for line in stage.random_blocked:
        out.append(f"At the start, {_number(line.count)} {'cell' if line.count == 1 else 'cells'} among "
                   f"{_cells(line.cells, at)} {'is' if line.count == 1 else 'are'} blocked at random, drawn anew for "
                   "every game (each choice as likely).")
    return " ".join(out)


def _number(n: int) -> str:
    return ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")[n - 1] if 1 <= n <= 10 else str(n)


def _random_setups(at: _Stage) -> str:
    """The pieces placed at random at the start, in the order they are drawn ("" if none)."""
    said = [f"{_number(r.count)} of {r.player}'s pieces {'is' if r.count == 1 else 'are'} placed on "
            f"{'an empty cell' if r.count == 1 else 'empty cells'} among {_cells(r.cells, at)}"
            for r in at.stage.random_setup]
    if not said:
        return ""
    return (f"Then, at random and anew for every game (each choice as likely, in this order, after any cells "
            f"blocked at random): {'; '.join(said)}. Both players see the start.")


_HEADINGS = {"up": "up the board, towards row 1", "down": "down the board, towards row {rows}",
             "left": "to the left, towards column a", "right": "to the right, towards column {last}"}


def _players(at: _Stage) -> str:
    names, stage = at.names, at.stage
    out = [f"There are two players, {_join(names)}."]
    placed = []
    for name in names:
        items = tuple(c for s in stage.setup if s.player == name for c in s.cells)
        if items:
            many = _cell_count(items) > 1
            placed.append(f"{name} has {'pieces' if many else 'a piece'} on {_cells(items, at)}")
    if placed:
        out.append(f"At the start, {'; '.join(placed)}; every other cell is empty.")
    else:
        out.append("The board starts empty.")
    if stage.random_setup:
        out.append(_random_setups(at))
    out.append("Each player has a single kind of piece, with no limit on how many.")
    ways = [f"for {h.player}, {_HEADINGS[h.heading].format(rows=at.board.rows, last=at.column(at.board.cols - 1))}"
            for h in stage.forward]
    if ways:
        out.append(f"Forward means: {'; '.join(ways)}.")
    return " ".join(out)


def _turns(at: _Stage) -> str:
    stage = at.stage
    out = f"The first to move is {at.names[0]}. {sentence(stage.turn, stage)}"
    if stage.pass_rule is not None and not isinstance(stage.turn, A.Alternate):
        out += " A pass always hands the turn to the other player."
    if stage.roll is not None:
        out += " " + _roll(stage.roll)
    return out


def _roll(roll: A.Roll) -> str:
    """What the dice are: thrown for the side to move before each turn, seen by both."""
    dice = f"{_number(roll.dice)} {'die' if roll.dice == 1 else 'dice'} of {roll.faces} faces"
    total = "" if roll.dice == 1 else f", the total of {'both' if roll.dice == 2 else 'all'} dice"
    return (f"Before every turn, {dice} {'is' if roll.dice == 1 else 'are'} thrown for the player to move, at random and "
            f"anew each time (each face as likely); the roll{total}, from {roll.lowest} to {roll.highest}, is seen by "
            "both players.")


def _move(rule: A.MoveRule, at: _Stage, opening: str = "") -> str:
    """A move rule: its kind's sentence (after `opening`, else capitalised), then its effects'."""
    kind = sentence(rule.kind, at.stage)
    out = [f"{opening}{kind}." if opening else f"{_capital(kind)}."]
    out += [sentence(e, at.stage, rule) for e in rule.effects]
    return " ".join(out)


def _notation(stage: A.Stage) -> str:
    placed = any(isinstance(m.kind, (*A.PLACEMENTS, A.Clone)) for m in stage.moves)
    moved = any(not isinstance(m.kind, (*A.PLACEMENTS, A.Clone)) for m in stage.moves)
    forms = ["a move that puts a new piece is written as its cell (such as c3)"] if placed else []
    forms += ["a move of a piece is written as its start and end cells (such as b2-b3)"] if moved else []
    forms += ["a pass is written as pass"] if stage.pass_rule is not None else []
    return f"In the game's record, {_join(forms)}."


def _moves(at: _Stage) -> str:
    stage = at.stage
    if len(stage.moves) == 1:
        return f"{_move(stage.moves[0], at, 'On your turn, ')} {_notation(stage)}"
    items = "\n".join(f"{i}. {_move(rule, at)}" for i, rule in enumerate(stage.moves, 1))
    return (f"On your turn, make one of these moves:\n{items}\nIf one move (the same cell, or the same start and "
            f"end cells) fits more than one of these, the first of them that allows it is the one played. "
            f"{_notation(stage)}")


def _passing(at: _Stage) -> str:
    dice = (" With dice, your legal moves are those your roll gives you, and your opponent has a move when "
            "some roll would give it one.") if at.stage.roll is not None else ""
    if at.stage.pass_rule is None:
        return "There is no passing: a player who has no legal move cannot move at all." + dice
    return sentence(at.stage.pass_rule, at.stage) + dice


def _end(end: A.End, stage: A.Stage) -> str:
    return f"If {sentence(end.condition, stage)}, {sentence(end.result, stage)}."


def _ends(at: _Stage) -> str:
    stage = at.stage
    ends = [_end(e, stage) for e in stage.ends]
    out = []
    if len(ends) == 1:
        out.append(f"The game ends as soon as this holds, checked on the starting position and after every move "
                   f"and pass: {ends[0][:1].lower()}{ends[0][1:]}")
    elif ends:
        out.append("The game ends as soon as one of these holds; they are checked in this order on the starting "
                   "position and after every move and pass, and the first that holds decides:\n"
                   + "\n".join(f"{i}. {e}" for i, e in enumerate(ends, 1)))
    notes = []
    if "the player who just moved" in " ".join(ends):
        notes.append(f"Before the first move, the player who just moved is taken to be {at.names[-1]}.")
    # A `no-moves` end holds wherever a player is left without a move, so the draw below never comes.
    if not any(isinstance(e.condition, A.NoMoves) for e in stage.ends):
        notes.append("If no end holds but the player to move has no legal move at all, the game ends in a draw.")
    return "\n".join(out + [" ".join(notes)] if notes else out)


def _information(at: _Stage) -> list[str]:
    """What each player is told, for a stage with hidden information (no paragraph otherwise)."""
    stage = at.stage
    if stage.hidden is None:
        return []
    said = [sentence(node, stage) for node in (stage.hidden, stage.refused, *stage.announce, *stage.reveal)
            if node is not None]
    said.append("A try refused to you is not offered to you again until one of your tries is played. If you have no "
                "move on the true board, you are told so (and pass, if the rules give you a pass); if your view leaves "
                "you no move to try while the true board has one, you are shown the whole board. The game ends, and "
                "is won, on the true board, and both players are told how it ended.")
    return [" ".join(said)]


def rules(stage: A.Stage) -> list[str]:
    """The stage's rules in plain English, paragraph by paragraph: the board, the players and the
    setup, the turns, the moves with their effects, passing, how the game ends and who wins, and
    what each player is told if the stage hides anything."""
    at = _Stage(stage)
    return [_board(at), _players(at), _turns(at), _moves(at), _passing(at), _ends(at), *_information(at)]


def rules_text(stage: A.Stage) -> str:
    """The rules as one text: the paragraphs of `rules`, a blank line between them."""
    return "\n\n".join(rules(stage)) + "\n"


# --- what a variant changed --------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """One net difference between a base stage and a variant, statement by statement (an edit's
    changes that undo each other leave none). A node replaced (`old` → `new`), added (`old` None)
    or removed (`new` None), at position `at` of its list (a move, an effect of move `move`, an
    end); for cells (`blocked`, a player's `setup`) the cells `gone` and `added`, as (row, col)."""

    statement: str  # "board", "blocked", "setup", "move", "effect", "turn", "pass", "end", "hidden", "refused",
    # "announce", "reveal", "blocked random", "setup random", "roll"
    old: Any = None
    new: Any = None
    at: int = 0
    move: int = 0
    player: str = ""
    gone: tuple[tuple[int, int], ...] = ()
    added: tuple[tuple[int, int], ...] = ()


def setup_cells(s: A.Stage, player: str) -> frozenset[tuple[int, int]]:
    """The cells (row, col) holding the player's pieces at the start."""
    return frozenset((c.row, c.col) for x in s.setup if x.player == player for c in A.expand(x.cells))


def _listed(statement: str, old: tuple, new: tuple, start: int = 0, move: int = 0) -> list[Difference]:
    """The items of two lists that differ, position by position from `start`."""
    out = []
    for i in range(start, max(len(old), len(new))):
        a, b = old[i] if i < len(old) else None, new[i] if i < len(new) else None
        if a != b:
            out.append(Difference(statement, a, b, at=i, move=move))
    return out


def differences(base: A.Stage, stage: A.Stage) -> list[Difference]:
    """What differs between two stages, in the order of their statements (sampler/edits.describe
    says it in one terse line, `changes` in plain English)."""
    out = []
    if base.board != stage.board:
        out.append(Difference("board", base.board, stage.board))
    cells = [("blocked", "", base.blocked_cells, stage.blocked_cells)]
    cells += [("setup", p, setup_cells(base, p), setup_cells(stage, p)) for p in stage.players.names]
    for statement, player, old, new in cells:
        gone, added = tuple(sorted(old - new)), tuple(sorted(new - old))
        if gone or added:
            out.append(Difference(statement, player=player, gone=gone, added=added))
    for i, (a, b) in enumerate(zip(base.moves, stage.moves)):
        if a.kind != b.kind:
            out.append(Difference("move", a, b, at=i))
        out += _listed("effect", a.effects, b.effects, move=i)
    out += _listed("move", base.moves, stage.moves, start=min(len(base.moves), len(stage.moves)))
    if base.turn != stage.turn:
        out.append(Difference("turn", base.turn, stage.turn))
    if (base.pass_rule is None) != (stage.pass_rule is None):
        out.append(Difference("pass", base.pass_rule, stage.pass_rule))
    out += _listed("end", base.ends, stage.ends)
    out += [Difference(name, getattr(base, name), getattr(stage, name)) for name in ("hidden", "refused")
            if getattr(base, name) != getattr(stage, name)]
    out += _listed("announce", base.announce, stage.announce)
    out += _listed("reveal", base.reveal, stage.reveal)
    out += _listed("blocked random", base.random_blocked, stage.random_blocked)
    out += _listed("setup random", base.random_setup, stage.random_setup)
    if base.roll != stage.roll:
        out.append(Difference("roll", base.roll, stage.roll))
    return out


def _cells_changed(d: Difference) -> str:
    def named(cells: tuple[tuple[int, int], ...]) -> str:
        return _join(A.cell_name(r, c) for r, c in cells)

    if d.statement == "blocked":
        said = [f"{named(cells)} {'is' if len(cells) == 1 else 'are'} {now}"
                for cells, now in ((d.added, "now blocked"), (d.gone, "no longer blocked")) if cells]
        return f"The cell{'s' * (len(d.added) + len(d.gone) > 1)} {'; '.join(said)}."
    said = [f"{d.player} {now} {'a piece' if len(cells) == 1 else 'pieces'} on {named(cells)}"
            for cells, now in ((d.added, "now also has"), (d.gone, "no longer has")) if cells]
    return f"At the start, {'; '.join(said)}."


def _random_line(node: A.RandomBlocked | A.RandomSetup, at: _Stage) -> str:
    """One random line said alone (a difference)."""
    if isinstance(node, A.RandomBlocked):
        return f"{_number(node.count)} {'cell' if node.count == 1 else 'cells'} among {_cells(node.cells, at)} blocked at random"
    return f"{_number(node.count)} of {node.player}'s pieces placed at random on empty cells among {_cells(node.cells, at)}"


def _quoted(label: str, said: str) -> str:
    return f'{label}: "{said}"' + "." * (not said.endswith("."))


def _change(d: Difference, base: _Stage, variant: _Stage) -> str:
    if d.statement in ("blocked", "setup"):
        return _cells_changed(d)
    if d.statement == "pass":
        return f'Passing: now "{_passing(variant)}" (it was "{_passing(base)}").'
    label, say = {
        "board": ("The board", lambda node, at: sentence(node, at.stage)),
        "move": (f"Move {d.at + 1}", lambda node, at: _move(node, at)),
        "effect": (f"In move {d.move + 1}, effect {d.at + 1}",
                   lambda node, at: sentence(node, at.stage, at.stage.moves[d.move])),
        "turn": ("The turn order", lambda node, at: sentence(node, at.stage)),
        "end": (f"End rule {d.at + 1}", lambda node, at: _end(node, at.stage)),
        "hidden": ("What is hidden", lambda node, at: sentence(node, at.stage)),
        "refused": ("A refused try", lambda node, at: sentence(node, at.stage)),
        "announce": (f"Announcement {d.at + 1}", lambda node, at: sentence(node, at.stage)),
        "reveal": (f"Reveal {d.at + 1}", lambda node, at: sentence(node, at.stage)),
        "blocked random": (f"Random blocked cells {d.at + 1}", lambda node, at: _random_line(node, at)),
        "setup random": (f"Random setup {d.at + 1}", lambda node, at: _random_line(node, at)),
        "roll": ("The roll", lambda node, at: _roll(node)),
    }[d.statement]
    if d.old is None:
        return _quoted(f"{label} is new", say(d.new, variant))
    if d.new is None:
        return _quoted(f"{label} is gone", say(d.old, base))
    if d.statement == "move":  # the kind changed: its effects are said on their own
        d = Difference("move", A.MoveRule(d.old.kind), A.MoveRule(d.new.kind))
    return f'{label}: now "{say(d.new, variant)}" (it was "{say(d.old, base)}").'


def changes(base: A.Stage, variant: A.Stage) -> list[str]:
    """What a variant changed from its base, in plain English, one sentence a change, in the
    order of the statements (nothing if they are the same rules)."""
    return [_change(d, _Stage(base), _Stage(variant)) for d in differences(base, variant)]
