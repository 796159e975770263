"""Hidden information in the reference interpreter (gdl/interpreter/information.py): a stage with
`hidden` played as tries on its true game, and what each player knows.

The semantics are docs/language.md's "Information"; OpenSpiel's own phantom_ttt and dark_hex are
compared try for try in tests/test_openspiel_dark.py. Here: worked examples, the rules no peer
defines (refused tries not offered again, the board shown when a view offers nothing), and the
properties that make a hidden stage honest, over random stages: a player's observations and tries
are a function of its history alone (no leak), and its history only grows (perfect recall).
"""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludica import gdl, stages
from ludica.gdl import ast as A
from ludica.gdl.checks import check_stage
from ludica.gdl.game import Move
from ludica.gdl.interpreter import DarkGame, DarkState, ReferenceGame, Shown, Tried, reference
from ludica.gdl.interpreter.information import Captured, Try

from bundled import dark_text
from strategies import playable_stages



def phantom(refused: str = "retry", announce: bool = False) -> DarkGame:
    game = reference(gdl.loads(dark_text("phantom-tic-tac-toe", refused, ("turn-count",) if announce else ())))
    assert isinstance(game, DarkGame)
    return game


def play(game, *moves: str):
    state = game.initial_state()
    for text in moves:
        state = game.apply(state, Move.parse(text))
    return state


# --- worked examples ------------------------------------------------------------------------------


def test_a_refused_try_is_retried_and_shows_the_cell():
    """OpenSpiel's phantom_ttt after x b2, o b2 (refused), o a1: o tried twice, x cannot tell."""
    game = phantom()
    state = play(game, "b2", "b2")
    assert game.to_move(state) == 1  # o tries again
    assert game.view(state, 1) == (0, 0, 0, 0, 1, 0, 0, 0, 0)  # and now sees the x on b2
    assert "b2" not in map(str, game.legal_moves(state))
    state = game.apply(state, Move.parse("a1"))
    assert game.to_move(state) == 0
    assert game.view(state, 0) == (0, 0, 0, 0, 1, 0, 0, 0, 0)  # x saw nothing of o's two tries
    assert game.history(state, 0) == (Tried(0, Move.parse("b2"), False, ((4, 1),)),)
    assert game.history(state, 1) == (Tried(1, Move.parse("b2"), True, ((4, 1),)),  # refused: b2 holds x's piece
                                      Tried(1, Move.parse("a1"), False, ((0, 2),)))
    assert game.tries(state) == 3


def test_a_refused_try_loses_the_turn_under_lose_turn():
    game = phantom("lose-turn")
    state = play(game, "b2", "b2")
    assert game.to_move(state) == 0
    assert game.view(state, 1)[4] == 1
    assert game.history(state, 0) == (Tried(0, Move.parse("b2"), False, ((4, 1),)),)  # x cannot tell o tried
    # o's refused b2 stays refused until one of its tries is played, though x moved in between
    state = game.apply(state, Move.parse("a1"))
    assert "b2" not in map(str, game.legal_moves(state))


def test_announce_turn_count_tells_each_player_of_the_others_tries():
    game = phantom(announce=True)
    state = play(game, "b2", "b2", "a1")
    assert game.history(state, 0) == (Tried(0, Move.parse("b2"), False, ((4, 1),)), Tried(1, None, None),
                                      Tried(1, None, None))
    assert game.observe(state, 0)[4].tolist() == [[3] * 3] * 3  # the turn-count plane
    assert game.observe(state, 0).shape == (5, 3, 3)
    assert phantom().observe(state, 0).shape == (4, 3, 3)


def test_announce_refusals_tells_each_player_of_the_others_refused_tries_with_their_fate():
    """x b2, o b2 (refused), o a1: x is told o had a try refused (not which), then nothing of o's a1;
    with turn-count too, x is told of both of o's tries, each with its fate. The plane counts them."""
    base = dark_text("phantom-tic-tac-toe")
    game = gdl.reference(gdl.loads(base + "announce refusals\n"))
    state = play(game, "b2", "b2", "a1")
    assert game.history(state, 0) == (Tried(0, Move.parse("b2"), False, ((4, 1),)), Tried(1, None, True, ()))
    assert game.observe(state, 0)[4].max() == 1 and game.observe(state, 1)[4].max() == 1
    both = gdl.reference(gdl.loads(base + "announce turn-count\nannounce refusals\n"))
    state = play(both, "b2", "b2", "a1")
    assert both.history(state, 0)[1:] == (Tried(1, None, True, ()), Tried(1, None, False, ()))
    assert [both.observe(state, 0)[k].max() for k in (4, 5)] == [3, 1]


