"""What a compiled game declares about itself, as data: OpenSpiel's GameType and GameInfo
(`_GAME_INFO` in open_spiel/python/games/tic_tac_toe.py) for a stage, computed once from its
lowered program when it is compiled (`CompiledGame.info`).

Every stage is a two-player, deterministic, perfect-information, sequential game whose returns
are +1, -1 or 0 (layout.returns_of); what differs from stage to stage is the board, the actions,
whether a pass exists and how long a game can last.

The maximum length is a proof, not a measurement: it is given only where the rules bound every
game, by a quantity that every move lowers by at least one and that never grows (a potential):

- `after N plies` ends every game by ply N, whichever end comes first;
- placements that never empty a cell (every move a placement, or a clone to an empty cell, and no
  `remove custodial`): each move fills one of the cells empty at the start, for good;
- pieces that only move along paths that never come back (every move a step, slide or jump, no
  piece added, none changing side: no flip, no convert): each move takes a piece at least one
  cell further along its player's graph of moves, which has no cycle, so a piece at cell i has at
  most `height(i)` moves left (the longest path from i), and a capture only takes moves away.

A pass is played only by a side without a move while the other side has one (gdl/interpreter/
turns.py), which then moves (or the game is over): passes are never two in a row, and a pass after
the last move leaves the other side a move, so the potential is still ≥ 1 there. With P the
potential of the initial position, a game has at most P moves and P passes: 2P plies (P without a
pass rule). The bound is exact for tic-tac-toe (9) and Connect Four (42); Othello's 120 counts a
pass before every move, which no real game plays. Elsewhere `max_length` is None: no bound is
proved (pieces can come back, cells be emptied and filled again, or new pieces bring new moves,
and a game may then go on for ever), and whoever plays it cuts it at a ply cap of its own (the
referee's, the sampler's).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import codes as K
from .families import codes_used
from .layout import returns_of

# The outcomes a game can end in: a winner (0 or 1) or a draw (None): what returns_of reads.
_OUTCOMES = (0, 1, None)
_PLACING = (K.PLACE_EMPTY, K.PLACE_GRAVITY, K.PLACE_ADJACENT)
_MOVING = (K.STEP, K.SLIDE, K.JUMP, K.ADVANCE)


@dataclass(frozen=True)
class GameInfo:
    """A compiled game's information (`CompiledGame.info`), as OpenSpiel declares a game's.

    - `name`, `players` (names in turn order: players[0] moves first);
    - the board: `rows`, `cols`, `cells` (rows × cols, the length of a state's board part),
      `playable_cells` (cells not blocked), `board_kind` ("square", "rect" or "hex": the board
      statement's keyword) and `wrap`;
    - the actions (`legal_actions`): every action but the pass lies in range(`action_bound`)
      (cells for placements, (origin + 1) × cells + destination for piece moves); the pass is
      action -1 and exists when `has_pass` (the stage has `pass forced`); `max_moves` bounds the
      legal moves of any position (a pass counts as one);
    - the utilities (`returns`): from `min_utility` to `max_utility`, summing to `utility_sum`
      in every outcome (0: a zero-sum game);
    - `max_length`: the most plies (moves and passes) any game of the stage lasts from its initial
      position, proved from the rules (see the module's docstring), or None where the rules set no
      bound; `length_bound` says why, in words, either way.
    """

    name: str
    players: tuple[str, ...]
    rows: int
    cols: int
    cells: int
    playable_cells: int
    board_kind: str
    wrap: bool
    action_bound: int
    has_pass: bool
    max_moves: int
    min_utility: float
    max_utility: float
    utility_sum: float | None
    max_length: int | None
    length_bound: str

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def num_distinct_actions(self) -> int:
        """OpenSpiel's count of actions: the range of action_bound, and the pass if there is one."""
        return self.action_bound + int(self.has_pass)

    @property
    def zero_sum(self) -> bool:
        return self.utility_sum == 0.0


def game_info(stage, program, initial: np.ndarray, placements_only: bool) -> GameInfo:
    """The information of a stage (its AST), lowered to `program` (program.build) with initial
    state `initial`; `placements_only`: whether every move is a placement (the actions are then
    cells)."""
    rows, cols = int(program.game[K.G_ROWS]), int(program.game[K.G_COLS])
    cells = rows * cols
    board = np.asarray(initial[:cells])
    utilities = [returns_of(outcome) for outcome in _OUTCOMES]
    sums = {sum(u) for u in utilities}
    has_pass = bool(program.game[K.G_PASS])
    max_length, why = max_length_of(program, board, has_pass)
    return GameInfo(
        name=stage.name, players=tuple(stage.player_names), rows=rows, cols=cols, cells=cells,
        playable_cells=int((board >= 0).sum()), board_kind=stage.board.keyword, wrap=bool(stage.board.wrap),
        action_bound=cells if placements_only else (cells + 1) * cells, has_pass=has_pass,
        max_moves=int(program.game[K.G_MAX_MOVES]),
        min_utility=min(min(u) for u in utilities), max_utility=max(max(u) for u in utilities),
        utility_sum=sums.pop() if len(sums) == 1 else None, max_length=max_length, length_bound=why)


def max_length_of(program, board: np.ndarray, has_pass: bool) -> tuple[int | None, str]:
    """(the most plies a game can last from the initial position `board` (its cells), or None,
    and why in words): the smallest of the bounds the rules prove (the module's docstring)."""
    bounds = [(int(n), f"every game ends by ply {int(n)} (`after {int(n)} plies`)")
              for n in program.ends[program.ends[:, K.E_CONDITION] == K.AFTER_PLIES, K.E_PARAM]]
    potential = _filling(program, board)
    if potential is None:
        potential = _advancing(program, board)
    dice_passes = potential is not None and has_pass and program.game[K.G_DICE] > 0
    if dice_passes:
        potential = None  # a throw may leave both sides without a move in turn: passes may follow passes
    if potential is not None:
        moves, how = potential
        if has_pass:
            bounds.append((2 * moves, f"{how}: at most {moves} moves, and a pass only ever before a move"))
        else:
            bounds.append((moves, f"{how}: at most {moves} moves, and no pass"))
    if not bounds and dice_passes:
        return None, ("no bound proved from the rules: the dice may leave each side without a move in turn, so "
                      "passes can follow passes for as long as the throws fall so")
    if not bounds:
        return None, ("no bound proved from the rules: no `after N plies` end, and no count that every move "
                      "lowers (pieces can come back, cells be emptied again, or new pieces bring new moves)")
    return min(bounds)


def _filling(program, board: np.ndarray) -> tuple[int, str] | None:
    """(empty cells, how) if every move fills an empty cell for good: placements and clones to an
    empty cell, with no effect that empties a cell (flips and conversions only change sides)."""
    fills = all(kind in _PLACING or (kind == K.CLONE and target == K.TARGET_EMPTY)
                for kind, target in program.rules[:, [K.R_KIND, K.R_TARGET]].tolist())
    if not fills or K.REMOVE in codes_used(program)["effects"]:
        return None
    empty = int((board == 0).sum())
    return empty, f"every move fills one of the {empty} empty cells for good"


def _advancing(program, board: np.ndarray) -> tuple[int, str] | None:
    """(the heights of the initial pieces, summed; how) if pieces only move, along graphs without a
    cycle, and never change side: no piece added (placements, clones), none flipped or converted."""
    used = codes_used(program)
    if not used["moves"] <= set(_MOVING) or used["effects"] - {K.REMOVE, K.REQUIRE}:
        return None
    total = 0
    for player in (0, 1):
        height = _heights(_edges(program, board, player), board.shape[0])
        if height is None:
            return None
        total += int(height[board == player + 1].sum())
    return total, "every move takes a piece further along paths that never come back, and no piece is added"


def _edges(program, board: np.ndarray, player: int) -> set[tuple[int, int]]:
    """The moves a piece of `player` can make, as (from, to) cells, blocked cells left out (no move
    lands on one or slides over one): one step for a step or a slide (a slide is several steps in
    one direction), the cells at the rule's distance for a jump, every cell an advance's roll can
    reach along its directions (over blocked cells) for an advance."""
    open_ = board >= 0
    edges: set[tuple[int, int]] = set()
    game = program.game
    for r in range(program.rules.shape[0]):
        if program.rules[r, K.R_KIND] == K.ADVANCE:
            reach = int(game[K.G_DICE] * game[K.G_FACES])
            for d in np.flatnonzero(program.rule_dirs[r, player]):
                for i in np.flatnonzero(open_):
                    edges.update((int(i), int(j)) for j in program.rays[d, i, : min(reach, program.ray_len[d, i])]
                                 if open_[j])
            continue
        if program.rules[r, K.R_KIND] == K.JUMP:
            for i in np.flatnonzero(open_):
                edges.update((int(i), int(j)) for j in program.dist[r, i, : program.dist_n[r, i]] if open_[j])
            continue
        for d in np.flatnonzero(program.rule_dirs[r, player]):
            to = program.nbr[d]
            steps = open_ & (to >= 0)
            steps[steps] = open_[to[steps]]
            origins = np.flatnonzero(steps)
            edges.update(zip(origins.tolist(), to[origins].tolist()))
    return edges


def _heights(edges: set[tuple[int, int]], n: int) -> np.ndarray | None:
    """int64[n]: the longest path from each cell along `edges` (0 where no edge leaves), or None if
    the edges make a cycle (Kahn's order, from the cells no edge leaves)."""
    out: list[list[int]] = [[] for _ in range(n)]
    into: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        out[i].append(j)
        into[j].append(i)
    left = [len(o) for o in out]
    height = np.zeros(n, np.int64)
    ready = [i for i in range(n) if not left[i]]
    done = 0
    while ready:
        j = ready.pop()
        done += 1
        for i in into[j]:
            height[i] = max(height[i], height[j] + 1)
            left[i] -= 1
            if not left[i]:
                ready.append(i)
    return height if done == n else None
