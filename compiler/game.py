"""The compiled Game: the contract of gdl/game.py, backed by the numba kernels, plus what only a
fast engine offers (in-kernel random playouts, from one state or many, on several threads; perft).

States are int32 numpy arrays (the layout is in codes.py), marked read-only: they are values
that agents may keep and pass back; `state.tobytes()` is a hashable key.
"""
from __future__ import annotations

import operator
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..gdl.ast import FewestPieces, MostPieces, Stage
from ..gdl.checks import check_stage, sound
from ..gdl.diagnostics import InternalError, LudicaError, StageError
from ..gdl.ending import Ending, explain
from ..gdl.game import Move
from ..gdl.interpreter import State, chance
from ..gdl.interpreter.game import ChanceNotPlayed
from ..gdl.printer import format
from . import calls, families, positions
from . import codes as K
from . import matches as match_kernels
from . import playouts as cell_kernels
from . import solve as solve_kernels
from .info import GameInfo, game_info
from .layout import ACTIONS, MoveTable, as_state, board_of, illegal_move, read_only, returns_of
from .program import Program, build, pack


@dataclass(frozen=True)
class Playouts:
    """Results of random playouts: `lengths` int32 (plies per game) and `returns` float64 with a
    last axis of n_players (+1 win, -1 loss, 0 draw; 0 for a game cut at max_plies, counted in
    `cut`)."""

    lengths: np.ndarray
    returns: np.ndarray
    cut: int


@dataclass(frozen=True)
class Games:
    """Games between policies (`CompiledGame.games`), one entry per game: `lengths` (plies),
    `winners` (0, 1, -1 a draw, -2 cut at max_plies), `costs` (Σ over positions of 1 + legal
    moves: compiler/matches.py), `choices` (plies with more than one legal move) and `covered`
    (cells that held a piece at some point of the game)."""

    lengths: np.ndarray
    winners: np.ndarray
    costs: np.ndarray
    choices: np.ndarray
    covered: np.ndarray


@dataclass(frozen=True)
class Solution:
    """What the exact solver found (`CompiledGame.solve`): `solved`, whether it finished within its
    budget; `value`, the first player's result under perfect play (+1 a win, 0 a draw, -1 a loss;
    None if not solved); `choices`, the value of each legal move (in legal_actions' order) of the
    first position where the side to move has a choice, for that side (empty when no position
    before the end offers one, or if not solved); `positions`, how many distinct positions the
    game's rules can reach (budget + 1 when it has more)."""

    solved: bool
    value: int | None
    choices: tuple[int, ...]
    positions: int