CUSTODIAN_DARK = """game "Dark custodian"
board square 4
players x o
setup x a1 d1
setup o b1
move step orthogonal to empty
  remove custodial orthogonal
end no-pieces: mover wins
end after 40 plies: draw
hidden opponent-pieces
refused retry
announce captures
"""


def test_announce_captures_tells_both_players_how_many_pieces_a_move_took():
    """x's d1-c1 encloses o's b1 with a1: taken. Both players are told, with the count and not where
    (o would have seen its piece go anyway; x sees it by its move); a move that takes nothing tells
    nothing; the plane adds the counts; the entry crosses to an agent in its array and back."""
    from ludica.compiler import knowledge

    game = gdl.reference(gdl.loads(CUSTODIAN_DARK))
    quiet = play(game, "d1-d2")
    assert not any(isinstance(e, Captured) for p in (0, 1) for e in game.history(quiet, p))
    state = play(game, "d1-c1")
    n = game.rows * game.cols
    for p in (0, 1):
        history = game.history(state, p)
        assert history[-1] == Captured(0, 1), history
        assert game.observe(state, p)[4].max() == 1
        info = knowledge.encode(game.view(state, p), history, p, game.to_move(state), game.cols)
        assert knowledge.decode(info, n, game.cols) == (p, history)
    told = gdl.reference(gdl.loads(CUSTODIAN_DARK.replace("announce captures\n", "")))
    assert not any(isinstance(e, Captured) for e in told.history(play(told, "d1-c1"), 1))


def test_ends_are_judged_on_the_truth_and_returns_are_the_bases():
    game = phantom()
    # x: a1 b1 c1 (o's tries elsewhere, never refused): x wins although o never saw a piece of x
    state = play(game, "a1", "a3", "b1", "b3", "c1")
    assert game.is_terminal(state) and game.winner(state) == 0 and game.returns(state) == (1.0, -1.0)
    assert game.legal_moves(state) == []
    assert game.view(state, 1) == (0, 0, 0, 0, 0, 0, 2, 2, 0)


def test_a_move_that_is_not_a_try_is_refused_by_the_rule_not_a_crash():
    game = phantom()
    state = play(game, "b2")
    with pytest.raises(ValueError, match="not a try of the player to move: 'b2'"):
        game.apply(play(game, "b2", "b2"), Move.parse("b2"))  # known occupied: not a try any more
    with pytest.raises(ValueError, match="not a try"):
        game.apply(state, Move.parse("b2-b3"))


# --- what a player sees of the other's pieces ----------------------------------------------------

CAPTURES = """
game "Dark captures"
board rect 1 4
players a b
setup a b1
setup b c1 d1
move step e w to any
end no-pieces: mover wins
end after 12 plies: draw
hidden opponent-pieces
refused retry
"""


def test_a_capture_of_your_piece_is_seen_and_the_capturer_sees_what_it_changed():
    game = reference(gdl.loads(CAPTURES))
    state = game.initial_state()
    assert game.view(state, 0) == game.view(state, 1) == (0, 1, 2, 2)  # the start is public
    state = play(game, "b1-a1", "c1-b1")
    assert game.view(state, 0) == (1, 0, 2, 2)  # a did not see b come next to it
    assert game.view(state, 1) == (0, 2, 0, 2)  # b saw its own move, not where a went
    state = game.apply(state, Move.parse("a1-b1"))  # a steps onto what it thinks is empty: a capture
    assert game.view(state, 0) == (0, 1, 2, 2)  # a sees the cells its move changed, c1 still stale
    assert game.view(state, 1) == (0, 1, 0, 2)  # b sees the piece that took its own
    assert game.history(state, 1)[-1] == Tried(0, None, None, ((1, 1),))  # and so knows a try was made
    assert game.board(state).ravel().tolist() == [0, 1, 0, 2]


