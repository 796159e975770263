"""What an agent sees of a stage: `StageView` (what the Arena shows, not the rules) and `Rules`
(the only window on the rules: simulate, never read), declared as a protocol and implemented here
in-process by `RulesApi` (and by the rules oracle's client, runtime/oracle/client.py).

States are opaque values (read-only int32 arrays of the compiled game) that an agent may keep,
copy and pass back; moves are `Move` values (hashable; `str(move)` is `d3`, `b2-b3` or `pass`),
and every method that takes a move also takes its text.
"""
from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..compiler import CompiledDarkGame, CompiledGame, PlayedGame, Playouts
from ..compiler import codes as K
from ..compiler import knowledge
from ..compiler.layout import array_of, as_state
from ..gdl.interpreter.information import announced, observation
from ..gdl.interpreter.worlds import sample_world
from ..gdl.game import Move
from . import metrics


@dataclass(frozen=True)
class StageView:
    """The stage as the Arena shows it to a system under test.

    name, rows, cols; shape: "square" or "hex"; blocked: the blocked cells as (row, col), row 0 at
    the top (of a stage that blocks cells at random, game 0 of seed 0's: each game's are in its states); players: names in turn order (players[0] is black, the first seat); action_bound:
    every action (`legal_actions`) but the pass (-1) lies in range(action_bound), for an agent that
    keeps a value per action (the compiled game's `info`; the rest of its information is the
    rules', which an agent is not told); initial_state; legal_first_moves; description: the
    stage's .gdl text in GGP mode (rules revealed), else None.
    """

    name: str
    rows: int
    cols: int
    shape: str
    blocked: tuple[tuple[int, int], ...]
    players: tuple[str, ...]
    action_bound: int
    initial_state: Any
    legal_first_moves: tuple[Move, ...]
    description: str | None = None
    hidden: bool = False  # whether the stage hides information: states are then information states




def stage_view(game: PlayedGame, description: str | None = None) -> StageView:
    """What an agent is shown of a stage: on a hidden one, its initial state is the first player's
    information state at the start (compiler/knowledge.py), public as the start is."""
    start, info = game.initial_state(), game.info
    board = game.board(start)
    return StageView(name=game.name, rows=info.rows, cols=info.cols,
                     shape="hex" if info.board_kind == "hex" else "square",
                     blocked=tuple((int(r), int(c)) for r, c in zip(*np.nonzero(board < 0))),
                     players=info.players, action_bound=info.action_bound, initial_state=game.information(start, 0),
                     legal_first_moves=tuple(game.legal_moves(start)), description=description,
                     hidden=isinstance(game, CompiledDarkGame))


def seat(player) -> int:
    """A player's index, 0 or 1 (ValueError otherwise; TypeError for what is not an integer)."""
    player = operator.index(player)
    if player not in (0, 1):
        raise ValueError(f"player {player}: the players are 0 (who moves first) and 1")
    return player


def count_and_seed(n, seed) -> tuple[int, int]:
    """Integers, and a seed of 64 bits (the kernels' generators take one)."""
    n, seed = operator.index(n), operator.index(seed)
    if not -1 << 63 <= seed < 1 << 63:
        raise ValueError(f"seed {seed}: a seed is an integer of 64 bits")
    return n, seed


