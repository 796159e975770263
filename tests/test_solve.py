"""The exact solver (compiler/solve.py, CompiledGame.solve) against what is known of tic-tac-toe and
against a solver written apart on the reference interpreter: another enumeration of the positions
(gdl.reference) and another algorithm (value iteration from "a draw everywhere" until nothing
changes: after d rounds a position is won exactly when its side can force a win within d plies,
so the fixpoint is the value), on tiny stages with every turn order, passes, captures that remove,
pieces that move back and forth (positions that repeat) and an end that reads the ply."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ludica import compiler, gdl, stages
from ludica.gdl import ast as A
from ludica.gdl.parser import parse


def stage(text: str) -> A.Stage:
    return parse(textwrap.dedent(text))


def reference_solution(s: A.Stage) -> tuple[int, int, tuple[int, ...]]:
    """(positions, the first player's value, the values of the first choice's moves for the side
    choosing), from the reference interpreter."""
    game = gdl.reference(s)
    keep_ply = any(isinstance(e.condition, A.AfterPlies) for e in s.ends)

    def key(state):
        return state.cells, state.to_move, state.mover, state.ply if keep_ply else 0

    start = game.initial_state()
    states, children, outcome = {key(start): start}, {}, {}
    todo = [start]
    while todo:
        state = todo.pop()
        k = key(state)
        if game.is_terminal(state):
            won = game.winner(state)
            outcome[k] = 0 if won is None else (1 if won == state.to_move else -1)
            continue
        children[k] = []
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            children[k].append((key(child), 1 if child.to_move == state.to_move else -1))
            if key(child) not in states:
                states[key(child)] = child
                todo.append(child)
    value = {k: outcome.get(k, 0) for k in states}
    while True:
        new = {k: outcome[k] if k in outcome else max(sign * value[c] for c, sign in children[k]) for k in states}
        if new == value:
            break
        value = new
    k, seen = key(start), set()
    while k in children and len(children[k]) == 1 and k not in seen:
        seen.add(k)
        k = children[k][0][0]
    choices = tuple(sign * value[c] for c, sign in children.get(k, ())) if len(children.get(k, ())) > 1 else ()
    return len(states), value[key(start)] * (1 if start.to_move == 0 else -1), choices


TINY = {
    "line on 2x3": """
        board rect 2 3
        players a b
        move place empty
        end line 2: mover wins
        end board-full: draw
    """,
    "pieces going back and forth": """
        board rect 1 4
        players a b
        setup a a1
        setup b d1
        move step orthogonal to empty
        move step orthogonal to enemy
        end no-pieces: mover wins
        end after 1000 plies: draw
    """,
    "no cap, positions repeat, a draw": """
        board rect 2 5
        players a b
        setup a a1
        setup b e2
        move step orthogonal to any
        end no-moves: mover loses
        end no-pieces: mover wins
    """,  # a capture wins, yet neither side can force one: play goes round for ever
    "the first player loses": """
        board rect 1 5
        players a b
        setup a a1
        setup b e1
        move step e w to empty
        move step e w to enemy
        end no-pieces: mover wins
    """,
    "again after a capture": """
        board rect 1 5
        players a b
        move place empty
          remove custodial all
        turn again-after-capture
        end board-full: most-pieces
        end after 12 plies: most-pieces
    """,
    "fewer pieces continue, forced passes": """
        board rect 2 3
        players a b
        setup a a1
        setup b c2
        move place empty
          flip custodial all
          require capture
        move place adjacent
        turn fewer-pieces
        pass forced
        end no-moves: fewest-pieces
    """,
    "forced moves round for ever": """
        board rect 1 4 wrap
        players a b
        setup a a1
        setup b c1
        move step e to empty
        end no-pieces: mover wins
    """,
    "after three plies": """
        board square 2
        players a b
        move place empty
        end after 3 plies: most-pieces
    """,
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_the_solver_agrees_with_value_iteration_on_the_reference_interpreter(name):
    s = stage(TINY[name])
    found = compiler.compile(s).solve(100_000)
    positions, value, choices = reference_solution(s)
    assert found.solved
    assert (found.positions, found.value, found.choices) == (positions, value, choices)


def test_the_tiny_stages_cover_what_they_say():
    values = {name: compiler.compile(stage(text)).solve(100_000) for name, text in TINY.items()}
    assert len({v.value for v in values.values()}) == 3  # wins, draws and losses among them
    assert any(len(set(v.choices)) > 1 for v in values.values())  # a first choice that matters
    assert values["forced moves round for ever"].choices == ()  # never a choice


def test_tic_tac_toe_is_a_draw_whatever_the_first_move_and_misere_needs_the_centre():
    ttt = compiler.compile(gdl.load(stages.path("tic-tac-toe"))).solve(100_000)
    assert ttt == compiler.Solution(True, 0, (0,) * 9, 5478)  # 5,478: the legal positions of tic-tac-toe
    misere = compiler.compile(gdl.load(stages.path("misere-tic-tac-toe"))).solve(100_000)
    assert misere.value == 0 and misere.choices == (-1,) * 4 + (0,) + (-1,) * 4


def test_a_game_beyond_the_budget_is_not_solved():
    game = compiler.compile(gdl.load(stages.path("tic-tac-toe")))
    assert game.solve(5478).solved
    found = game.solve(5477)
    assert found == compiler.Solution(False, None, (), 5478)
    with pytest.raises(ValueError):
        game.solve(0)


def test_issue_20s_toys_have_the_positions_a_listing_through_the_api_finds(monkeypatch):
    """benchmarks/solver_positions.py: the three 9-cell fresh stages that held 68% of the weight of
    issue 20's set, solved, every first move the same value, and each of their positions found
    again by a plain listing through the public API (what an agent could do in its analysis)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import solver_positions

    for name in list(solver_positions.FRESH)[:3]:
        game = compiler.compile(gdl.loads(solver_positions.FRESH[name]))
        found = game.solve(100_000)
        assert found.solved and len(set(found.choices)) == 1, (name, found)
        assert found.positions == solver_positions.listing(game)