def test_a_view_that_offers_no_try_while_the_truth_has_one_is_shown_the_board():
    stage = gdl.loads("""
        game "Stale"
        board rect 1 3
        players a b
        setup a a1
        move step e w to empty
        move place empty
        end after 6 plies: draw
        hidden opponent-pieces
        refused retry
    """.replace("\n        ", "\n"))
    game = reference(stage)
    truth = game.base.initial_state()
    # a believes b1 and c1 hold b's pieces; in truth they are empty: its view offers nothing
    stale = DarkState(truth, ((1, 2, 2), truth.cells))
    settled = game._settled(stale)
    assert settled.record == (Shown(0, truth.cells),) and game.history(settled, 0) == (Shown(0, truth.cells),)
    assert game.view(settled, 0) == truth.cells
    assert [str(m) for m in game.legal_moves(settled)] == ["b1", "c1", "a1-b1"]


def test_a_forced_pass_is_the_only_try_of_a_player_without_a_true_move():
    stage = gdl.loads("""
        game "Dark Othello 4x4"
        board square 4
        players black white
        setup black b3 c2
        setup white b2 c3
        move place empty
          flip custodial all
          require capture
        pass forced
        end no-moves: most-pieces
        hidden opponent-pieces
        refused retry
    """.replace("\n        ", "\n"))
    game, rng = reference(stage), random.Random(3)
    passes = 0
    for _ in range(200):
        state = game.initial_state()
        while not game.is_terminal(state):
            tries = game.legal_moves(state)
            if any(m.is_pass for m in tries):
                assert tries == [gdl.PASS]
                assert game.base.available_moves(state.truth).keys() == {gdl.PASS}
                passes += 1
            state = game.apply(state, rng.choice(tries))
    assert passes > 0


# --- properties over random stages -----------------------------------------------------------------

INFORMATION = st.fixed_dictionaries({"hidden": st.just(A.OpponentPieces()),
                                     "refused": st.sampled_from([A.Retry(), A.LoseTurn()]),
                                     "announce": st.sampled_from([(), (A.TurnCount(),), (A.AnnouncedCaptures(),)]),
                                     "reveal": st.sampled_from([(), (A.RevealAdjacent(),), (A.RevealCapture(),),
                                                                (A.RevealReachable(),)])})


def _dark_stages():
    return st.tuples(playable_stages(max_side=5), INFORMATION).map(lambda t: replace(t[0], **t[1])).filter(
        lambda s: not any(d.is_error for d in check_stage(s)))


def _games(game: DarkGame, n: int, seed: int, longest: int = 400):
    """Random games, as the list of their states."""
    rng = random.Random(seed)
    for _ in range(n):
        state, states = game.initial_state(), []
        states.append(state)
        while not game.is_terminal(state) and len(states) < longest:
            tries = game.legal_moves(state)
            if not tries:
                break
            state = game.apply(state, rng.choice(tries))
            states.append(state)
        yield states


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(_dark_stages())
def test_what_a_player_is_told_depends_on_its_history_alone(stage):
    """Two states with the same history for a player give it the same view, observation and, on its
    turn, the same tries; and a history only grows (perfect recall)."""
    game = reference(stage)
    assert isinstance(game, DarkGame)
    known: dict = {}
    for states in _games(game, 12, seed=1):
        for before, after in zip(states, states[1:]):
            for p in (0, 1):
                old, new = game.history(before, p), game.history(after, p)
                assert new[:len(old)] == old, "a player forgot part of its history"
        for state in states:
            for p in (0, 1):
                mine = game.to_move(state) == p and not game.is_terminal(state)
                told = (game.view(state, p), game.observe(state, p).tobytes(),
                        tuple(game.legal_moves(state)) if mine else None)
                key = (p, game.history(state, p), mine)
                assert known.setdefault(key, told) == told, "a player was told something its history does not say"


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(_dark_stages())
def test_the_true_game_is_a_game_of_the_base(stage):
    """Every played try is a legal move of the base on the true position, a refused one is not, and
    a turn has at most as many tries as the base has moves (so every game ends)."""
    game = reference(stage)
    base = game.base
    assert isinstance(base, ReferenceGame)
    for states in _games(game, 8, seed=2):
        run = 0
        for before, after in zip(states, states[1:]):
            event = next(e for e in reversed(after.record) if isinstance(e, Try))
            legal = base.available_moves(before.truth)
            assert (event.move in legal) is (not event.refused)
            if not event.refused:
                assert after.truth == base.apply(before.truth, event.move)
                run = 0
            else:
                assert after.truth.cells == before.truth.cells
                run += 1
                assert run <= 2 * base.topology.size ** 2, "a turn that never ends"


def test_a_perfect_information_stage_is_played_as_before():
    assert isinstance(reference(gdl.load(stages.path("tic-tac-toe"))), ReferenceGame)