class CompiledGame:
    """A stage compiled to kernels. Same moves, same order, same states as gdl.reference(stage)."""

    def __init__(self, stage: Stage, lowered: tuple[Program, np.ndarray] | None = None):
        """`lowered`: build(stage), if the caller has it (compiler.kind lowers a stage to name it)."""
        if not sound(stage):  # the kernels trust their tables: refuse a bad stage here
            raise StageError(check_stage(stage), format(stage) if _printable(stage) else None, stage.name or None)
        if stage.hidden is not None:
            raise HiddenInformationError(stage.name)
        self.stage = stage
        self.name = stage.name  # for messages, kept when the stage is let go (forget_stage)
        self.players: tuple[str, ...] = stage.player_names
        self.program, initial = lowered if lowered is not None else build(stage)
        # How the built-in policies count material: +1 (more pieces is better), -1 when the stage
        # scores fewest pieces and never most pieces.
        results = {type(e.result) for e in stage.ends}
        self._material_sign = -1 if FewestPieces in results and MostPieces not in results else 1
        game = self.program.game
        self.rows, self.cols = int(game[K.G_ROWS]), int(game[K.G_COLS])
        self.n_cells = self.rows * self.cols
        initial.flags.writeable = False
        # chance at the start (gdl/interpreter/chance.py, the one definition): each game's start drawn
        # onto the fixed one; initial_state() is game 0 of seed 0's
        self._random = chance.lines(stage)
        self._roll = stage.roll
        self._highest_roll = 0 if stage.roll is None else stage.roll.highest  # (a state's roll is 0 to it)
        # the dice `apply` throws for a search (the referee sets each ply's roll from the chance seed: thrown)
        self._dice = random.Random(0)
        self._fixed = initial
        self._initial = self.start(0)
        self._flat, self._masks = pack(self.program), self.program.bb_mask
        self._max_moves = int(game[K.G_MAX_MOVES])
        self._state_size = initial.shape[0]
        # The family that plays this stage as straight code, if one does (compiler/families).
        self._family, self._tables = families.select(self.program)
        self.fast_playouts: str | None = self._family.NAME if self._family is not None else None
        # Calls from Python (calls.py): one kernel call per move, a family's step if it has one.
        if self._family is not None and hasattr(self._family, "step"):
            self._calls(self._family.step, self._family.step_tables(self.program, self._tables))
        else:
            self._calls(calls.step, calls.tables(self.program))
        placements_only = bool(np.isin(self.program.rules[:, K.R_KIND],
                                       (K.PLACE_EMPTY, K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.CLONE)).all())
        self._moves = MoveTable(self.rows, self.cols, placements_only)
        self._info = game_info(stage, self.program, initial, placements_only)
        self._code_of = self._moves.code_of
        self._new_slab()
        self._seen: object = _UNSEEN  # the last position a step described (kept alive: `is` is safe)
        self._known: tuple[int, int, bool, int] = (0, 0, False, K.NONE)  # what it said: (taken, moves, over, winner)
        self._listed: tuple[Move, ...] | None = None  # its moves, listed once asked for

    def _calls(self, step, tables: tuple[np.ndarray, np.ndarray]) -> None:
        """Answer calls from Python with `step` and its two arrays (calls.py)."""
        self._step, (self._ints, self._bits) = step, tables
        ints = tables[0]
        # the moves of _seen: codes, then rules (a memoryview: its slices cost a third of an array's)
        self._out = memoryview(ints[ints.shape[0] - 2 * self._max_moves:])

    def _new_slab(self) -> None:
        """States are rows of a slab the kernels write and Python sees read-only: handing out a row
        costs a view, where a new read-only array would cost an allocation and a flag change (the
        two are a third of a call). A slab is small, since a kept state keeps its whole slab alive."""
        self._slab = np.empty((SLAB_ROWS, self._state_size), np.int32)
        self._states = self._slab.view()
        self._states.flags.writeable = False
        self._row = 0

    def forget_stage(self) -> None:
        """Let go of the stage's AST; the kernels play on. A sandboxed worker does this before its
        agent runs, to keep the rules out of the agent's easy reach (runtime/worker.py). What reads
        `stage` after this fails; messages name the game by `name`."""
        del self.stage

    # --- the Game contract ---------------------------------------------------------------------

    def initial_state(self) -> np.ndarray:
        """The start of game 0 of seed 0 (a stage with a random start draws each game's: `start`)."""
        return self._initial

    def start(self, seed: int, number: int = 0) -> np.ndarray:
        """The start of game `number` of `seed` (read-only): the fixed start with the random lines'
        cells drawn, as the reference draws them; the fixed start on a stage without random lines."""
        if not self._random and self._roll is None:  # (not self.stage: a worker lets go of it)
            return self._fixed
        n = self.rows * self.cols
        out = self._fixed.copy()
        out[:n] = chance.drawn(tuple(self._fixed[:n].tolist()), self._random, seed, number)
        out[n + K.ROLL] = chance.rolled(self._roll, seed, number, 0)
        out.flags.writeable = False
        return out

    def _look(self, state: np.ndarray) -> tuple[int, int, bool, int]:
        """What a step says of `state` itself (its moves are then in self._out). The states this
        game makes are read-only values, so for the last one the last answer is kept: the step of
        an `apply` describes the child it made."""
        if state is self._seen:
            return self._known
        frozen = as_state(state)  # a writable array is another value at every call: not kept as seen
        known = self._step(frozen, self._slab, self._row, K.STATUS_ONLY, -1, self._ints, self._bits)
        if known[3] in (K.BAD_CODE, K.BAD_STATE):
            self._seen = _UNSEEN
            raise self._broken(known[3], frozen)
        self._seen, self._known, self._listed = frozen, known, None
        return known

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        if state is not self._seen:
            self._look(state)
        listed = self._listed
        if listed is None:
            listed = self._listed = self._moves.listed(self._out[: self._known[1]].tolist())
        return list(listed)

    def apply(self, state: np.ndarray, move: Move) -> np.ndarray:
        code = self._code_of.get(id(move))  # the moves this game hands out are known by identity
        if code is None:
            code = self._moves.code(move)
        return self._advance(state, code, move)

    def _advance(self, state: np.ndarray, code: int, named: Move | int) -> np.ndarray:
        """The child of `state` by the move of code `code` (`named`: what the caller gave, for an
        error message)."""
        if state is self._seen:
            known = self._known[1]
        else:
            known, state = -1, as_state(state)
        row = self._row
        result = self._step(state, self._slab, row, code, known, self._ints, self._bits)
        if result[3] < K.NONE:
            self._refused(named, result, state)
        child = self._states[row]
        if self._roll is not None:  # thrown here: the step listed the child's moves without it
            self._slab[row, self.n_cells + K.ROLL] = chance.throw(self._roll, self._dice)
        if row + 1 == SLAB_ROWS:
            self._new_slab()
        else:
            self._row = row + 1
        self._seen, self._known, self._listed = child, result, None
        if self._roll is not None:
            self._seen = _UNSEEN  # (apply_counted still reads what the move took from _known)
        return child

    def thrown(self, state: np.ndarray, seed: int, number: int = 0) -> np.ndarray:
        """`state` with the referee's roll for its ply, of game `number` of `seed` (chance.rolled: a
        resumed or replayed game throws the same); `state` itself on a stage without dice."""
        if self._roll is None:
            return state
        return self.with_roll(state, chance.rolled(self._roll, seed, number, int(state[self.n_cells + K.PLY])))

    def with_roll(self, state: np.ndarray, roll: int) -> np.ndarray:
        """`state` with the side to move's roll set (the referee's, drawn from the game's chance seed): a
        new read-only state."""
        lowest, highest = (0, 0) if self._roll is None else (self._roll.lowest, self._roll.highest)
        if not lowest <= roll <= highest:
            raise ValueError(f"a roll of {roll} is not one of this stage's: {lowest} to {highest}")
        out = np.array(state, dtype=np.int32)
        out[self.n_cells + K.ROLL] = roll
        out.flags.writeable = False
        return out

    def _broken(self, status: int, state: np.ndarray) -> Exception:
        """The error for a step's BAD_CODE (a compiler bug) or BAD_STATE (an array that is not a
        state of this game)."""
        if status == K.BAD_CODE:
            return _bad_code(self.name)
        return ValueError(_misfit_text(state, self._state_size, self._highest_roll))

    def _refused(self, named: Move | int, result: tuple[int, int, bool, int], state: np.ndarray) -> None:
        self._seen = _UNSEEN
        if result[3] in (K.BAD_CODE, K.BAD_STATE):
            raise self._broken(result[3], state)
        # the step listed the moves of the position
        legal = self._moves.listed(self._out[: result[1]].tolist())
        raise illegal_move(named, legal, state)

    def apply_counted(self, state: np.ndarray, move: Move) -> tuple[np.ndarray, int]:
        child = self.apply(state, move)
        return child, self._known[0]

    def to_move(self, state: np.ndarray) -> int:
        return int(state[self.n_cells + K.TO_MOVE])

    def is_terminal(self, state: np.ndarray) -> bool:
        return bool(self._look(state)[2])

    def winner(self, state: np.ndarray) -> int | None:
        _, _, over, won = self._look(state)
        return None if not over or won < 0 else int(won)

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        return returns_of(self.winner(state))

    def ending(self, state: np.ndarray) -> Ending:
        """Why `state` ended the game, in words (gdl/ending.py, said of the same position as the
        reference interpreter holds it); ValueError if the game is not over there."""
        n = self.n_cells
        extra = state[n:].tolist()
        return explain(self.stage, State(tuple(state[:n].tolist()), extra[K.TO_MOVE], extra[K.MOVER], extra[K.PLY],
                                         extra[K.ROLL]))

    def describe(self, state: np.ndarray) -> tuple[list[int], bool, int]:
        """(the legal actions, whether the game is over, the winner: 0, 1, or -1 for none or a
        draw) of `state`, in one call (what the rules oracle of runtime/oracle/ answers)."""
        _, n, over, won = self._look(state)
        return self._out[:n].tolist(), bool(over), int(won)

    def position(self, state: np.ndarray) -> np.ndarray:
        """The true position of a state: the state itself (CompiledDarkGame's differs)."""
        return state

    def information(self, state: np.ndarray, player: int) -> np.ndarray:
        """What `player` knows of a state: all of it, under perfect information (CompiledDarkGame's is
        its information state, compiler/knowledge.py)."""
        return state

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
    def info(self) -> GameInfo:
        """The game's information as data (compiler/info.py): players, board, actions, utilities,
        and the longest a game can last where the rules prove it."""
        return self._info

    @property
    def max_moves(self) -> int:
        """An upper bound on the number of legal moves of any position (a pass counts as one)."""
        return self._max_moves

    def board(self, state: np.ndarray) -> np.ndarray:
        return board_of(state, self.rows, self.cols)

    def parse_move(self, text: str) -> Move:
        return self._moves.parse(text)

    # --- what only the compiled game offers ----------------------------------------------------

    def legal_actions(self, state: np.ndarray) -> list[int]:
        """The legal moves as integers, in the order of legal_moves: OpenSpiel's kind of interface,
        for a search driven from Python (no Move objects to make: about half the cost of a ply).
        An action is a placement's cell (row * cols + col), (origin + 1) * n_cells + destination
        for a piece move, -1 for a pass; move_of and action_of translate."""
        if state is not self._seen:
            self._look(state)
        return self._out[: self._known[1]].tolist()

    def apply_action(self, state: np.ndarray, action: int) -> np.ndarray:
        """The position after a legal action (ValueError if it is not legal)."""
        if action.__class__ is not int:
            action = operator.index(action)  # a numpy integer; a TypeError for what is not an integer
        # (the kernels read other negative codes as instructions, and take codes as int64)
        return self._advance(state, action if K.PASS_CODE <= action < ACTIONS else K.NOT_A_MOVE, action)

    def apply_action_counted(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        """(apply_action's position, the pieces the action took)."""
        child = self.apply_action(state, action)
        return child, self._known[0]

    def move_of(self, action: int) -> Move:
        """The Move of an action."""
        return self._moves.move_of(action)

    def action_of(self, move: Move) -> int:
        """The action of a Move (ValueError for a cell off the board)."""
        return self._moves.action_of(move)

    @property
    def placements_only(self) -> bool:
        """Whether every move of the game is a placement (its actions are then cells and -1)."""
        return isinstance(self._moves.table, list)

    def perft(self, depth: int, state: np.ndarray | None = None) -> int:
        """Leaves of the move tree at `depth`, counted inside the kernel."""
        self._without_dice("counting the move tree (perft)")
        start = self._initial if state is None else self._starts(state)[0]
        leaves = int(cell_kernels.perft(start, depth, self._flat, self._masks))
        if leaves == K.BAD_CODE:
            raise _bad_code(self.name)
        return leaves

    def solve(self, budget: int) -> Solution:
        """Solve the game exactly inside the kernel (compiler/solve.py: every position its rules can
        reach, then retrograde analysis), if it has at most `budget` positions."""
        self._without_dice("solving")
        if budget < 1:
            raise ValueError(f"budget: at least one position, not {budget}")
        keep_ply = bool((self.program.ends[:, K.E_CONDITION] == K.AFTER_PLIES).any())
        code, positions, values, first, child, flip = solve_kernels.retrograde(self._initial, budget, keep_ply,
                                                                               self._flat, self._masks)
        if code == K.BAD_CODE:
            raise _bad_code(self.name)
        if code == solve_kernels.ABORT:
            return Solution(False, None, (), int(positions))
        i, seen = 0, set()
        while first[i + 1] - first[i] == 1 and i not in seen:  # a forced move (or pass): no choice yet
            seen.add(i)  # (forced moves may go round for ever)
            i = int(child[first[i]])
        choices = tuple(int(flip[e] * values[child[e]]) for e in range(first[i], first[i + 1]))
        value = int(values[0]) if self.to_move(self._initial) == 0 else -int(values[0])
        return Solution(True, value, choices if len(choices) > 1 else (), int(positions))

    def playouts(self, n: int, seed: int = 0, state: np.ndarray | None = None, threads: int = 1,
                 max_plies: int = 100_000, generic: bool = False, first_game: int = 0) -> Playouts:
        """`n` random games from `state` (the initial state by default: on a stage with a random
        start, game 0 of seed 0's start, as the reference's random games and `games` start; games
        from drawn starts: playouts_from(np.stack([start(seed, k) for k ...]))), moves drawn
        uniformly. The same seed gives the same games, whatever the number of threads. `generic`
        forces the generic kernels where straight bitboard code would play (to compare the two).
        Game g is numbered first_game + g: a batch split anywhere plays the same games."""
        return self._run(self._starts(state), n, seed, threads, max_plies, generic, first_game)

    def playouts_from(self, states: np.ndarray, n_per_state: int, seed: int = 0, threads: int = 1,
                      max_plies: int = 100_000) -> Playouts:
        """`n_per_state` random games from each of `states` (int32[m, state_size]); results have
        shape (m, n_per_state) and (m, n_per_state, 2)."""
        states = self._checked(np.ascontiguousarray(states, dtype=np.int32))
        m = states.shape[0]
        # game g starts from states[g % m]: lay the games out state-major afterwards
        flat = self._run(states, m * n_per_state, seed, threads, max_plies)
        order = np.arange(m * n_per_state).reshape(n_per_state, m).T
        return Playouts(flat.lengths[order], flat.returns[order], flat.cut)

    def games(self, n: int, seed: int = 0, policies: tuple[str, str] = ("random", "random"),
              max_plies: int = 100_000, first_game: int = 0, opening: int = 0, beam: int = 8,
              weights: tuple[int, int] | None = None, samples: int | tuple[int, int] = 32) -> Games:
        """`n` games from the initial state, the first player playing policies[0] and the second
        policies[1] ("random", "greedy", "search" or "mc": compiler/matches.py) after `opening`
        random plies, inside the kernel, on the generic form of the game. Random against random
        plays the games `playouts` plays for the same seed. Game g is numbered first_game + g: split
        a batch anywhere, same games. `beam`: how many of greedy's best moves search looks deeper
        into; `weights`: of material and mobility in their values (default: material counted as the
        stage scores it, +1 or -1 for fewest pieces, and mobility +1); `samples`: the random games
        the "mc" policy plays to choose each of its moves (shared among the legal moves), one
        number for both seats or one per seat. On a stage with dice every game throws each roll from
        its generator after the move, as `playouts` does (Monte-Carlo's games throw their own);
        greedy and search are refused there."""
        unknown = [p for p in policies if p not in match_kernels.POLICY_NAMES]
        if len(policies) != 2 or unknown:
            raise ValueError(f"two policies among {match_kernels.POLICY_NAMES}, not {policies!r}")
        if set(policies) & {"greedy", "search"}:  # they value a move's child as if no dice followed
            self._without_dice("the greedy and search policies' games")
        seats = np.array([match_kernels.POLICY_NAMES.index(p) for p in policies], np.int32)
        per_seat = samples_per_seat(samples)
        out = [np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int32),
               np.zeros(n, np.int32)]
        if weights is None:
            weights = (self._material_sign, 1)
        match_kernels.games(self._initial, seed, first_game, seats, opening, beam, max_plies,
                            np.array(weights, np.int64), per_seat, self._flat, self._masks, *out)
        if (out[1] == K.BAD_CODE).any():
            raise _bad_code(self.name)
        return Games(*out)


    def _without_dice(self, what: str) -> None:
        """Refuse what the kernels do only without chance during the game (their trees and matches
        have no chance nodes yet)."""
        if self._roll is not None:
            raise ChanceNotPlayed(self.name, f"{what} on a stage with dice")

    def _kernel(self, starts, first, seed, max_plies, lengths, winners, generic_only: bool) -> None:
        if self._family is None or generic_only:
            cell_kernels.playouts(starts, first, seed, max_plies, self._flat, self._masks, lengths, winners)
        else:
            self._family.playouts(self._tables, starts, first, seed, max_plies, lengths, winners)

    def _starts(self, state: np.ndarray | None) -> np.ndarray:
        """The starts of a batch from one state (the initial state if None), checked: int32[1, size]."""
        return self._checked(np.ascontiguousarray((self._initial if state is None else as_state(state))[None, :]))

    def _checked(self, states: np.ndarray) -> np.ndarray:
        """`states` (int32[m, state_size]), each a state of this game (ValueError if not: see
        positions.misfit), read-only."""
        if states.ndim != 2 or states.shape[1] != self._state_size:
            raise ValueError(f"not states of this game: an array of shape {states.shape[1:]}, where a state is "
                             f"({self._state_size},) int32 (states come from initial_state, apply and apply_action)")
        bad = int(positions.first_misfit(states, self._state_size, self._highest_roll))
        if bad >= 0:
            raise ValueError(_misfit_text(states[bad], self._state_size, self._highest_roll))
        return read_only(states)

    def _run(self, starts: np.ndarray, n: int, seed: int, threads: int, max_plies: int,
             generic: bool = False, first: int = 0) -> Playouts:
        lengths = np.zeros(n, dtype=np.int32)
        winners = np.zeros(n, dtype=np.int32)
        if threads <= 1 or n < 2 * threads:
            self._kernel(starts, first, seed, max_plies, lengths, winners, generic)
        else:
            bounds = np.linspace(0, n, threads + 1).astype(int)
            with ThreadPoolExecutor(threads) as pool:  # the kernels release the GIL
                for job in [pool.submit(self._kernel, starts, first + int(a), seed, max_plies, lengths[a:b],
                                        winners[a:b], generic)
                            for a, b in zip(bounds, bounds[1:])]:
                    job.result()
        if (winners == K.BAD_CODE).any():
            raise _bad_code(self.name)
        returns = np.zeros((n, 2))
        returns[winners == 0] = (1.0, -1.0)
        returns[winners == 1] = (-1.0, 1.0)
        return Playouts(lengths, returns, int((winners == K.CUT).sum()))


