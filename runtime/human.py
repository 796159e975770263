"""A person as a player: a Seat (runtime/referee.py's protocol) whose moves come from a move source.

    seat = HumanSeat("human", game, TerminalSource())   # input() at the terminal
    record = play_game(game, (seat, agent_seat), seed=1, game_time=(HUMAN_TIME, 10.0))

A move source is anything with `move(turn) -> str | None`: given a Turn (the position, the legal
moves, the time left, what was wrong with the last entry) it returns a move's text, or None to
resign; it may block until the person answers. The terminal's source is here; a web page's (a
queue the page puts moves into) plugs in the same way.

The seat, not the source, decides what is legal: an entry that is not a legal move goes back to
the source with a message (`Turn.problem`), so the referee is never sent a person's typo, and a
person never loses a game to the illegal-move penalty. A person's clock is wall time (a person
has no CPU time), charged whole, including the time spent on refused entries; a person has no
analysis phase.
"""
from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ..compiler.dark import CompiledDarkGame
from ..compiler.game import CompiledGame
from ..gdl import render
from .sandbox import Answer

HUMAN = "human"  # the entrant name that seats a person (`--black human`)
HUMAN_TIME = 1800.0  # a person's default budget per game, wall seconds
SIDES = ("Black (X)", "White (O)")  # as gdl.render draws them


@dataclass(frozen=True)
class Turn:
    """What a person is asked for a move: the game, the position (its flat state), the side to
    move (0 black, 1 white) and its player's name, the legal moves as text, the seconds left on
    their clock, and what was wrong with their last entry ("" if nothing)."""

    game: CompiledGame
    state: np.ndarray
    player: int
    name: str
    legal: tuple[str, ...]
    remaining: float
    problem: str = ""

    def board(self) -> str:
        """The board with its coordinates (columns a, b, ...; rows 1, 2, ...)."""
        return render(self.game, self.state)

    def refusal(self, entry: str) -> str:
        """Why `entry` is not a move to play now ("" if it is one of the legal moves)."""
        from ..terminal import inert  # here: agents' workers import this package, and need no rich
        text = entry.strip().lower()
        if text in self.legal:
            return ""
        try:
            move = self.game.parse_move(text)
        except ValueError:
            return (f"'{inert(entry.strip())}' is not a move: moves are written like {self.legal[0]}; "
                    "? lists the legal moves")
        if str(move) in self.legal:
            return ""
        return f"{move} is not a legal move now; ? lists the legal moves"


class MoveSource(Protocol):
    def move(self, turn: Turn) -> str | None:
        """A move's text for `turn`, or None: the person resigns. May block; a source that can
        wait with a timeout may give up after `turn.remaining` seconds (the game is then lost on
        time, not resigned)."""
        ...


class HumanSeat:
    """A person in one seat of a game (runtime/referee.Seat), fed by a MoveSource."""

    def __init__(self, name: str, game: CompiledGame | CompiledDarkGame, source: MoveSource):
        # on a stage with hidden information a person is given their information state, whose
        # position is their own view: drawn, and read, with the true game's board
        self.name, self.game, self.source = name, game.truth if isinstance(game, CompiledDarkGame) else game, source

    def start_game(self, seed: int, budget: float, seat: int = 0) -> Answer:
        return Answer({"op": "game-ready"}, 0.0, 0.0)

    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        array = np.array(state, dtype=np.int32)
        array.flags.writeable = False
        turn = Turn(self.game, array, self.game.to_move(array), self.name, tuple(legal), remaining)
        started = time.monotonic()
        while True:
            try:
                entry = self.source.move(replace(turn, remaining=remaining - (time.monotonic() - started)))
            except EOFError:  # the end of their input (Ctrl-D)
                entry = None
            spent = time.monotonic() - started
            if spent > remaining:  # their clock ran out while they thought: lost on time, whatever they did then
                from ..terminal import clock
                return Answer(None, spent, spent, "timeout", f"{clock(spent)} taken, {clock(remaining)} were left")
            if entry is None:
                return Answer(None, spent, spent, "resign", "resigned")
            problem = turn.refusal(entry)
            if not problem:
                return Answer({"op": "move", "move": entry.strip().lower()}, spent, spent)
            turn = replace(turn, problem=problem)

    def end_game(self, score: int | None = None) -> tuple[str, int]:
        return "", 0


class TerminalSource:
    """A person at the terminal: the board (unless the caller prints it already, `show_board`
    False), the side to move and the clock, then a prompt; `?` or `moves` lists the legal moves,
    `resign` or the end of input (Ctrl-D) resigns. At a real terminal the prompt gives up when the
    person's clock runs out (the game is then lost on time, and they are told at once); `ask`,
    given, is called instead of reading the terminal (its answers are not timed out)."""

    def __init__(self, show_board: bool = True, ask: Callable[[str], str] | None = None,
                 say: Callable[[str], None] = print):
        self.show_board, self.ask, self.say = show_board, ask, say

    def move(self, turn: Turn) -> str | None:
        from ..terminal import clock, inert
        deadline = time.monotonic() + turn.remaining
        if turn.problem:
            self.say(turn.problem)
        elif self.show_board:
            self.say(turn.board())
        prompt = (f"{SIDES[turn.player]}, {inert(turn.name)}, {clock(turn.remaining)} left: your move "
                  "(? lists the legal moves, resign gives up): ")
        while True:
            answer = self.ask(prompt) if self.ask is not None else read_line(prompt, deadline - time.monotonic())
            if answer is None:  # the clock ran out at the prompt: the seat scores the loss on time
                self.say("\ntime is up: the game is lost on time")
                return None
            entry = answer.strip()
            if entry.lower() in ("?", "moves", "help"):
                self.say("legal moves: " + " ".join(turn.legal))
            elif entry.lower() in ("resign", "quit"):
                return None
            elif entry:
                return entry


def read_line(prompt: str, timeout: float) -> str | None:
    """A line typed at the terminal after `prompt`, or None when `timeout` seconds pass first; the
    end of input raises EOFError, as input() does. Input that is not a terminal (a pipe, a file)
    is read by input(), untimed: its lines are there, or its end."""
    stdin = sys.stdin
    if not stdin.isatty():
        return input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    fd = stdin.fileno()
    # a terminal in line mode makes its descriptor readable once a whole line is typed (or Ctrl-D)
    if not select.select([fd], [], [], max(timeout, 0.0) + 0.01)[0]:  # a hair past: the seat sees time up
        return None
    line = os.read(fd, 65536).decode(errors="replace")
    if not line:
        raise EOFError
    return line.split("\n", 1)[0]
