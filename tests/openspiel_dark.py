"""Differential test of ludica's dark games against OpenSpiel's `phantom_ttt` and `dark_hex` (issue 33).

ludica's view of each player, its history of tries and the try count are re-indexed into OpenSpiel's
observation and information-state tensors, and both engines are driven with the same tries,
comparing at every state the current player, the end, the legal actions, the returns, the try count
and both tensors of both players. The layouts are OpenSpiel v2.0's (open_spiel/games/phantom_ttt/
phantom_ttt.cc and dark_hex/dark_hex.cc at v2.0.1, run as pyspiel 2.0.2), each said where it is built.

    layout = Layout.of(spiel_game)
    tally = compare(spiel_game, game, tries=5000, seed=0)   # Tally(states, tries, games, mismatches, first)

ludica's side is the reference interpreter's DarkGame (`gdl.reference` of a stage with `hidden`):
its `view(s, p)` (0 empty, 1 the first player's piece, 2 the second's), the tries of `history(s, p)`
(`Tried`: p's own with their move, the opponent's as `Tried(q, None, None)`, only under
`announce turn-count`) and `tries(s)`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from ludica.gdl.game import Move
from ludica.gdl.interpreter import DarkGame, DarkState, Tried

TERMINAL = -4  # pyspiel.PlayerId.TERMINAL: OpenSpiel's current player once the game is over


@dataclass(frozen=True)
class Layout:
    """The tensor layout of one OpenSpiel phantom_ttt or dark_hex game, read from its parameters."""

    hex: bool
    rows: int
    cols: int
    numturns: bool  # obstype=reveal-numturns (ludica's `announce turn-count`)

    @classmethod
    def of(cls, spiel_game: Any) -> Layout:
        name, params = spiel_game.get_type().short_name, spiel_game.get_parameters()
        if name == "phantom_ttt":
            rows = cols = 3
        elif name == "dark_hex":
            rows, cols = params["num_rows"], params["num_cols"]
        else:
            raise ValueError(f"no tensor layout for OpenSpiel's {name!r}: only phantom_ttt and dark_hex")
        layout = cls(name == "dark_hex", rows, cols, params["obstype"] == "reveal-numturns")
        sizes = (layout.observation_size, layout.information_state_size)
        spiel_sizes = (spiel_game.observation_tensor_size(), spiel_game.information_state_tensor_size())
        if sizes != spiel_sizes:
            raise ValueError(f"{spiel_game}: tensor sizes {sizes} here, {spiel_sizes} in OpenSpiel")
        return layout

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def board_size(self) -> int:
        """The board block: one bit per cell and cell state (3 in tic-tac-toe, 9 in hex)."""
        return self.cells * (9 if self.hex else 3)

    @property
    def turn_slots(self) -> int:
        """The reveal-numturns tail of the observation: one slot per try count k.

        k runs from 0 to 2N-1, but phantom_ttt's tail has only 17 slots (0..16): at k = 17 (a drawn
        full board after 8 refusals, e.g. classical [0,0,1,1,2,2,4,4,3,3,5,5,7,7,6,6,8]) OpenSpiel
        writes one past the end of its 44 floats and pyspiel returns no turn bit at all (an open bug,
        still in 2.0.2; dark_hex's was fixed by PR #1047). We reproduce it: that state is still compared.
        """
        if not self.numturns:
            return 0
        return 2 * self.cells if self.hex else 2 * self.cells - 1

    @property
    def observation_size(self) -> int:
        return self.board_size + self.turn_slots

    @property
    def records(self) -> tuple[int, int]:
        """(how many, bits each) of the information state's records of tries (OpenSpiel PR #1275)."""
        return (2 * self.cells - 1, self.cells + 2) if self.numturns else (self.cells, self.cells)

    @property
    def information_state_size(self) -> int:
        count, bits = self.records
        return self.board_size + count * bits


def _cell(layout: Layout, move: Move | None) -> int:
    assert move is not None and move.dst is not None, move  # a placement: OpenSpiel has no pass
    row, col = move.dst
    return row * layout.cols + col


def _tried(game: DarkGame, state: DarkState, p: int) -> list[Tried]:
    """The tries in p's history. The other entries, boards shown to p (`Shown`), OpenSpiel never has:
    a placement's view always offers a cell that is empty in truth; `_quantities` counts them."""
    return [seen for seen in game.history(state, p) if isinstance(seen, Tried)]


def _board_block(layout: Layout, game: DarkGame, state: DarkState, p: int) -> list[float]:
    t = [0.0] * layout.board_size
    view = game.view(state, p)
    if layout.hex:
        # Cell-major [N][9], offset v+4 of hex's CellState v: the view holds only empty 0, black +1
        # and white -1 (a view cell is set once, when tried, so edge states never show), except that
        # the winner's winning stone (its last try) shows as kBlackWin +4 / kWhiteWin -4 in its view at the end.
        codes = {0: 0, 1: 1, 2: -1}
        win = None
        if game.is_terminal(state) and game.winner(state) == p:
            win = _cell(layout, [seen for seen in _tried(game, state, p) if seen.player == p][-1].move)
        for c, v in enumerate(view):
            code = codes[v] if c != win else (4 if p == 0 else -4)
            t[9 * c + code + 4] = 1.0
    else:
        # Plane-major [3][9] with tic-tac-toe's codes: 0 empty, 1 nought (o, second), 2 cross (x, first).
        codes = {0: 0, 1: 2, 2: 1}
        for c, v in enumerate(view):
            t[layout.cells * codes[v] + c] = 1.0
    return t


def observation_tensor(layout: Layout, game: DarkGame, state: DarkState, p: int) -> list[float]:
    """OpenSpiel's ObservationTensor(p) of ludica's `state`: the board block, then the turn bit."""
    t = _board_block(layout, game, state, p) + [0.0] * layout.turn_slots
    if layout.numturns:
        k = len(_tried(game, state, p))  # all tries, the opponent's announced as Tried(q, None, None)
        if k < layout.turn_slots:  # phantom_ttt at k = 17: no bit (see Layout.turn_slots)
            t[layout.board_size + k] = 1.0
    return t


def information_state_tensor(layout: Layout, game: DarkGame, state: DarkState, p: int) -> list[float]:
    """OpenSpiel's InformationStateTensor(p): the board block, then one record per try p knows of.

    reveal-nothing: p's own tries only, N bits each, bit a set. reveal-numturns: every try, N+2 bits
    each: bit 0 is the trier's id (1.0 for the second player's tries, whoever looks), then bit 1+a
    for p's own try at a, or bit 1+N ("unknown") for the opponent's.
    """
    count, bits = layout.records
    t = _board_block(layout, game, state, p) + [0.0] * (count * bits)
    off = layout.board_size
    for seen in _tried(game, state, p):
        if layout.numturns:
            t[off] = float(seen.player)
            t[off + 1 + (_cell(layout, seen.move) if seen.player == p else layout.cells)] = 1.0
        else:
            t[off + _cell(layout, seen.move)] = 1.0
        off += bits
    return t


@dataclass
class Tally:
    """What one comparison covered: states compared, tries applied, games (begun), and the states
    where the engines differed (a game is abandoned at its first); `first` describes the first."""

    states: int = 0
    tries: int = 0
    games: int = 0
    mismatches: int = 0
    first: str | None = None
    longest: int = 0  # the most tries in one game

    def add(self, other: Tally) -> None:
        self.states += other.states
        self.tries += other.tries
        self.games += other.games
        self.mismatches += other.mismatches
        self.first = self.first or other.first
        self.longest = max(self.longest, other.longest)


def _ones(t: list[float]) -> str:
    """A tensor said as the indices of its nonzero entries (all are 1.0)."""
    return "{" + ",".join(str(i) for i, x in enumerate(t) if x) + "}"


def _quantities(layout: Layout, game: DarkGame, state: DarkState, spiel_state: Any):
    """(name, ludica's value, OpenSpiel's value, how to say a value) for everything compared."""
    over = game.is_terminal(state)
    yield "current player", TERMINAL if over else game.to_move(state), spiel_state.current_player(), str
    yield "is terminal", over, spiel_state.is_terminal(), str
    yield "legal actions", [_cell(layout, m) for m in game.legal_moves(state)], spiel_state.legal_actions(), str
    yield "returns", list(game.returns(state)), spiel_state.returns(), str
    yield "tries", game.tries(state), len(spiel_state.history()), str
    for p in (0, 1):
        shown = len(game.history(state, p)) - len(_tried(game, state, p))
        yield f"boards shown to player {p}", shown, 0, str
        yield (f"observation tensor of player {p}", observation_tensor(layout, game, state, p),
               spiel_state.observation_tensor(p), _ones)
        yield (f"information state tensor of player {p}", information_state_tensor(layout, game, state, p),
               spiel_state.information_state_tensor(p), _ones)


def play(spiel_game: Any, game: DarkGame, choose: Callable[[list[int], int], int | None]) -> Tally:
    """One game on both engines, comparing every state; `choose(legal, k)` gives the k-th action
    (from OpenSpiel's legal actions), or None to stop there."""
    layout = Layout.of(spiel_game)
    state, spiel_state = game.initial_state(), spiel_game.new_initial_state()
    tally = Tally(games=1)
    actions: list[int] = []
    while True:
        tally.states += 1
        for name, ours, theirs, say in _quantities(layout, game, state, spiel_state):
            if ours != theirs:
                tally.mismatches = 1
                tally.first = (f"{spiel_game}: after actions {actions}: {name}: "
                               f"ludica {say(ours)} != OpenSpiel {say(theirs)}")
                return tally
        if spiel_state.is_terminal():
            return tally
        action = choose(spiel_state.legal_actions(), len(actions))
        if action is None:
            return tally
        move = {_cell(layout, m): m for m in game.legal_moves(state)}[action]
        state = game.apply(state, move)
        spiel_state.apply_action(action)
        actions.append(action)
        tally.tries += 1
        tally.longest = max(tally.longest, len(actions))


def compare(spiel_game: Any, game: DarkGame, tries: int, seed: int = 0) -> Tally:
    """Uniformly random games on both engines until `tries` tries have been made in all."""
    rng, total = random.Random(seed), Tally()
    while total.tries < tries:
        one = play(spiel_game, game, lambda legal, k: rng.choice(legal))
        total.add(one)
        if not one.tries:  # the initial states differ: so would every game's
            break
    return total


def replay(spiel_game: Any, game: DarkGame, actions: list[int]) -> Tally:
    """The given actions on both engines (a scripted game), comparing every state."""
    return play(spiel_game, game, lambda legal, k: actions[k] if k < len(actions) else None)
