"""Hidden information: the reference semantics of the information lines (`hidden`, `refused`,
`announce`), played on top of a stage's true game.

A stage with `hidden` is its base stage plus a view policy: the rules of what happens are the base's,
played by a ReferenceGame on the true board; the information lines say only what each player is told.
So everything proved about the base (its moves, its ends, its length bound in true moves) holds for
the true game. docs/language.md ("Information") says the same in prose; the compiled kernels must
match this module try for try.

The game is played as tries. The player to move chooses among the moves its rules allow on its own
view of the board (a try), never shown the true board:

- A try the true position allows is played there. Its player then sees every cell the move changed;
  the other player sees only the cells where one of its own pieces appeared, vanished or changed
  side (`hidden opponent-pieces`: a player always sees its own pieces). Each `reveal` line shows
  both players more of the true board after it: the cells next to their pieces (`adjacent`), every
  cell a capturing move changed (`capture`), the cells their moves could reach (`reachable`).
- A try the true position does not allow is refused: the board does not change, its player is told,
  sees the true content of the move's destination, and then tries again (`refused retry`) or loses its turn (`refused lose-turn`). A refused
  try is not offered again to that player until one of its tries is played (or the board is shown to
  it, below): so a turn has at most as many tries as moves.
- A player with no move in truth is told so: it passes if the rules give it a pass (its only try),
  and the game ends as the rules say. A player whose view offers no untried move while the true
  position has one is shown the whole board (its view becomes the truth): every turn therefore ends
  with a move of the base game or a lost turn, never in a loop.
- Ends are judged on the true position, and the result is told to both.

What a player knows, its information state, is its history (`history`): each of its own tries with
whether it was refused and the cells it saw then; each try of its opponent that it saw something of
(a piece of its own taken or turned) or that was announced (`announce turn-count`: that one was
made, by whom; not which, nor its fate); after a try that took pieces, under `announce captures`,
how many (Captured); and each time the board was shown to it. Its view is the
initial position with the cells of its history written over it, in order; `observe` gives it as planes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..ast import (AnnouncedCaptures, AnnouncedRefusals, LoseTurn, OpponentPieces, Retry, RevealAdjacent, RevealCapture, RevealReachable,
                   Stage, TurnCount)
from ..game import PASS, Move
from .game import _CACHE_SIZE, ChanceNotPlayed, Outcome, ReferenceGame, State
from .moves import EMPTY, piece
from .topology import Topology

Cells = tuple[int, ...]


Sight = tuple[tuple[int, int], ...]  # cells seen: (row-major index, what it holds), in index order


@dataclass(frozen=True)
class Tried:
    """A try, as one player knows it: its own (`move`, whether it was `refused`), or its opponent's
    (`move` and `refused` None: only that it was made, and by whom); with the cells that player saw
    because of it (`seen`)."""

    player: int
    move: Move | None
    refused: bool | None
    seen: Sight = ()


@dataclass(frozen=True)
class Shown:
    """The whole true board shown to `player`, whose view offered no untried move (`cells`, row-major)."""

    player: int
    cells: Cells


@dataclass(frozen=True)
class Captured:
    """`announce captures`: the try just before in the history (of `player`) took `count` pieces."""

    player: int
    count: int


Seen = Tried | Shown | Captured


@dataclass(frozen=True)
class Try:
    """A try, as the referee records it: who made it, the move, whether it was refused, and what each
    player saw because of it (`seen[p]`)."""

    player: int
    move: Move
    refused: bool
    seen: tuple[Sight, Sight]
    taken: int = 0  # the pieces it took (0 if refused)


@dataclass(frozen=True)
class DarkState:
    """A position of a hidden-information game: a value, never changed.

    `truth` is the true position (the base game's State); `views[p]` the board as player p last saw
    it (row-major: -1 blocked, 0 empty, 1 first player's piece, 2 second's); `refused[p]` the moves
    refused to p since its last played try (not offered again); `record` what happened, in order:
    every try (Try) and every board shown (Shown).
    """

    truth: State
    views: tuple[Cells, Cells]
    refused: tuple[frozenset[Move], frozenset[Move]] = (frozenset(), frozenset())
    record: tuple[Try | Shown, ...] = ()


# --- the concepts: one function each ---------------------------------------------------------------


def _changed(before: Cells, after: Cells) -> list[int]:
    """The cells a played try changed."""
    return [i for i in range(len(after)) if after[i] != before[i]]


def _sees_own_pieces(viewer: int, mover: int, before: Cells, after: Cells) -> list[int]:
    """`hidden opponent-pieces`: the cells `viewer` sees after a played try of `mover`: the mover every
    cell its move changed; the other player the cells where one of its own pieces appeared, vanished
    or changed side."""
    if viewer == mover:
        return _changed(before, after)
    mine = piece(viewer)
    return [i for i in range(len(after)) if (after[i] == mine) != (before[i] == mine)]


_VIEWS: dict[type, Callable[[int, int, Cells, Cells], list[int]]] = {
    OpponentPieces: _sees_own_pieces,
}


def _reveal_adjacent(game: DarkGame, viewer: int, mover: int, before: State, after: State, taken: int) -> list[int]:
    """`reveal adjacent`: every cell next to one of the viewer's pieces, on the true board after the move."""
    mine, nbrs = piece(viewer), game.topology.neighbours
    return [j for i, v in enumerate(after.cells) if v == mine for row in nbrs if (j := row[i]) >= 0]


def _reveal_capture(game: DarkGame, viewer: int, mover: int, before: State, after: State, taken: int) -> list[int]:
    """`reveal capture`: every cell a move that took pieces changed, to both players."""
    return _changed(before.cells, after.cells) if taken else []


def _reveal_reachable(game: DarkGame, viewer: int, mover: int, before: State, after: State, taken: int) -> list[int]:
    """`reveal reachable`: the destinations of the moves the viewer's rules allow it on the true board
    after the move, as if it were to move."""
    return [game.topology.index(*m.dst) for m in game.base._plays(after.cells, viewer) if m.dst is not None]


# The cells each reveal shows a viewer after a played try (beyond what its hiding shows).
_REVEALS: dict[type, Callable[[DarkGame, int, int, State, State, int], list[int]]] = {
    RevealAdjacent: _reveal_adjacent,
    RevealCapture: _reveal_capture,
    RevealReachable: _reveal_reachable,
}


def _retry(mover: int) -> int:
    return mover


def _lose_turn(mover: int) -> int:
    return 1 - mover


# Who tries next after a refused try of `mover`.
_REFUSALS: dict[type, Callable[[int], int]] = {
    Retry: _retry,
    LoseTurn: _lose_turn,
}


def _told_turn_count(viewer: int, tried: Try) -> bool:
    """`announce turn-count`: the other player learns that a try was made, and by whom."""
    return True


def _told_refusals(viewer: int, tried: Try) -> bool:
    """`announce refusals`: the other player learns of a refused try, and whose it was."""
    return tried.refused


def _told_captures(viewer: int, tried: Try) -> bool:
    """`announce captures`: the other player learns of a try that took pieces (and how many)."""
    return tried.taken > 0


# Whether an announcement tells a player of its opponent's try.
_ANNOUNCEMENTS: dict[type, Callable[[int, Try], bool]] = {
    TurnCount: _told_turn_count,
    AnnouncedRefusals: _told_refusals,
    AnnouncedCaptures: _told_captures,
}


def _tries_told(history: tuple[Seen, ...]) -> int:
    """`turn-count`'s plane: the tries a player was told of, its own included."""
    return sum(isinstance(e, Tried) for e in history)


def _refusals_told(history: tuple[Seen, ...]) -> int:
    """`refusals`' plane: the refused tries a player knows of, its own included."""
    return sum(isinstance(e, Tried) and e.refused is True for e in history)


def _captures_told(history: tuple[Seen, ...]) -> int:
    """`captures`' plane: the pieces a player was told were taken, by either player."""
    return sum(e.count for e in history if isinstance(e, Captured))


# The value of an announcement's observation plane, from what a player knows.
_PLANES: dict[type, Callable[[tuple[Seen, ...]], int]] = {
    TurnCount: _tries_told,
    AnnouncedRefusals: _refusals_told,
    AnnouncedCaptures: _captures_told,
}


def announced(kinds: tuple[type, ...], history: tuple[Seen, ...]) -> list[int]:
    """The values of a player's announcement planes (observation), in the stage's order of `kinds`."""
    return [_PLANES[kind](history) for kind in kinds]


def _seeing(view: Cells, sight: Sight) -> Cells:
    """A view with the cells of a sight written over it."""
    if not sight:
        return view
    out = list(view)
    for i, value in sight:
        out[i] = value
    return tuple(out)


# --- the game ----------------------------------------------------------------------------------------


class DarkGame:
    """A stage with hidden information, played as tries on its true game (the Game contract of
    gdl/game.py: legal_moves are the tries of the player to move; plus what each player knows:
    `view`, `history`, `observe`)."""

    def __init__(self, stage: Stage):
        if stage.hidden is None:
            raise ValueError("a DarkGame plays a stage with a `hidden` line; play this one with ReferenceGame")
        if stage.refused is None:
            raise ValueError("a `hidden` stage says what a refused try does: `refused retry` or `refused lose-turn`")
        if stage.roll is not None:
            raise ChanceNotPlayed(stage.name, "dice on a stage with hidden information")
        self.stage = stage
        self.base = ReferenceGame(stage.without_information())
        self.topology: Topology = self.base.topology
        self.rows, self.cols, self.players = self.base.rows, self.base.cols, self.base.players
        self._view_after = _VIEWS[type(stage.hidden)]
        self._after_refusal = _REFUSALS[type(stage.refused)]
        self._announced = [_ANNOUNCEMENTS[type(a)] for a in stage.announce]
        self._reveals = [_REVEALS[type(r)] for r in stage.reveal]
        self._fates_told = any(isinstance(a, AnnouncedRefusals) for a in stage.announce)
        self._captures_told = any(isinstance(a, AnnouncedCaptures) for a in stage.announce)
        self._tries = lru_cache(maxsize=_CACHE_SIZE)(self._compute_tries)
        self._initial = self.start(0)

    # --- tries ------------------------------------------------------------------------------------

    def _compute_tries(self, state: DarkState) -> tuple[Move, ...]:
        """The tries of the player to move: a forced pass if the truth gives it one, else the moves its
        rules allow on its view, less those refused to it, in the rules' order."""
        truth = state.truth
        if self.base.is_terminal(truth):
            return ()
        true_moves = self.base.available_moves(truth)
        if PASS in true_moves:
            return (PASS,)
        p = truth.to_move
        return self.tries_in_view(state.views[p], p, state.refused[p])

    def tries_in_view(self, view: Cells, player: int, refused: frozenset[Move] | set[Move]) -> tuple[Move, ...]:
        """The moves `player`'s rules allow on its `view`, less those `refused` to it, in the rules'
        order: its tries (the ends are the truth's to judge, not the view's)."""
        return tuple(m for m in self.base._plays(view, player) if m not in refused)

    def _settled(self, state: DarkState) -> DarkState:
        """`state`, with the board shown to the player to move if its view offers no untried move
        while the true position has one (so that every turn ends)."""
        truth = state.truth
        if self._tries(state) or self.base.is_terminal(truth) or not self.base.available_moves(truth):
            return state
        p = truth.to_move
        views = (truth.cells, state.views[1]) if p == 0 else (state.views[0], truth.cells)
        refused = (frozenset(), state.refused[1]) if p == 0 else (state.refused[0], frozenset())
        return DarkState(truth, views, refused, state.record + (Shown(p, truth.cells),))

    def legal_moves(self, state: DarkState) -> list[Move]:
        """The tries of the player to move (empty once the game is over)."""
        return list(self._tries(state))

    def apply_counted(self, state: DarkState, move: Move) -> tuple[DarkState, int]:
        """The position after the try `move`, and the pieces it took (0 if refused)."""
        tries = self._tries(state)
        if move not in tries:
            legal = " ".join(map(str, tries)) if tries else "none, the game is over"
            raise ValueError(f"not a try of the player to move: {str(move)!r}; its tries are {legal}")
        truth, p = state.truth, state.truth.to_move
        refused = list(state.refused)
        played = move.is_pass or move in self.base.available_moves(truth)
        if played:
            after, taken = self.base.apply_counted(truth, move)
            seen = [self._sight(viewer, p, truth, after, taken) for viewer in (0, 1)]
            refused[p] = frozenset()
        else:
            after, taken = State(truth.cells, self._after_refusal(p), truth.mover, truth.ply), 0
            assert move.dst is not None  # a pass is always played
            dst = self.topology.index(*move.dst)
            shown = ((dst, truth.cells[dst]),)
            seen = [shown, ()] if p == 0 else [(), shown]
            refused[p] = refused[p] | {move}
        views = tuple(_seeing(view, sight) for view, sight in zip(state.views, seen))
        tried = Try(p, move, not played, (seen[0], seen[1]), taken)
        new = DarkState(after, (views[0], views[1]), (refused[0], refused[1]), state.record + (tried,))
        return self._settled(new), taken

    def _sight(self, viewer: int, mover: int, before: State, after: State, taken: int) -> Sight:
        """What `viewer` sees of a played try of `mover` that took `taken` pieces: the cells the stage's
        hiding shows it, and those its reveals do, in index order."""
        cells = set(self._view_after(viewer, mover, before.cells, after.cells))
        for reveal in self._reveals:
            cells.update(reveal(self, viewer, mover, before, after, taken))
        return tuple((i, after.cells[i]) for i in sorted(cells))

    def apply(self, state: DarkState, move: Move) -> DarkState:
        return self.apply_counted(state, move)[0]

    def refused(self, state: DarkState) -> bool:
        """Whether the last try was refused (the truth did not allow it)."""
        tries = [event for event in state.record if isinstance(event, Try)]
        return bool(tries) and tries[-1].refused

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    # --- the position, as the referee knows it ------------------------------------------------------

    def initial_state(self) -> DarkState:
        """The start of game 0 of seed 0 (a stage with a random start draws each game's: `start`)."""
        return self._initial

    def start(self, seed: int, number: int = 0) -> DarkState:
        """The start of game `number` of `seed`: the base's (drawn, on a stage with a random start),
        public: both views are it, and a start drawn at random is shown to both players, so that
        their histories say where they began."""
        return self.started(self.base.start(seed, number).cells)

    def started(self, cells: Cells) -> DarkState:
        """The game from the start `cells` (the fixed start's, or one drawn): the first player to move."""
        truth = State(cells, to_move=0, mover=1, ply=0)
        record = (Shown(0, cells), Shown(1, cells)) if self.stage.random_start else ()
        return self._settled(DarkState(truth, (cells, cells), record=record))

    def to_move(self, state: DarkState) -> int:
        return state.truth.to_move

    def outcome(self, state: DarkState) -> Outcome:
        return self.base.outcome(state.truth)

    def is_terminal(self, state: DarkState) -> bool:
        return self.base.is_terminal(state.truth)

    def winner(self, state: DarkState) -> int | None:
        return self.base.winner(state.truth)

    def returns(self, state: DarkState) -> tuple[float, float]:
        return self.base.returns(state.truth)

    def board(self, state: DarkState) -> np.ndarray:
        """The true board (the referee's): rows×cols ints, as ReferenceGame.board."""
        return self.base.board(state.truth)

    def tries(self, state: DarkState) -> int:
        """Every try made so far, by both players (public only under `announce turn-count`)."""
        return sum(isinstance(event, Try) for event in state.record)

    # --- what each player knows -------------------------------------------------------------------

    def view(self, state: DarkState, player: int) -> Cells:
        """The board as `player` last saw it, row-major (-1 blocked, 0 empty, 1 and 2 the players' pieces)."""
        return state.views[player]

    def history(self, state: DarkState, player: int) -> tuple[Seen, ...]:
        """What `player` knows happened, in order (its information state, with the rules): its own
        tries, their fate and what it saw; its opponent's tries that it saw something of or that an
        announcement told it of; and each board shown to it. It only grows: a player never forgets."""
        out: list[Seen] = []
        for event in state.record:
            if isinstance(event, Shown):
                if event.player == player:
                    out.append(event)
                continue
            if event.player == player:
                out.append(Tried(player, event.move, event.refused, event.seen[player]))
            elif event.seen[player] or any(told(player, event) for told in self._announced):
                fate = event.refused if self._fates_told else None  # `announce refusals`: told with its fate
                out.append(Tried(event.player, None, fate, event.seen[player]))
            else:
                continue
            if self._captures_told and event.taken:  # `announce captures`: told to both, with how many
                out.append(Captured(event.player, event.taken))
        return tuple(out)

    def observe(self, state: DarkState, player: int) -> np.ndarray:
        """`player`'s observation (`observation`: planes of its view and of what it was told)."""
        kinds = tuple(type(a) for a in self.stage.announce)
        return observation(state.views[player], self.rows, self.cols, announced(kinds, self.history(state, player)))


def observation(view: Cells, rows: int, cols: int, announced: list[int]) -> np.ndarray:
    """A player's observation: int32[4 + A, rows, cols]. Planes 0 and 1: the first and the second
    player's pieces as it sees them (1 where seen); 2: cells seen empty; 3: blocked cells; then one
    plane per announcement, in the stage's order, holding its value on every cell (`turn-count`: the
    tries it was told of, its own included). A player of a perfect-information stage sees the board."""
    board = np.array(view, dtype=np.int32).reshape(rows, cols)
    planes = [board == piece(0), board == piece(1), board == EMPTY, board == -1]
    planes += [np.full((rows, cols), value) for value in announced]
    return np.stack(planes).astype(np.int32)


def dark(stage: Stage) -> DarkGame:
    """The reference game of a stage with hidden information."""
    return DarkGame(stage)