@runtime_checkable
class Rules(Protocol):
    """The agents' API, declared: simulation of the stage's true rules, for the agent's analysis
    and play. Implemented in-process by `RulesApi` (over the compiled game) and, with
    --isolate-rules, by runtime/oracle's `OracleRules` (every call a request to a rules oracle):
    same methods, same signatures, same values, same errors; anything else that serves agents the
    rules (a line protocol for programs in other languages) answers to this too."""

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        """The moves of the side to move, in the stage's order (a forced pass is the one move `pass`)."""
        ...

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        """(the state after `move`, the number of pieces it captured or flipped). ValueError if illegal."""
        ...

    def legal_actions(self, state: np.ndarray) -> list[int]:
        """The legal moves as integers, in the order of legal_moves (cheaper than Move objects, for a
        search from Python); move_of and action_of translate."""
        ...

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        """(the state after the legal action, the number of pieces it captured or flipped)."""
        ...

    def move_of(self, action: int) -> Move:
        """The Move of an action (ValueError for what is not an action of this game)."""
        ...

    def action_of(self, move: Move | str) -> int:
        """The action of a move (ValueError for a cell off the board)."""
        ...

    def to_move(self, state: np.ndarray) -> int:
        """Index in stage.players of the side to move."""
        ...

    def is_terminal(self, state: np.ndarray) -> bool:
        """Whether the game is over."""
        ...

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        """Per player: +1 win, -1 loss, 0 draw (or game not over)."""
        ...

    def board(self, state: np.ndarray) -> np.ndarray:
        """rows × cols int array: 0 empty, 1.. the players' pieces, -1 blocked."""
        ...

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        """The Arena's evaluateBoard: piece, mobility, corner, edge and total (runtime/metrics.py)."""
        ...

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
        """`n` random games from `state` (None: the initial state) inside the kernel: `.lengths` and
        `.returns` (n × players)."""
        ...

    def parse_move(self, text: str) -> Move:
        """The move written `text` (`d3`, `b2-b3`, `pass`)."""
        ...

    def observe(self, state: np.ndarray) -> np.ndarray:
        """What the player of an information state sees: int32[4 + A, rows, cols] (planes: the first
        and the second player's pieces as seen, cells seen empty, blocked cells, then one per
        announcement). Of a state of a perfect-information stage: its board, A = 0."""
        ...

    def sample_world(self, state: np.ndarray, seed: int = 0, budget: int = 20_000) -> np.ndarray:
        """A true position consistent with everything the player of an information state has seen,
        that player to move, drawn with `seed`: a state of the true game, for a determinised search
        (every method takes it). LookupError if none is found within `budget` tries of search. Of a
        state of a perfect-information stage: the state itself."""
        ...


class RulesApi(Rules):
    """The agents' API (`Rules`) in the agent's own process, over the compiled game: a call is a
    kernel call."""

    def __init__(self, game: CompiledGame):
        self._game = game
        self._shape = metrics.shape_classes(game)

    def _move(self, move: Move | str) -> Move:
        return move if isinstance(move, Move) else self._game.parse_move(str(move))

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        return self._game.legal_moves(state)

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        return self._game.apply_counted(state, self._move(move))

    def legal_actions(self, state: np.ndarray) -> list[int]:
        return self._game.legal_actions(state)

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        return self._game.apply_action_counted(state, action)

    def move_of(self, action: int) -> Move:
        return self._game.move_of(action)

    def action_of(self, move: Move | str) -> int:
        return self._game.action_of(self._move(move))

    def to_move(self, state: np.ndarray) -> int:
        return self._game.to_move(state)

    def is_terminal(self, state: np.ndarray) -> bool:
        return self._game.is_terminal(state)

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        return self._game.returns(state)

    def board(self, state: np.ndarray) -> np.ndarray:
        return self._game.board(state)

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        return metrics.evaluate(self._game, as_state(state), seat(player), self._shape).as_dict()

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
        n, seed = count_and_seed(n, seed)
        return self._game.playouts(n, seed=seed, state=state)

    def parse_move(self, text: str) -> Move:
        return self._game.parse_move(text)

    def position_of(self, state: np.ndarray) -> np.ndarray:
        """The position a state holds (of an information state, the player's view; not of the Rules
        protocol: what the rules oracle answers from)."""
        return as_state(state)

    def observe(self, state: np.ndarray) -> np.ndarray:
        game = self._game
        return observation(tuple(game.board(as_state(state)).ravel().tolist()), game.rows, game.cols, [])

    def sample_world(self, state: np.ndarray, seed: int = 0, budget: int = 20_000) -> np.ndarray:
        count_and_seed(budget, seed)
        return as_state(state)


MAX_WORLD_BUDGET = 200_000  # tries of search one sample_world may ask for (on dark Hex 11x11, about 2 minutes)


