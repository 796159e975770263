"""Worlds a player cannot tell apart (gdl/interpreter/worlds.py): `worlds` finds exactly the positions
consistent with a player's history (checked against every position the game reaches, enumerated
whole, on phantom tic-tac-toe), the true position is always one of them, and `sample_world` can draw
each of them."""
from __future__ import annotations

import random

import pytest

from ludica import gdl
from ludica.gdl.interpreter import DarkGame
from ludica.gdl.interpreter.worlds import NoWorldFound, sample_world, worlds

from bundled import dark_text



def game_of(refused: str, announce: bool | str) -> DarkGame:
    """Phantom tic-tac-toe; `announce`: True (turn-count), or the announcement lines' words."""
    words = ("turn-count",) if announce is True else tuple(announce.split()) if announce else ()
    game = gdl.reference(gdl.loads(dark_text("phantom-tic-tac-toe", refused, words)))
    assert isinstance(game, DarkGame)
    return game


def reachable(game: DarkGame, tries: int) -> list:
    """Every position the game reaches in at most `tries` tries (each path its own position)."""
    level, out = [game.initial_state()], [game.initial_state()]
    for _ in range(tries):
        level = [game.apply(s, m) for s in level if not game.is_terminal(s) for m in game.legal_moves(s)]
        out += level
    return out


def random_play(game: DarkGame, tries: int, seed: int):
    rng, state = random.Random(seed), game.initial_state()
    for _ in range(tries):
        if game.is_terminal(state):
            break
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    return state


@pytest.mark.parametrize("refused", ["retry", "lose-turn"])
@pytest.mark.parametrize("announce", [False, True, "refusals", "turn-count refusals"],
                         ids=["reveal-nothing", "turn-count", "refusals", "turn-count-refusals"])
def test_the_worlds_are_exactly_the_positions_the_player_cannot_tell_apart(refused, announce):
    game = game_of(refused, announce)
    everything = reachable(game, 4)
    checked = 0
    for seed in range(40):
        truth = random_play(game, random.Random(seed).randrange(1, 5), seed)
        if game.is_terminal(truth):
            continue
        player = game.to_move(truth)
        history = game.history(truth, player)
        found = worlds(game, history, player)
        assert truth in found
        for world in found:
            assert game.history(world, player) == history and game.to_move(world) == player
        # every position up to 4 tries that the player cannot tell from the truth is found
        alike = {s for s in everything if game.history(s, player) == history and game.to_move(s) == player
                 and not game.is_terminal(s) and game.tries(s) <= 4}
        assert alike <= set(found)
        checked += 1
    assert checked >= 20


def test_sample_world_can_draw_every_world():
    game = game_of("retry", False)
    truth = random_play(game, 3, seed=2)
    player = game.to_move(truth)
    history = game.history(truth, player)
    every = set(worlds(game, history, player))
    assert len(every) > 3
    drawn = {sample_world(game, history, player, random.Random(seed), guided=False) for seed in range(60 * len(every))}
    assert drawn == every  # the search reaches every world; the guided order keeps every order possible (below)


def test_the_guided_order_can_put_any_try_first():
    from ludica.gdl.interpreter.worlds import _hints, _ordered
    game = game_of("retry", False)
    truth = random_play(game, 3, seed=2)
    player = game.to_move(truth)
    history = game.history(truth, player)
    world = sample_world(game, history, player, random.Random(1))
    other = game.apply(world, game.legal_moves(world)[0])  # the opponent to move
    tries = game.legal_moves(other)
    rng = random.Random(5)
    firsts = {_ordered(game, other, list(tries), _hints(game, history, player), 0, rng)[0] for _ in range(20_000)}
    assert firsts == set(tries)


def test_dark_hex_mid_game_worlds_are_found_by_the_guided_search():
    game = gdl.reference(gdl.loads('game "h"\nboard hex 7\nplayers red blue\nmove place empty\n'
                                   'end connect top-bottom left-right: mover wins\nhidden opponent-pieces\n'
                                   'refused retry\n'))
    truth = random_play(game, 30, seed=1)
    player = game.to_move(truth)
    world = sample_world(game, game.history(truth, player), player, random.Random(0))
    assert game.history(world, player) == game.history(truth, player)


def test_a_history_the_game_cannot_give_has_no_world():
    game = game_of("retry", False)
    truth = random_play(game, 2, seed=1)
    player = game.to_move(truth)
    history = game.history(truth, player)
    forged = history + history[:1]  # the same first try again: the player cannot have made it twice
    with pytest.raises(NoWorldFound):
        sample_world(game, forged, player, random.Random(0))


def test_the_search_is_bounded_and_says_so():
    game = gdl.reference(gdl.loads(dark_text("phantom-tic-tac-toe").replace("square 3", "square 5")
                                   .replace("line 3", "line 4")))
    truth = random_play(game, 14, seed=3)
    player = game.to_move(truth)
    with pytest.raises(NoWorldFound, match="within .* tries of search"):
        sample_world(game, game.history(truth, player), player, random.Random(0), budget=3)
