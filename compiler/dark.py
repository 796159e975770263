"""A stage with hidden information, compiled: its true game's kernels, random games of tries inside
the kernel (compiler/information.py, the same games as the reference for a seed), and the game the
referee plays, a try at a time.

The referee's steps are the reference's (gdl/interpreter/information.py's DarkGame: its states are
DarkState values), not a second copy of the rules of information: a game has a few hundred tries
at most, where a search needs millions of steps. Searches run on the true game's kernels: an agent
is given its information state (compiler/knowledge.py), draws worlds from it
(gdl/interpreter/worlds.py), and searches those with the base stage's compiled game.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..gdl.ast import Stage
from ..gdl.ending import Ending
from ..gdl.game import Move
from ..gdl.interpreter.information import DarkGame, DarkState
from . import codes as K
from . import information as dark_kernels
from . import knowledge
from .game import Playouts, samples_per_seat
from .info import GameInfo
from .layout import array_of
from .program import information


class CompiledDarkGame:
    """A hidden stage's kernels: its true game compiled (the stage without its information lines),
    and the tries played on top of it."""

    def __init__(self, stage: Stage):
        if stage.hidden is None:
            raise ValueError(f"{stage.name!r} hides nothing: compile it with compiler.compile")
        self.stage = stage
        from . import compile as compile_stage  # (the package's: the true game is shared with its own compile)

        self.truth = compile_stage(stage.without_information())  # checks the stage, lowers its base
        self.reference = DarkGame(stage)  # the referee's steps (it refuses what is not played: dice)
        self.name, self.players = stage.name, self.truth.players
        self.rows, self.cols, self.n_cells = self.truth.rows, self.truth.cols, self.truth.n_cells
        self.announced = tuple(type(a) for a in stage.announce)  # an observation's announcement planes, in order
        self._information = information(stage)
        program = self.truth.program
        size = int(program.game[K.G_CELLS])
        # Room for each player's refused tries: one per cell where every move is a placement (a refused
        # cell is seen taken and never tried again), else one per move code.
        self._capacity = size if self.truth.placements_only else size * (size + 1)

    # --- the referee's game: the Game contract on DarkState, a try at a time --------------------------

    def initial_state(self) -> DarkState:
        return self.reference.initial_state()

    def legal_moves(self, state: DarkState) -> list[Move]:
        """The tries of the player to move (a forced pass when the truth gives one)."""
        return self.reference.legal_moves(state)

    def apply(self, state: DarkState, move: Move) -> DarkState:
        return self.reference.apply(state, move)

    def apply_counted(self, state: DarkState, move: Move) -> tuple[DarkState, int]:
        """(the position after the try `move`, the pieces it took: 0 if the truth refused it)."""
        return self.reference.apply_counted(state, move)

    def refused(self, state: DarkState) -> bool:
        """Whether the last try was refused (the truth did not allow it)."""
        return self.reference.refused(state)

    def to_move(self, state: DarkState) -> int:
        return self.reference.to_move(state)

    def is_terminal(self, state: DarkState) -> bool:
        return self.reference.is_terminal(state)

    def winner(self, state: DarkState) -> int | None:
        return self.reference.winner(state)

    def returns(self, state: DarkState) -> tuple[float, float]:
        return self.reference.returns(state)

    def board(self, state: DarkState) -> np.ndarray:
        """The true board: rows × cols ints (-1 blocked, 0 empty, 1 and 2 the players' pieces)."""
        return self.reference.board(state)

    def ending(self, state: DarkState) -> Ending:
        """Why the true position ended the game (gdl/ending.py); ValueError if it did not."""
        return self.truth.ending(self.position(state))

    def parse_move(self, text: str) -> Move:
        return self.truth.parse_move(text)

    @property
    def info(self) -> GameInfo:
        """The true game's information (its length bound counts moves, not tries)."""
        return self.truth.info

    def neighbours(self) -> np.ndarray:
        """The board's neighbour table (CompiledGame.neighbours): the true game's board."""
        return self.truth.neighbours()

    def position(self, state: DarkState) -> np.ndarray:
        """The true position, as the true game's kernels hold it (read-only): the referee's alone."""
        return array_of(state.truth)

    def information(self, state: DarkState, player: int) -> np.ndarray:
        """What `player` knows (compiler/knowledge.py): the only state an agent of that seat is given."""
        return knowledge.encode(self.reference.view(state, player), self.reference.history(state, player), player,
                                self.to_move(state), self.cols)

    def view_board(self, state: DarkState, player: int) -> np.ndarray:
        """The board as `player` last saw it: rows × cols ints, as `board`."""
        return np.array(self.reference.view(state, player), dtype=int).reshape(self.rows, self.cols)

    def forget_stage(self) -> None:
        """Let go of the stage's AST, as CompiledGame.forget_stage: the kernels play on. The reference
        game of tries keeps it, for the worlds' search (sample_world): under --isolate-rules that runs
        in the rules oracle, out of the agent's process."""
        self.truth.forget_stage()
        del self.stage

    def true_start(self) -> np.ndarray:
        """The true initial position (public: both views start as it), as the kernels hold it."""
        return self.truth.initial_state()

    def start(self, seed: int, number: int = 0) -> DarkState:
        """The start of game `number` of `seed` (the reference's: drawn, on a stage with a random start)."""
        return self.reference.start(seed, number)

    def thrown(self, state: DarkState, seed: int, number: int = 0) -> DarkState:
        """`state` itself: a hidden stage throws no dice (refused by name where it is compiled)."""
        return state

    def playouts(self, n: int, seed: int = 0, threads: int = 1, max_tries: int = 100_000,
                 first_game: int = 0, generic: bool = False) -> Playouts:
        """`n` random games of tries from the initial position, each try drawn uniformly among the
        tries of the player to move. `lengths` counts tries (refused ones included); the same seed
        gives the same games whatever the number of threads, as the reference plays them. A family
        of compiler/families/ with `dark_playouts` plays them faster; `generic` forces
        compiler/information.py's kernels (to compare the two)."""
        lengths, winners = np.zeros(n, np.int32), np.zeros(n, np.int32)
        starts = self._starts()
        flat, masks = self.truth._flat, self.truth._masks

        family = self.truth._family if self.truth._family is not None and not generic else None
        fast = getattr(family, "dark_playouts", None)

        def run(a: int, b: int) -> None:
            if fast is not None and fast(self.truth._tables, starts, first_game + a, seed, max_tries, self._information,
                                         lengths[a:b], winners[a:b]):
                return
            dark_kernels.dark_playouts(starts, first_game + a, seed, max_tries, flat, masks, self._information,
                                       self._capacity, lengths[a:b], winners[a:b])

        if threads <= 1 or n < 2 * threads:
            run(0, n)
        else:
            bounds = np.linspace(0, n, threads + 1).astype(int)
            with ThreadPoolExecutor(threads) as pool:  # the kernels release the GIL
                for job in [pool.submit(run, int(a), int(b)) for a, b in zip(bounds, bounds[1:])]:
                    job.result()
        self._check_codes(winners)
        returns = np.zeros((n, 2))
        returns[winners == 0] = (1.0, -1.0)
        returns[winners == 1] = (-1.0, 1.0)
        return Playouts(lengths, returns, int((winners == K.CUT).sum()))

    def games(self, n: int, seed: int = 0, policies: tuple[str, str] = ("random", "random"),
              max_plies: int = 100_000, first_game: int = 0, samples: int | tuple[int, int] = 32) -> DarkGames:
        """`n` games of tries from the initial position between two policies, "random" (each try
        uniform: random against random plays `playouts`' games) or "mc" (flat Monte-Carlo on the
        player's own view, as if it were the truth: `samples` random games of the base a move,
        shared among the tries, one count for both seats or one each), inside the kernel
        (compiler/information.py dark_games). The sampler's skill test on a hidden stage: what a
        player makes of what it is told. `max_plies` bounds the tries of a game (cut: a draw)."""
        names = dark_kernels.DARK_POLICY_NAMES
        if len(policies) != 2 or any(p not in names for p in policies):
            raise ValueError(f"two policies among {names}, not {policies!r}")
        seats = np.array([names.index(p) for p in policies], np.int32)
        lengths, winners = np.zeros(n, np.int32), np.zeros(n, np.int32)
        dark_kernels.dark_games(self._starts(), first_game, seed, max_plies, self.truth._flat, self.truth._masks,
                                self._information, self._capacity, seats, samples_per_seat(samples), lengths, winners)
        self._check_codes(winners)
        return DarkGames(lengths, winners)

    def _starts(self) -> np.ndarray:
        """int32[1, n_cells + 4]: a batch's start, the true initial position."""
        return np.ascontiguousarray(self.true_start()[None, :])

    def _check_codes(self, winners: np.ndarray) -> None:
        """A code without a branch met in the kernels is a compiler bug: said, never a result."""
        if (winners == K.BAD_CODE).any():
            raise RuntimeError(f"the dark kernels met a code without a branch playing {self.name!r} "
                               "(compiler/information.py)")


@dataclass(frozen=True)
class DarkGames:
    """Games of tries between policies (CompiledDarkGame.games): `lengths` (tries) and `winners` (0,
    1, -1 a draw, -2 cut), one entry per game, as Games holds them."""

    lengths: np.ndarray
    winners: np.ndarray
