"""The catalogue of diagnostics: every message a stage file can get, as data.

Each entry has a stable code, a severity and a text with named fields. tests/test_errors.py holds,
beside each code, a small bad stage that must yield it, so a message cannot silently drift or
disappear.
"""
from __future__ import annotations

from typing import NamedTuple


class Message(NamedTuple):
    severity: str  # "error" or "warning"
    text: str


MESSAGES: dict[str, Message] = {
    # --- syntax: one statement per line (gdl/parser.py) ---
    "syntax.unknown-statement": Message("error", "unknown statement `{word}`"),
    "syntax.unexpected-token": Message("error", "unexpected {found}; expected {expected}"),
    "syntax.unexpected-character": Message("error", "unexpected character {char!r}; expected {expected}"),
    "syntax.unexpected-end": Message("error", "the statement ends too early; expected {expected}"),
    "syntax.stray-indent": Message("error", "indented line under `{keyword}`: only the effects of a `move` are indented"),
    "syntax.indent-at-start": Message("error", "indented line with no statement above it"),
    "syntax.unclosed-string": Message("error", "unclosed string: a quoted name ends with '\"' on the same line"),
    "syntax.number-too-large": Message("error", "the number {number} is too large: a stage's numbers are at most {limit:,}"),
    "syntax.cell-beyond-boards": Message("error", "cell {cell!r} is beyond every board: rows are numbered 1 to {rows}"),
    "syntax.stage-too-long": Message("error", "the stage has {size}: a stage is at most {limit}"),
    # --- structure: statements a stage needs once (gdl/parser.py) ---
    "stage.missing-statement": Message("error", "no `{keyword}` statement: {why}"),
    "stage.duplicate-statement": Message("error", "a second `{keyword}` statement (the first is on line {first_line}); a stage has one"),
    # --- static checks of a parsed stage or of an AST built in code (gdl/checks.py) ---
    # the stage's name and players
    "check.game-name": Message("error", "the game name {name!r} contains {what}: a name is quoted on one line"),
    "check.player-count": Message("error", "a stage has two players, but `players` names {count}: {names}"),
    "check.player-duplicate": Message("error", "player {name!r} is named twice"),
    "check.player-name-invalid": Message("error", "player name {name!r} is not a name"),
    "check.player-name-keyword": Message("warning", "player name {name!r} {looks_like}, so lines that name it are easily misread"),
    # the board and its cells
    "check.board-size": Message("error", "board size {size} is out of range: a board has 1 to 26 rows and 1 to 26 columns"),
    "check.board-no-cell": Message("error", "no playable cell: all {count} cells of the {dims} board are blocked"),
    "check.cell-off-board": Message("error", "unknown cell {cell!r} (the board is {dims}: a1..{last})"),
    "check.blocked-twice": Message("warning", "cell {cell!r} is blocked twice (first {first})"),
    # the initial position
    "check.setup-unknown-player": Message("error", "unknown player {name!r} in `setup` (the players are {players})"),
    "check.setup-blocked": Message("error", "cell {cell!r} is blocked, so no piece of {player!r} can be set up on it"),
    "check.setup-twice": Message("error", "cell {cell!r} is set up twice (first for {first_player!r} {first})"),
    # forward headings and directions
    "check.forward-unknown-player": Message("error", "unknown player {name!r} in `forward` (the players are {players})"),
    "check.forward-twice": Message("error", "player {name!r} is given a heading twice (first {first})"),
    "check.forward-missing": Message("error", "{what} needs every player's forward heading, but {who} {has} none"),
    "check.direction-unknown": Message("error", "no direction {word!r} on a {kind} board (it has {names})"),
    "check.direction-none": Message("error", "{words} names no direction on a {kind} board"),
    "check.direction-empty-word": Message("warning", "direction {word!r} names no direction on a {kind} board, so it adds nothing to `{words}`"),
    "check.too-many-rules": Message("error", "{count} {what}: a stage has at most {limit}"),
    "check.direction-duplicate": Message("warning", "direction {word!r} is listed twice in `{words}`"),
    "check.invalid-value": Message("error", "{what} {value!r} is not one of: {choices}"),
    # moves and their effects
    "check.move-never-applies": Message("error", "`{move}` can never apply: it needs a piece of the mover, but no piece is set up and no rule places one"),
    "check.distance-zero": Message("error", "`{move}` can never apply: the distance must be at least 1"),
    "check.distance-too-far": Message("error", "`{move}` can never apply: no two cells of the {dims} board are {distance} apart (at most {most})"),
    "check.require-capture-never": Message("error", "`require capture` can never be met: nothing written before it in this move takes a piece"),
    "check.require-capture-early": Message("warning", "`require capture` comes before `{effect}`, which it does not count"),
    "check.require-capture-twice": Message("warning", "a second `require capture` in the same move (the first is {first}); it adds nothing"),
    "check.move-shadowed": Message("warning", "`{move}` never applies: `{first}` ({where}) comes first and gives every move it gives"),
    # ends
    "check.line-too-short": Message("error", "`{condition}` holds on every position: a line has at least 1 piece"),
    "check.line-too-long": Message("error", "`{condition}` can never hold: the longest line of playable cells on the {dims} board has {longest}"),
    "check.after-zero": Message("error", "`{condition}` holds on the initial position: the game would end before the first move"),
    "check.no-pieces-at-start": Message("error", "`no-pieces` holds on the initial position: {player!r} moves first and has no piece set up"),
    "check.board-full-at-start": Message("error", "`board-full` holds on the initial position: every playable cell is set up"),
    "check.connect-same-sides": Message("warning", "both players connect `{sides}`: they race to join the same pair of sides"),
    # information lines
    "check.information-without-hidden": Message("error", "`{line}` means something only on a stage with hidden information, and this stage has no `hidden` line"),
    "check.hidden-without-refused": Message("error", "a stage with `hidden` says what happens to a try the true board refuses, and this one has no `refused` line"),
    "check.announce-twice": Message("warning", "`{line}` is written twice (first {first}); it adds nothing"),
    "check.reveal-twice": Message("warning", "`{line}` is written twice (first {first}); it adds nothing"),
    "check.random-none": Message("error", "`{line}` draws no cell"),
    "check.random-too-few-cells": Message("error", "`{line}` draws {count} of the {free} cells it lists that start empty, and the random lines before it may take {taken} of those: a draw could find too few"),
    "check.roll-dice": Message("error", "`{line}` throws dice this stage cannot: a roll is 1 to {max_dice} dice of 2 to {max_faces} faces"),
    "check.roll-too-far": Message("error", "`{line}` never throws less than {lowest}, and no straight line of the {dims} board is longer than {reach} cells: an advance could never move"),
    "check.roll-unused": Message("error", "`{line}` throws dice that no move reads: the roll would change nothing"),
    "check.advance-without-roll": Message("error", "`{line}` moves a piece as far as the roll, and this stage throws no dice"),
    "check.end-unreachable": Message("warning", "this end can never fire: the end {first} holds whenever it does and is tested first"),
}
