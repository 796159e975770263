"""The reference interpreter: a Game (see ../game.py) that runs a stage's AST directly.

Slow and plain on purpose: it is the oracle the compiled kernels must agree with, move for move.
Each rule concept lives in its own module (topology, moves, effects, turns, ends); this module
only strings them together.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from collections.abc import Mapping

import random

import numpy as np

from ..ast import Connect, Directions, End, ReachFarRow, Stage, expand
from ..diagnostics import LudicaError
from ..game import PASS, Move
from . import chance, ends
from .effects import apply_effects
from .moves import EMPTY, arrive, candidates, piece
from .topology import Topology
from .turns import next_to_move, passes

if TYPE_CHECKING:
    from .information import DarkGame

# Positions remembered per game (their moves and outcome). Transpositions make perft and
# searches much faster; the bound keeps memory at tens of MB on a 10x10 board.
_CACHE_SIZE = 8192


@dataclass(frozen=True)
class State:
    """A position: a value, never changed.

    `cells` is the board row-major (-1 blocked, 0 empty, 1 first player's piece, 2 second's);
    `to_move` the side to move (0 or 1); `mover` the side that made the last move or pass (the
    last player in turn order before the first move); `ply` the moves and passes played; `roll`
    the dice the side to move threw for this turn (0 on a stage without dice).
    """

    cells: tuple[int, ...]
    to_move: int
    mover: int
    ply: int = 0
    roll: int = 0


@dataclass(frozen=True)
class Outcome:
    """What the end rules say of a position: whether the game is `over` and its `winner` (0, 1, or
    None for a draw or a game going on), the `end` rule that decided (None: none held, and an
    ended game's side to move had no move at all) and the cells that show it held (`shown`,
    row-major indices: gdl/interpreter/ends.py's witness)."""

    over: bool
    winner: int | None = None
    end: End | None = None
    shown: tuple[int, ...] = ()


class ChanceNotPlayed(LudicaError, ValueError):
    """Chance the engines do not play yet (its language lines are in place: issue 33)."""

    def __init__(self, name: str, what: str):
        self.name, self.what = name, what
        super().__init__(f"{name!r}: {what} is not played by the engines yet; leave it out to play the stage")

    def __reduce__(self):  # rebuilt from its fields when it crosses processes
        return ChanceNotPlayed, (self.name, self.what)


class ReferenceGame:
    """A stage, played by reading its AST (the Game contract of gdl/game.py)."""

    def __init__(self, stage: Stage):
        self.stage = stage
        self.topology = Topology(stage)
        self.rows: int = self.topology.rows
        self.cols: int = self.topology.cols
        self.players: tuple[str, ...] = stage.player_names
        if len(self.players) != 2:
            raise ValueError(f"a stage has two players, not {len(self.players)}: {' '.join(self.players)}")
        self._check_rules()
        self._fixed = self._setup()
        self._random = chance.lines(stage)
        # The dice: every roll a turn may throw (one value, 0, without dice), and the game's own
        # throws for `apply`, a search's (the referee sets each ply's roll from the seed: with_roll).
        roll = stage.roll
        self._rolls = (0,) if roll is None else tuple(roll.totals)
        self._dice = random.Random(0)
        self._initial = self.start(0)
        # Per-instance memos keyed on values (an lru_cache on the methods would keep games alive).
        self._plays = lru_cache(maxsize=_CACHE_SIZE)(self._compute_plays)
        self._outcome = lru_cache(maxsize=_CACHE_SIZE)(self._compute_outcome)

    # --- setup --------------------------------------------------------------------------------

    def _check_rules(self) -> None:
        """Resolve, for both players, everything that depends on the player, so that a stage the
        interpreter cannot run fails here with a ValueError rather than in the middle of a game."""
        topo = self.topology
        for player in (0, 1):
            for rule in self.stage.moves:
                for node in (rule.kind, *rule.effects):
                    directions = getattr(node, "directions", None)
                    if isinstance(directions, Directions):
                        topo.resolve(directions, player)
            for end in self.stage.ends:
                if isinstance(end.condition, ReachFarRow):
                    topo.far_row(player)
                if isinstance(end.condition, Connect):
                    if len(end.condition.sides) != 2:
                        raise ValueError("`connect` names two pairs of sides, the first player's then the second's")
                    topo.sides(end.condition.sides[player])

    def _setup(self) -> State:
        """Blocked cells first, then each `setup` statement in order."""
        cells = [EMPTY] * self.topology.size
        for i in self.topology.blocked:
            cells[i] = -1
        for setup in self.stage.setup:
            if setup.player not in self.players:
                raise ValueError(f"setup names {setup.player!r}, which is not a player ({', '.join(self.players)})")
            player = self.players.index(setup.player)
            for cell in expand(setup.cells):
                self.topology.check_on_board(cell.row, cell.col, f"setup cell {cell.name}")
                i = self.topology.index(cell.row, cell.col)
                if i in self.topology.blocked:
                    raise ValueError(f"setup cell {cell.name} is blocked")
                cells[i] = piece(player)
        return State(tuple(cells), to_move=0, mover=1, ply=0)

    # --- moves --------------------------------------------------------------------------------

    def _compute_plays(self, cells: tuple[int, ...], player: int, roll: int = 0) -> Mapping[Move, tuple[tuple[int, ...], int]]:
        """Every move `player` has on `cells` under `roll`, in the legal order, with the cells after
        it and its capture count. A move two rules allow is played by the first of them."""
        found: dict[Move, tuple[tuple[int, ...], int]] = {}
        for rule in self.stage.moves:
            for src, dst in candidates(rule.kind, self.topology, cells, player, roll):
                move = Move(None if src is None else self.topology.square(src), self.topology.square(dst))
                if move in found:
                    continue
                board = list(cells)
                arrived = arrive(rule.kind, board, player, src, dst)
                taken = apply_effects(rule.effects, self.topology, board, player, dst, arrived)
                if taken is not None:  # None: an effect made the move illegal (`require capture`)
                    found[move] = (tuple(board), taken)
        # Placements by cell, then piece moves by origin then destination, all row-major.
        order = sorted(found, key=lambda m: (m.src is not None, m.src or (0, 0), m.dst))
        return MappingProxyType({m: found[m] for m in order})  # read-only: it is memoised

    def available_moves(self, state: State) -> Mapping[Move, tuple[tuple[int, ...], int]]:
        """The side to move's moves as if no end rule applied: its plays under its roll, else a
        forced pass if the stage has `pass forced` and the other side could move (under some roll:
        its own is not thrown yet); else none."""
        plays = self._plays(state.cells, state.to_move, state.roll)
        if plays or self.stage.pass_rule is None:
            return plays
        other = 1 - state.to_move
        if passes(self.stage.pass_rule, any(self._plays(state.cells, other, r) for r in self._rolls)):
            return MappingProxyType({PASS: (state.cells, 0)})
        return MappingProxyType({})

    def legal_moves(self, state: State) -> list[Move]:
        if self.is_terminal(state):
            return []
        return list(self.available_moves(state))

    def apply_counted(self, state: State, move: Move) -> tuple[State, int]:
        """The position after `move` and the number of pieces it took."""
        moves = {} if self.is_terminal(state) else self.available_moves(state)
        if move not in moves:
            legal = " ".join(map(str, moves)) if moves else "none, the game is over"
            raise ValueError(f"illegal move {str(move)!r}: legal moves are {legal}")
        cells, taken = moves[move]
        mover = state.to_move
        side = 1 - mover if move.is_pass else next_to_move(self.stage.turn, cells, mover, taken)
        return State(cells, to_move=side, mover=mover, ply=state.ply + 1,
                     roll=chance.throw(self.stage.roll, self._dice)), taken

    def thrown(self, state: State, seed: int, number: int = 0) -> State:
        """`state` with the referee's roll for its ply, of game `number` of `seed` (chance.rolled: a
        resumed or replayed game throws the same); `state` itself on a stage without dice."""
        if self.stage.roll is None:
            return state
        return self.with_roll(state, chance.rolled(self.stage.roll, seed, number, state.ply))

    def with_roll(self, state: State, roll: int) -> State:
        """`state` with the side to move's roll set (the referee's, drawn from the game's seed)."""
        if roll not in self._rolls:
            raise ValueError(f"a roll of {roll} is not one of this stage's: {self._rolls[0]} to {self._rolls[-1]}")
        return dataclasses.replace(state, roll=roll)

    def apply(self, state: State, move: Move) -> State:
        return self.apply_counted(state, move)[0]

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    # --- positions ----------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The start of game 0 of seed 0 (a stage with a random start draws each game's: `start`)."""
        return self._initial

    def start(self, seed: int, number: int = 0) -> State:
        """The start of game `number` of `seed`: the fixed start with the random lines' cells drawn
        and the first roll thrown (gdl/interpreter/chance.py); the fixed start itself on a stage
        without chance."""
        if not self.stage.chance:
            return self._fixed
        return State(chance.drawn(self._fixed.cells, self._random, seed, number), to_move=0, mover=1, ply=0,
                     roll=chance.rolled(self.stage.roll, seed, number, 0))

    def to_move(self, state: State) -> int:
        return state.to_move

    def _compute_outcome(self, state: State) -> Outcome:
        """The first end rule that holds decides; with none holding, a side left without any move
        (not even a pass) ends the game in a draw."""
        for end in self.stage.ends:
            shown = ends.witness(end.condition, self, state)
            if shown is not None:
                return Outcome(True, ends.winner(end.result, self, state), end, shown)
        return Outcome(not self.available_moves(state))

    def outcome(self, state: State) -> Outcome:
        """Whether the position ends the game, who won, and by which end rule (gdl/ending.py says it)."""
        return self._outcome(state)

    def is_terminal(self, state: State) -> bool:
        return self._outcome(state).over

    def winner(self, state: State) -> int | None:
        """0 or 1; None for a draw or a game still going."""
        return self._outcome(state).winner

    def returns(self, state: State) -> tuple[float, float]:
        won = self._outcome(state).winner
        if won is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if won == 0 else (-1.0, 1.0)

    def board(self, state: State) -> np.ndarray:
        """rows×cols ints: 0 empty, 1 first player's piece, 2 second's, -1 blocked."""
        return np.array(state.cells, dtype=int).reshape(self.rows, self.cols)


def reference(stage: Stage) -> ReferenceGame | DarkGame:
    """The reference interpreter of a stage: a DarkGame (gdl/interpreter/information.py) for a stage
    with hidden information, played as tries on its true game; else a ReferenceGame."""
    if stage.hidden is not None or stage.refused is not None or stage.announce or stage.reveal:
        from .information import DarkGame  # it builds on this module
        return DarkGame(stage)
    return ReferenceGame(stage)
