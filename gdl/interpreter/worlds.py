"""Worlds a player cannot tell apart: the full positions of a hidden stage consistent with everything
one player has seen (its history), for determinised search (`sample_world`) and for tests
(`worlds`: every one of them, on a small game).

A world is a position the game reaches from its start whose history, for that player, is the one
given, with that player to move. They are found by replaying the game: the player's own tries are
given by its history; the opponent's are searched, each kept only while the player's history it
would produce still begins as the given one (what the player saw of it, what it was told). A
refused try of the opponent leaves no trace the player sees unless announced, so the search tries
those too: each turn has at most as many tries as moves (gdl/interpreter/information.py), which
keeps it finite. Sampling searches in a random order and answers the first world it meets: every
consistent world can come out, not all equally often. The order is weighted by what the player
saw later (a cell it saw holding an opponent's piece draws the opponent's tries there first; a try
that leaves no trace comes late), so that the search meets a world soon on a large board; every
order keeps a chance, so every world does too.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

from ..diagnostics import LudicaError
from ..game import Move
from .information import Captured, DarkGame, DarkState, Seen, Shown, Tried
from .moves import piece

DEFAULT_BUDGET = 200_000  # tries played while searching, before giving up


class NoWorldFound(LudicaError, LookupError):
    """No world was found within the search's budget (or none exists: the history is not one the game
    can give that player)."""


def _search(game: DarkGame, history: tuple[Seen, ...], player: int, rng: random.Random | None,
            budget: int, guided: bool = True) -> Iterator[DarkState]:
    """Depth first from the start: yields each world met (in a random order of the opponent's tries
    when `rng` is given), playing at most `budget` tries."""
    left = budget
    hints = _hints(game, history, player)
    stack = [_root(game, history, player)]
    while stack:
        state = stack.pop()
        seen = game.history(state, player)
        if seen[: len(history)] != history[: len(seen)] or len(seen) > len(history):
            continue  # this line of play tells the player something it was not told
        if game.is_terminal(state):
            continue
        mover = game.to_move(state)
        if len(seen) == len(history) and mover == player:
            yield state
            continue
        if mover == player:
            entry = history[len(seen)]
            if not isinstance(entry, Tried) or entry.player != player or entry.move is None:
                continue  # the player's next entry is no try of its own: not from here
            if entry.move not in game.legal_moves(state):
                continue
            tries = [entry.move]
        else:
            tries = game.legal_moves(state)
            if rng is not None and guided:
                tries = _ordered(game, state, tries, hints, len(seen), rng)
            elif rng is not None:
                rng.shuffle(tries)
            tries.reverse()  # popped last first: the first in the order is searched first
        for move in tries:
            if left <= 0:
                raise NoWorldFound(f"no world consistent with the history found within {budget:,} tries of search "
                                   "(the budget): pass a larger budget, or search from a shorter history")
            left -= 1
            stack.append(game.apply(state, move))


# How strongly the search prefers an opponent's try (weights of a random order: every order can come).
_URGENT, _LIKELY, _NEUTRAL, _UNLIKELY = 4096.0, 64.0, 8.0, 1.0
RESTART = 2_000  # tries a search plays before it starts again in another random order


def _root(game: DarkGame, history: tuple[Seen, ...], player: int) -> DarkState:
    """Where every world of the history begins: the stage's start, or, on a stage with a random start,
    the start shown to the player first (its history's first entry)."""
    if not game.stage.random_start:
        return game.initial_state()
    first = history[0] if history else None
    if not isinstance(first, Shown) or first.player != player:
        raise NoWorldFound(f"a history of a stage with a random start begins with the start shown to player {player}")
    return game.started(first.cells)


def _hints(game: DarkGame, history: tuple[Seen, ...], player: int) -> dict[int, int]:
    """For each cell, where in the player's history it first saw an opponent's piece there (-1: it
    saw the cell only empty or its own): the opponent's tries that reach it are likely, the more so
    the sooner; those reaching a cell it saw otherwise, unlikely."""
    theirs = piece(1 - player)
    hints: dict[int, int] = {}
    for at, entry in enumerate(history):
        if isinstance(entry, Captured):
            continue  # how many a try took: no cell
        cells = entry.seen if isinstance(entry, Tried) else tuple(enumerate(entry.cells))
        for i, value in cells:
            if value == theirs and hints.get(i, -1) < 0:
                hints[i] = at
            else:
                hints.setdefault(i, -1)
    return hints


def _ordered(game: DarkGame, state: DarkState, tries: list[Move], hints: dict[int, int], now: int,
             rng: random.Random) -> list[Move]:
    """The opponent's tries in a weighted random order (Efraimidis and Spirakis: key u^(1/w)), `now`
    entries of the player's history played: a try the truth would refuse, which the player never
    sees, weighs least."""
    true_moves = game.base.available_moves(state.truth)
    cols = game.cols

    needed = [at for move in tries if move.dst is not None and move in true_moves
              and (at := hints.get(move.dst[0] * cols + move.dst[1], -1)) >= now]
    first = min(needed, default=-1)  # the opponent's piece the player will see soonest: placed first

    def weight(move: Move) -> float:
        if move.dst is None or move not in true_moves:
            return _UNLIKELY
        at = hints.get(move.dst[0] * cols + move.dst[1])
        if at is None:
            return _NEUTRAL
        return _UNLIKELY if at < 0 else _URGENT if at == first else _LIKELY

    return sorted(tries, key=lambda m: -math.log(1.0 - rng.random()) / weight(m))


def sample_world(game: DarkGame, history: tuple[Seen, ...], player: int, rng: random.Random,
                 budget: int = DEFAULT_BUDGET, guided: bool = True, between: Callable[[], None] | None = None
                 ) -> DarkState:
    """A full position consistent with `history`, `player`'s history (DarkGame.history), with
    `player` to move: what a determinised search plays from. Every consistent world can be drawn.
    NoWorldFound if none is found within `budget` tries of search. `guided` False: the opponent's
    tries in a uniform random order (slower; tests check with it that the search can reach every world).
    `between` is called between restarts (every RESTART tries): the rules oracle stops a search there
    whose asker has gone, by raising."""
    _check(history, player)
    left = budget
    while left > 0:  # a search that goes wrong early is searched again in another order (restarts)
        if between is not None and left < budget:
            between()
        attempt = min(RESTART, left)
        left -= attempt
        try:
            for world in _search(game, tuple(history), player, rng, attempt, guided):
                return world
        except NoWorldFound:
            continue
        raise NoWorldFound("no position of this game gives the player that history: it is not one the game can give")
    raise NoWorldFound(f"no world consistent with the history found within {budget:,} tries of search (the budget, "
                       f"in restarts of {RESTART:,}): pass a larger budget, or search from a shorter history")


def worlds(game: DarkGame, history: tuple[Seen, ...], player: int, budget: int = DEFAULT_BUDGET) -> list[DarkState]:
    """Every position consistent with `history` with `player` to move (distinct), on a game small
    enough to search whole within `budget` tries."""
    _check(history, player)
    found: dict[DarkState, None] = {}
    for world in _search(game, tuple(history), player, None, budget):
        found.setdefault(world)
    return list(found)


def _check(history: tuple[Seen, ...], player: int) -> None:
    if player not in (0, 1):
        raise ValueError(f"player: 0 or 1, not {player!r}")
    for entry in history:
        if not isinstance(entry, Tried | Shown | Captured):
            raise TypeError(f"a history holds Tried, Shown and Captured entries, not {type(entry).__name__}")
