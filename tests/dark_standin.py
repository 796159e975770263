"""A STAND-IN for ludica's hidden-information reference interpreter, until it lands on main.

It mimics the API of /work/briefs/dark-api.md (`gdl.reference(stage)` on a stage with a `hidden`
line) over the clean-room reference of /work/briefs/openspiel-dark.md (Appendix A), so that the
differential test of tests/openspiel_dark.py can be written before ludica's dark games exist.
Remove it, and its one use in tests/test_openspiel_dark.py, once the real interpreter is merged.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from ludica.gdl.game import Move

TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class Seen(NamedTuple):
    player: int
    move: Move | None
    refused: bool | None


@dataclass(frozen=True)
class State:
    board: tuple[int, ...]  # Appendix A's codes: ttt 2 x / 1 o; hex ±1..±4
    views: tuple[tuple[int, ...], tuple[int, ...]]  # dark-api codes: 0 empty, 1 first, 2 second
    seq: tuple[tuple[int, int, bool], ...]  # (player, cell, refused)
    cur: int = 0
    winner: int | None = None
    placed: int = 0


class StandIn:
    def __init__(self, text: str):
        lines = [line.split("#")[0].split() for line in text.splitlines()]
        words = {tuple(w[:2]) for w in lines if len(w) >= 2}
        board = next(w for w in lines if w and w[0] == "board")
        self.hex, self.size = board[1] == "hex", int(board[2])
        self.abrupt = ("refused", "lose-turn") in words
        self.numturns = ("announce", "turn-count") in words
        self.C, self.N = self.size, self.size * self.size

    def initial_state(self) -> State:
        return State((0,) * self.N, ((0,) * self.N, (0,) * self.N), ())

    def is_terminal(self, s: State) -> bool:
        return s.winner is not None or (not self.hex and s.placed == self.N)

    def to_move(self, s: State) -> int:
        return s.cur

    def winner(self, s: State) -> int | None:
        return s.winner

    def returns(self, s: State) -> tuple[float, float]:
        return (0.0, 0.0) if s.winner is None else ((1.0, -1.0) if s.winner == 0 else (-1.0, 1.0))

    def legal_moves(self, s: State) -> list[Move]:
        if self.is_terminal(s):
            return []
        return [Move(None, divmod(a, self.C)) for a in range(self.N) if s.views[s.cur][a] == 0]

    def view(self, s: State, p: int) -> tuple[int, ...]:
        return s.views[p]

    def tries(self, s: State) -> int:
        return len(s.seq)

    def history(self, s: State, p: int) -> tuple[Seen, ...]:
        return tuple(Seen(q, Move(None, divmod(a, self.C)), refused) if q == p else Seen(q, None, None)
                     for q, a, refused in s.seq if q == p or self.numturns)

    def _nbrs(self, c: int) -> list[int]:
        C, N = self.C, self.N
        n, s, w, e = c < C, c >= N - C, c % C == 0, c % C == C - 1
        out = []
        if not n:
            out.append(c - C)
        if not n and not e:
            out.append(c - C + 1)
        if not e:
            out.append(c + 1)
        if not s:
            out.append(c + C)
        if not s and not w:
            out.append(c + C - 1)
        if not w:
            out.append(c - 1)
        return out

    def _hex_place(self, b: list[int], p: int, c: int) -> int:
        C, N = self.C, self.N
        if p == 0:
            a = c < C
            z = (not a) and c >= N - C
            for m in self._nbrs(c):
                a, z = a or b[m] == 3, z or b[m] == 2
            st, plain = (4 if a and z else 3 if a else 2 if z else 1), 1
        else:
            a = c % C == 0
            z = (not a) and c % C == C - 1
            for m in self._nbrs(c):
                a, z = a or b[m] == -3, z or b[m] == -2
            st, plain = (-4 if a and z else -3 if a else -2 if z else -1), -1
        b[c] = st
        if abs(st) != 4 and st != plain:
            stack = [c]
            while stack:
                x = stack.pop()
                for m in self._nbrs(x):
                    if b[m] == plain:
                        b[m] = st
                        stack.append(m)
        return st

    def apply(self, s: State, move: Move) -> State:
        assert move.dst is not None
        p, a = s.cur, move.dst[0] * self.C + move.dst[1]
        assert not self.is_terminal(s) and s.views[p][a] == 0
        board, winner, placed, cur = list(s.board), s.winner, s.placed, s.cur
        refused = board[a] != 0
        if not refused:
            if self.hex:
                if abs(self._hex_place(board, p, a)) == 4:
                    winner = p
            else:
                board[a] = 2 if p == 0 else 1
                if any(all(board[i] == board[a] for i in line) for line in TTT_LINES if a in line):
                    winner = p
            placed += 1
            cur = 1 - p
        elif self.abrupt:
            cur = 1 - p
        view = list(s.views[p])
        view[a] = p + 1 if not refused else 2 - p
        views = (tuple(view), s.views[1]) if p == 0 else (s.views[0], tuple(view))
        return replace(s, board=tuple(board), views=views, seq=s.seq + ((p, a, refused),),
                       cur=cur, winner=winner, placed=placed)