class DarkRulesApi(RulesApi):
    """The agents' API on a stage with hidden information. An agent is given its information state
    (compiler/knowledge.py): its view as a position, then its history. Every method reads a position
    (of an information state, its view: an agent written for perfect information plays as if its view
    were the truth); `legal_moves` of an information state gives its tries (the moves of the view
    but those refused since the player's last played try); `sample_world` draws a true position
    consistent with the history, whose every continuation the true game's kernels play."""

    def __init__(self, game: CompiledDarkGame):
        super().__init__(game.truth)
        self._dark = game.reference  # the worlds' search: the reference game of tries (it holds the rules)
        self._size, self._cols, self._rows = game.n_cells, game.cols, game.rows
        self._announced = game.announced

    def position_of(self, state: np.ndarray) -> np.ndarray:
        state = as_state(state)
        return knowledge.position(state, self._size) if knowledge.is_information(state, self._size) else state

    def refused_now(self, state: np.ndarray) -> set[Move]:
        """The moves refused to the player of an information state since its last played try (not of
        the Rules protocol: the model's prompt tells them)."""
        state = as_state(state)
        if not knowledge.is_information(state, self._size):
            return set()
        return knowledge.refused_now(*knowledge.decode(state, self._size, self._cols))

    def _tries(self, state: np.ndarray) -> list[Move]:
        """An information state's tries, as the referee's: the moves of the view (its ends unjudged:
        the truth's to judge), less those refused since the player's last played try."""
        player, history = knowledge.decode(state, self._size, self._cols)
        view = tuple(int(v) for v in state[: self._size])
        to_move = int(state[self._size + K.TO_MOVE])
        return list(self._dark.tries_in_view(view, to_move, knowledge.refused_now(player, history)))

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        state = as_state(state)
        if knowledge.is_information(state, self._size):
            return self._tries(state)
        return self._game.legal_moves(state)

    def legal_actions(self, state: np.ndarray) -> list[int]:
        state = as_state(state)
        if knowledge.is_information(state, self._size):
            return [self._game.action_of(m) for m in self._tries(state)]
        return self._game.legal_actions(state)

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        return super().apply(self.position_of(state), move)

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        return super().apply_action(self.position_of(state), action)

    def to_move(self, state: np.ndarray) -> int:
        return super().to_move(self.position_of(state))

    def is_terminal(self, state: np.ndarray) -> bool:
        return super().is_terminal(self.position_of(state))

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        return super().returns(self.position_of(state))

    def board(self, state: np.ndarray) -> np.ndarray:
        return super().board(self.position_of(state))

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        return super().evaluate(self.position_of(state), player)

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
        return super().playouts(None if state is None else self.position_of(state), n, seed)

    def observe(self, state: np.ndarray) -> np.ndarray:
        state = as_state(state)
        if not knowledge.is_information(state, self._size):
            return super().observe(state)
        _, history = knowledge.decode(state, self._size, self._cols)
        view = tuple(state[: self._size].tolist())
        return observation(view, self._rows, self._cols, announced(self._announced, history))

    def sample_world(self, state: np.ndarray, seed: int = 0, budget: int = 20_000) -> np.ndarray:
        return self.world(state, seed, budget)

    def world(self, state: np.ndarray, seed: int, budget: int, between: Callable[[], None] | None = None) -> np.ndarray:
        """sample_world, calling `between` between the search's restarts (the rules oracle's way to
        stop a search whose asker has gone)."""
        budget, seed = count_and_seed(budget, seed)
        if not 1 <= budget <= MAX_WORLD_BUDGET:
            raise ValueError(f"budget {budget}: a world's search plays 1 to {MAX_WORLD_BUDGET:,} tries")
        state = as_state(state)
        if not knowledge.is_information(state, self._size):
            return state  # a true position already: the only world it is
        player, history = knowledge.decode(state, self._size, self._cols)
        world = sample_world(self._dark, history, player, random.Random(seed), budget, between=between)
        return array_of(world.truth)


def rules_api(game: PlayedGame) -> RulesApi:
    """The agents' API over a game: DarkRulesApi on a stage with hidden information."""
    if isinstance(game, CompiledDarkGame):
        return DarkRulesApi(game)
    assert isinstance(game, CompiledGame)
    return RulesApi(game)


def compiled(text: str, reveal: bool) -> tuple[PlayedGame, StageView]:
    """A stage's text compiled, its kernels warmed (loaded before a lock-down, see `warm`), and
    the view an agent gets (the text too in GGP mode, `reveal`): what a worker, or its rules
    oracle, does before it locks itself down."""
    from ..compiler import playable
    from ..gdl import loads

    game = playable(loads(text))
    view = stage_view(game, text if reveal else None)
    warm(rules_api(game), view.initial_state)
    return game, view


def warm(api: RulesApi, start) -> None:
    """Call every API operation once, on read-only states (as the API gives) and on writeable
    copies (numba compiles each kind apart), so no kernel is compiled after the lockdown."""
    for state in (start, start.copy()):
        moves = api.legal_moves(state)
        if moves:
            api.apply(state, moves[0])
        api.is_terminal(state), api.returns(state), api.board(state), api.to_move(state)
        api.evaluate(state, 0)
        api.playouts(state, 2, seed=0)
        api.observe(state)
