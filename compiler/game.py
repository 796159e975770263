"""The compiled Game: the contract of gdl/game.py, backed by the numba kernels, plus what only a
fast engine offers (in-kernel random playouts, from one state or many, on several threads; perft).

States are int32 numpy arrays (the layout is in codes.py), marked read-only: they are values
that agents may keep and pass back; `state.tobytes()` is a hashable key.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..gdl.ast import Stage
from ..gdl.checks import check_stage
from ..gdl.diagnostics import InternalError, StageError
from ..gdl.game import PASS, Move
from ..gdl.printer import format
from . import calls, families
from . import codes as K
from . import playouts as cell_kernels
from .program import build, pack


@dataclass(frozen=True)
class Playouts:
    """Results of random playouts: `lengths` int32 (plies per game) and `returns` float64 with a
    last axis of n_players (+1 win, -1 loss, 0 draw; 0 for a game cut at max_plies, counted in
    `cut`)."""

    lengths: np.ndarray
    returns: np.ndarray
    cut: int


class CompiledGame:
    """A stage compiled to kernels. Same moves, same order, same states as gdl.reference(stage)."""

    def __init__(self, stage: Stage):
        problems = check_stage(stage)
        if any(d.is_error for d in problems):  # the kernels trust their tables: refuse a bad stage here
            raise StageError(problems, format(stage) if _printable(stage) else None, stage.name or None)
        self.stage = stage
        self.players: tuple[str, ...] = stage.player_names
        self.program, initial = build(stage)
        game = self.program.game
        self.rows, self.cols = int(game[K.G_ROWS]), int(game[K.G_COLS])
        self.n_cells = self.rows * self.cols
        initial.flags.writeable = False
        self._initial = initial
        self._flat, self._masks = pack(self.program), self.program.bb_mask
        self._max_moves = int(game[K.G_MAX_MOVES])
        self._out = np.zeros(3 + 3 * self._max_moves, dtype=np.int32)
        self._out_moves = self._out[3:].reshape(3, self._max_moves)  # origins, destinations, rules
        self._only_placements = bool(np.isin(self.program.rules[:, K.R_KIND],
                                             (K.PLACE_EMPTY, K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.CLONE)).all())
        self._state_size = initial.shape[0]
        self._unused_child = np.empty(self._state_size, np.int32)  # what a status-only step leaves alone
        # The family that plays this stage as straight code, if one does (compiler/families).
        self._family, self._tables = families.select(self.program)
        self.fast_playouts: str | None = self._family.NAME if self._family is not None else None
        # Calls from Python: one kernel call per move, a family's step if it has one.
        if self._family is not None and hasattr(self._family, "step"):
            self._step, self._step_tables = self._family.step, self._tables
        else:
            work = np.zeros(calls.work_size(self._flat, self._masks), dtype=np.int32)
            self._step, self._step_tables = calls.step, (self._flat, self._masks, work)
        self._seen: np.ndarray | None = None  # the last position looked at (kept alive, so `is` is safe)
        self._known: tuple[int, bool, int] = (0, False, K.NONE)  # its status (moves, over, winner)
        self._listed: tuple[list, list, list, list] | None = None  # its moves, listed once asked for
        # Moves as values, made once: placements by cell, piece moves on first use.
        # (the pass last, so that destination -1 finds it)
        self._placements = [Move(None, divmod(i, self.cols)) for i in range(self.n_cells)] + [PASS]
        self._piece_moves: dict[tuple[int, int], Move] = {}

    # --- the Game contract ---------------------------------------------------------------------

    def initial_state(self) -> np.ndarray:
        return self._initial

    def _move(self, src: int, dst: int) -> Move:
        if dst < 0:
            return PASS
        if src < 0:
            return self._placements[dst]
        move = self._piece_moves.get((src, dst))
        if move is None:
            move = self._piece_moves[(src, dst)] = Move(divmod(src, self.cols), divmod(dst, self.cols))
        return move

    def _status(self, state: np.ndarray) -> tuple[int, bool, int]:
        """(moves, over, winner) of a position; its moves are left in self._out. The states this
        game makes are read-only values, so for them the last answer is kept: the kernel call of
        an `apply` leaves the status of the position it made."""
        # Only a read-only array is a value: one the caller may refill is read again every time.
        if state is not self._seen or state.flags.writeable:
            _, n, over, won = self._step(_frozen(state), self._unused_child, K.STATUS_ONLY, -1, -1, self._out,
                                         *self._step_tables)
            self._took(state, n, over, won)
        return self._known

    def _took(self, state: np.ndarray, n: int, over: bool, won: int) -> None:
        """Keep what the kernel said of `state` (its moves are in self._out)."""
        if won == K.BAD_CODE:
            self._seen = None
            raise _bad_code(self.stage)
        self._seen, self._known, self._listed = state, (n, over, won), None

    def _listing(self, state: np.ndarray) -> tuple[list[Move], list[int], list[int], list[int]]:
        """The legal moves of a position, with their rules, origins and destinations."""
        n = self._status(state)[0]
        if self._listed is None:
            srcs, dsts, rules = self._out_moves[:, :n].tolist()
            if self._only_placements:  # every move is named by its cell (a pass by -1)
                moves = list(map(self._placements.__getitem__, dsts))
            else:
                placed = self._placements
                moves = [placed[d] if s < 0 else self._move(s, d) for s, d in zip(srcs, dsts)]
            self._listed = (moves, rules, srcs, dsts)
        return self._listed

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        return list(self._listing(state)[0])

    def _find(self, state: np.ndarray, move: Move) -> tuple[int, int, int]:
        moves, rules, srcs, dsts = self._listing(state)
        # Moves are usually the very objects legal_moves handed out: look for those first (list.index
        # would call Move.__eq__ on every move before the one it finds).
        for k, legal in enumerate(moves):
            if legal is move:
                return rules[k], srcs[k], dsts[k]
        try:
            k = moves.index(move)
        except ValueError:
            legal = " ".join(map(str, moves)) or "none, the game is over"
            raise ValueError(f"illegal move {str(move)!r}: legal moves are {legal}") from None
        return rules[k], srcs[k], dsts[k]

    def apply_counted(self, state: np.ndarray, move: Move) -> tuple[np.ndarray, int]:
        rule, src, dst = self._find(state, move)
        child = np.empty(self._state_size, np.int32)
        taken, n, over, won = self._step(_frozen(state), child, rule, src, dst, self._out, *self._step_tables)
        child.flags.writeable = False
        self._took(child, n, over, won)  # the kernel left the child's status
        return child, taken

    def apply(self, state: np.ndarray, move: Move) -> np.ndarray:
        return self.apply_counted(state, move)[0]

    def to_move(self, state: np.ndarray) -> int:
        return int(state[self.n_cells + K.TO_MOVE])

    def is_terminal(self, state: np.ndarray) -> bool:
        return bool(self._status(state)[1])

    def winner(self, state: np.ndarray) -> int | None:
        _, over, won = self._status(state)
        return None if not over or won < 0 else int(won)

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        won = self.winner(state)
        if won is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if won == 0 else (-1.0, 1.0)

    def with_to_move(self, state: np.ndarray, player: int) -> np.ndarray:
        """The same position with `player` (0 or 1) to move: a new read-only state."""
        out = state.copy()
        out[self.n_cells + K.TO_MOVE] = player
        out.flags.writeable = False
        return out

    def neighbours(self) -> np.ndarray:
        """int32[n_dirs, n_cells]: the neighbour of each cell in each of the board's compass
        directions (n ne e se s sw w nw; n ne e s sw w on hex boards), -1 off the board."""
        return self.program.nbr.copy()

    @property
    def max_moves(self) -> int:
        """An upper bound on the number of legal moves of any position (a pass counts as one)."""
        return self._max_moves

    def board(self, state: np.ndarray) -> np.ndarray:
        return np.asarray(state[: self.n_cells]).reshape(self.rows, self.cols).copy()

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    # --- what only the compiled game offers ----------------------------------------------------

    def perft(self, depth: int, state: np.ndarray | None = None) -> int:
        """Leaves of the move tree at `depth`, counted inside the kernel."""
        start = self._initial if state is None else _frozen(np.ascontiguousarray(state, dtype=np.int32))
        leaves = int(cell_kernels.perft(start, depth, self._flat, self._masks))
        if leaves == K.BAD_CODE:
            raise _bad_code(self.stage)
        return leaves

    def playouts(self, n: int, seed: int = 0, state: np.ndarray | None = None, threads: int = 1,
                 max_plies: int = 100_000, generic: bool = False) -> Playouts:
        """`n` random games from `state` (the initial state by default), moves drawn uniformly.
        The same seed gives the same games, whatever the number of threads. `generic` forces the
        generic kernels where straight bitboard code would play (to compare the two)."""
        start = (self._initial if state is None else state)[None, :]
        return self._run(np.ascontiguousarray(start, dtype=np.int32), n, seed, threads, max_plies, generic)

    def playouts_from(self, states: np.ndarray, n_per_state: int, seed: int = 0, threads: int = 1,
                      max_plies: int = 100_000) -> Playouts:
        """`n_per_state` random games from each of `states` (int32[m, state_size]); results have
        shape (m, n_per_state) and (m, n_per_state, 2)."""
        states = np.ascontiguousarray(states, dtype=np.int32)
        m = states.shape[0]
        # game g starts from states[g % m]: lay the games out state-major afterwards
        flat = self._run(states, m * n_per_state, seed, threads, max_plies)
        order = np.arange(m * n_per_state).reshape(n_per_state, m).T
        return Playouts(flat.lengths[order], flat.returns[order], flat.cut)

    def _kernel(self, starts, first, seed, max_plies, lengths, winners, generic_only: bool) -> None:
        if self._family is None or generic_only:
            cell_kernels.playouts(starts, first, seed, max_plies, self._flat, self._masks, lengths, winners)
        else:
            self._family.playouts(self._tables, starts, first, seed, max_plies, lengths, winners)

    def _run(self, starts: np.ndarray, n: int, seed: int, threads: int, max_plies: int,
             generic: bool = False) -> Playouts:
        starts = _frozen(starts)
        lengths = np.zeros(n, dtype=np.int32)
        winners = np.zeros(n, dtype=np.int32)
        if threads <= 1 or n < 2 * threads:
            self._kernel(starts, 0, seed, max_plies, lengths, winners, generic)
        else:
            bounds = np.linspace(0, n, threads + 1).astype(int)
            with ThreadPoolExecutor(threads) as pool:  # the kernels release the GIL
                for job in [pool.submit(self._kernel, starts, int(a), seed, max_plies, lengths[a:b], winners[a:b], generic)
                            for a, b in zip(bounds, bounds[1:])]:
                    job.result()
        if (winners == K.BAD_CODE).any():
            raise _bad_code(self.stage)
        returns = np.zeros((n, 2))
        returns[winners == 0] = (1.0, -1.0)
        returns[winners == 1] = (-1.0, 1.0)
        return Playouts(lengths, returns, int((winners == K.CUT).sum()))


def _frozen(state: np.ndarray) -> np.ndarray:
    """A read-only view of an array the kernels only read: numba compiles a kernel once per kind of
    array it is given, and states are read-only values, so a writeable one would compile every
    kernel a second time (a cold start spent half its time so)."""
    if state.flags.writeable:
        state = state.view()
        state.flags.writeable = False
    return state


def _bad_code(stage: Stage) -> InternalError:
    return InternalError(f"the compiled kernels met a rule code they have no branch for, playing {stage.name!r}: "
                         "a concept is missing from a kernel dispatcher (tests/test_concepts.py should catch this)")


def _printable(stage: Stage) -> bool:
    try:
        format(stage)
    except (ValueError, TypeError):
        return False
    return True


def compile(stage: Stage) -> CompiledGame:  # noqa: A001 - the public name the design gives it
    """The compiled game of a stage."""
    return CompiledGame(stage)
