"""The playthrough format of tests/golden/playthroughs/: one game, every position with its legal
moves, the move played with what it took, the board after it, and the final returns."""
from __future__ import annotations

from collections.abc import Callable

from ludica import gdl


def record(game, header: str, choose: Callable) -> str:
    """Play `game` from its initial state, `choose(legal_moves) -> move` picking each move."""
    state = game.initial_state()
    out = [header, "board", gdl.render(game, state)]
    while not game.is_terminal(state):
        legal = game.legal_moves(state)
        move = choose(legal)
        out.append(f"legal {' '.join(map(str, legal))}")
        state, taken = game.apply_counted(state, move)
        out += [f"move {move} taken {taken}", "board", gdl.render(game, state)]
    out.append(f"returns {' '.join(f'{r:+g}' for r in game.returns(state))}")
    return "\n".join(out) + "\n"


def replay(game, text: str) -> str:
    """The same file rebuilt by replaying its recorded moves on `game` (any Game implementation)."""
    lines = text.splitlines()
    moves = iter(game.parse_move(line.split()[1]) for line in lines if line.startswith("move "))
    return record(game, lines[0], lambda legal: next(moves, None) or legal[0])