def samples_per_seat(samples: int | tuple[int, int]) -> np.ndarray:
    """int64[2]: a Monte-Carlo policy's random games a move for each seat, from one count for both or
    one each (ValueError otherwise)."""
    per_seat = np.array((samples, samples) if isinstance(samples, int) else samples, np.int64)
    if per_seat.shape != (2,) or (per_seat < 1).any():
        raise ValueError(f"samples: one count ≥ 1, or one per seat, not {samples!r}")
    return per_seat


class HiddenInformationError(LudicaError, ValueError):
    """A stage with hidden information, which the compiled kernels do not play yet."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"{name!r} has hidden information (a `hidden` line): compiler.playable(stage) gives its "
                         "game (compiler/dark.py), played as tries")

    def __reduce__(self):  # rebuilt from its name when it crosses processes (not from its message)
        return HiddenInformationError, (self.name,)


SLAB_ROWS = 16  # states per slab: see CompiledGame._new_slab
_UNSEEN = object()  # what CompiledGame._seen holds when no position is described (None is not a state)


def _misfit_text(state: np.ndarray, width: int, highest: int) -> str:
    """What is wrong with an array a kernel refused as a state (positions.misfit)."""
    size = width - K.STATE_EXTRA
    if state.shape[0] != width:
        found = f"{state.shape[0]} values, where this game's states have {width}"
    else:
        cells = np.asarray(state[:size])
        wrong = np.flatnonzero((cells < -1) | (cells > 2))
        extra = [f"{name} {int(state[size + k])}" for k, name in ((K.TO_MOVE, "side to move"), (K.MOVER, "mover"))
                 if not 0 <= state[size + k] <= 1]
        extra += [f"ply {int(state[size + K.PLY])}"] if state[size + K.PLY] < 0 else []
        dice = f"this stage's are 0 to {highest}" if highest else "this stage throws no dice: its states' roll is 0"
        extra += [f"roll {int(state[size + K.ROLL])} ({dice})"] if not 0 <= state[size + K.ROLL] <= highest else []
        found = (f"cell {int(wrong[0])} holds {int(cells[wrong[0]])} (cells hold -1, 0, 1 or 2)" if len(wrong)
                 else ", ".join(extra))
    return (f"not a state of this game: {found}. Pass states as the game gives them (initial_state, apply, "
            "apply_action), unchanged")


def _bad_code(name: str) -> InternalError:
    return InternalError(f"the compiled kernels met a rule code they have no branch for, playing {name!r}: "
                         "a concept is missing from a kernel dispatcher (tests/test_concepts.py should catch this)")


def _printable(stage: Stage) -> bool:
    try:
        format(stage)
    except (ValueError, TypeError):
        return False
    return True
