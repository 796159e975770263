"""The sampler end to end (sampler/): degenerate stages each rejected by the filter built to catch
them, duplicates under symmetry and colours, variant sets reproducible to the byte whatever the
number of processes, accepted stages valid on both engines, and `ludica sample`."""
from __future__ import annotations

import filecmp
import json
import math
import os
import statistics
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from ludica import compiler, gdl, sampler
from ludica.cli import main
from ludica.gdl import ast as A
from ludica.gdl import bits as B
from ludica.gdl.conformance import check_game
from ludica.gdl.parser import parse
from ludica.gdl.printer import format as fmt
from ludica.sampler import divergence, edits, screen, symmetry
from ludica.sampler.prior import generator

STAGES = Path(__file__).resolve().parents[1] / "stages"


def stage(text: str) -> A.Stage:
    return parse(textwrap.dedent(text))


# --- each filter rejects a stage built to fail it --------------------------------------------------

DEGENERATE = {
    "first move": """
        board square 4
        players a b
        setup a a1
        setup b d4
        move place empty
          flip custodial all
          require capture
        end no-moves: most-pieces
    """,  # no capture anywhere: the game is over before it starts
    "length": """
        board square 4
        players a b
        move place empty
        end after 1 plies: draw
    """,  # ends at once
    "completion": """
        board square 4
        players a b
        setup a a1
        setup b d4
        move step orthogonal to empty
        end no-pieces: mover loses
    """,  # pieces wander for ever: no game ends within the cap
    "balance": """
        board square 3
        players a b
        move place empty
        end after 3 plies: mover wins
    """,  # the first mover always wins
    "solved": """
        board rect 1 6
        players a b
        move place empty
          flip custodial all
        end board-full: most-pieces
    """,  # balanced at random, but 311 positions in all: solved outright
    "mc play": """
        board square 7 wrap
        players black white
        forward black up, white up
        setup black e6..e2 c6
        setup white g3
        move place empty
        move slide nw to any
        pass forced
        end connect top-bottom left-right: mover wins
    """,  # issue 20's fresh stage: 73 of its 75 first moves lose at ply 2, yet random play is balanced
    "draws": """
        board square 4
        players a b
        move place empty
        end board-full: most-pieces
    """,  # eight pieces each, every game
    "mc skill": """
        board square 4
        players a b
        move place empty
          flip custodial all
        end board-full: most-pieces
    """,  # a game of skill, but a Monte-Carlo player with one random game a move plays at random
}
FILTERS_FOR = {"mc skill": screen.Filters(mc_samples=1)}


@pytest.mark.parametrize("expected", sorted(DEGENERATE))
def test_each_filter_rejects_the_stage_built_to_fail_it(expected):
    found = screen.screen(stage(DEGENERATE[expected]), FILTERS_FOR.get(expected, screen.Filters()))
    assert found.rejected_by == expected, (found.rejected_by, found.reason)
    assert found.reason
    for name in screen.FILTERS[: screen.FILTERS.index(expected)]:  # every cheaper filter kept its figure
        assert name in found.figures, name


def test_the_decided_opening_is_what_it_says():
    game = compiler.compile(stage(DEGENERATE["mc play"]))
    start = game.initial_state()
    lost = 0
    for action in game.legal_actions(start):
        child = game.apply_action(start, action)
        replies = (game.apply_action(child, a) for a in game.legal_actions(child))
        lost += any(game.winner(r) == 1 for r in replies)
    assert (len(game.legal_actions(start)), lost) == (75, 73)
    assert 0.15 <= screen.screen(stage(DEGENERATE["mc play"])).figures["balance"] <= 0.85


@pytest.mark.parametrize("name", ["mc play", "mc skill", "6x6"])
def test_mc_play_stops_early_with_the_verdict_of_all_its_games(name):
    s = gdl.load(STAGES / "small-board-6x6.gdl") if name == "6x6" else stage(DEGENERATE[name])
    f = screen.Filters()
    game = compiler.compile(s)
    early = screen.play(game, f.cap(s), f)
    every = game.games(f.play_games, 1, ("mc", "mc"), f.cap(s), samples=f.mc_samples)
    first, drawn = screen._score(every.winners, 0) / f.play_games, float(screen._drawn(every.winners).mean())
    low, high = f.balance
    assert early["games"] < f.play_games  # it did stop early
    assert (low <= early["first seat"] <= high and early["draws"] <= f.max_draws) == \
        (low <= first <= high and drawn <= f.max_draws)


SKILFUL = {
    "connection": """
        board hex 5
        players black white
        forward black down
        move place gravity
        turn fewer-pieces
        end connect left-right left-right: fewest-pieces
    """,
    "misère connection": """
        board hex 6 wrap
        blocked f5
        players black white
        forward white up
        move place gravity
        turn fewer-pieces
        end connect left-right left-right: mover loses
    """,
    "misère line": """
        board square 4
        players a b
        move place empty
        end line 3: mover loses
        end board-full: draw
    """,
}


@pytest.mark.parametrize("name", sorted(SKILFUL))
def test_connection_and_misere_games_show_monte_carlo_skill(name):
    """Games in which material and mobility say little: fresh candidates of issue 20's kind (the first
    two), which "greedy skill" or "search skill" rejected, as they did the misère line."""
    s = stage(SKILFUL[name])
    game, f = compiler.compile(s), screen.Filters()
    figure = screen.skill(game, f.cap(s), f)
    assert screen.skilled(figure, f), figure


def test_a_playable_stage_passes_with_every_figure():
    found = screen.screen(gdl.load(STAGES / "small-board-6x6.gdl"))
    assert found.rejected_by is None, found.reason
    assert set(screen.FILTERS) <= set(found.figures)
    assert found.tau > 0 and found.fingerprint


def test_unfiltered_screening_measures_tau_and_rejects_nothing():
    found = screen.screen(stage(DEGENERATE["length"]), screen.NO_FILTERS)
    assert found.rejected_by is None and found.tau is not None


# --- duplicates --------------------------------------------------------------------------------------

OTHELLO = gdl.load(STAGES / "standard-8x8.gdl")


def test_a_rotated_recoloured_rewritten_stage_is_the_same_game():
    rotated = replace(OTHELLO, setup=(A.Setup("black", (A.Cell(3, 3), A.Cell(4, 4))),
                                      A.Setup("white", (A.Cell(3, 4), A.Cell(4, 3)))))  # a quarter turn
    recoloured = symmetry.relabelled(rotated, ("white", "black"))  # the same positions, other names
    rewritten = replace(OTHELLO, board=A.RectBoard(8, 8), name="something else",
                        moves=(A.MoveRule(A.PlaceEmpty(), (A.FlipCustodial(A.Directions(("orthogonal", "diagonal"))),
                                                           A.RequireCapture())),))
    key = symmetry.canonical_key(OTHELLO)
    assert symmetry.canonical_key(rotated) == key
    assert symmetry.canonical_key(recoloured) == key
    # `all` and `orthogonal diagonal` are other words for one rule: the same random games say so
    # (symmetric positions play other random games: the key sees those)
    assert screen.screen(rewritten, screen.NO_FILTERS).fingerprint == screen.screen(OTHELLO, screen.NO_FILTERS).fingerprint
    assert symmetry.canonical_key(gdl.load(STAGES / "reverse-othello.gdl")) != key
    split = gdl.load(STAGES / "othello-split-setup.gdl")
    assert symmetry.canonical_key(split) != key


def test_rules_in_another_order_can_be_another_game():
    a = stage("""
        board square 4
        players x o
        setup x b2 c3
        setup o b3 c2
        move place empty
          flip custodial all
          require capture
        move place empty
        end board-full: most-pieces
    """)  # d2 flips c2 here; with the rules the other way round it places without flipping
    assert symmetry.canonical_key(a) != symmetry.canonical_key(replace(a, moves=a.moves[::-1]))


def test_a_policy_cap_needs_no_ended_game():
    never_ends = stage(DEGENERATE["completion"])
    found = screen.screen(never_ends, screen.Filters(min_completion=0.0, max_draws=1.0))
    assert found.rejected_by is not None and found.figures["completion"] == 0.0


def test_variants_keep_to_their_limits_and_a_resize_and_back_is_no_change():
    small = replace(edits.VARIANT_LIMITS, max_cells=64)
    for i in range(400):
        e = edits.edit(OTHELLO, generator(8, i), "arena", small)
        if e.stage is not None and e.rejected is None:
            assert e.stage.board.rows * e.stage.board.cols <= 64
    grown = edits._board_size(_Sides(9), OTHELLO, "arena")
    back = edits._board_size(_Sides(8), grown, "arena")
    assert back.setup == OTHELLO.setup


class _Sides:
    """A coder that answers every side with one value (the edit's other fields are not read)."""

    def __init__(self, n: int):
        self.n = n

    def side(self, value):
        return self.n


def test_gravity_keeps_down_and_hex_keeps_its_rhombus():
    c4 = gdl.load(STAGES / "connect-four.gdl")
    assert len(symmetry.symmetries(c4)) == 2  # the identity and the left-right mirror
    assert len(symmetry.symmetries(gdl.load(STAGES / "hex-11.gdl"))) == 4
    assert len(symmetry.symmetries(OTHELLO)) == 8


# --- variants ----------------------------------------------------------------------------------------


def test_edits_are_drawn_with_their_bits_and_say_what_changed():
    seen = set()
    for i in range(300):
        e = edits.edit(OTHELLO, generator(9, i), "arena")
        if e.rejected is None:
            assert e.bits > 0 and e.changes and e.stage != OTHELLO
            assert parse(fmt(e.stage)) == e.stage
            seen.update(part.split(" ")[0] for part in e.changes.split("; "))
        else:
            assert e.rejected.split(":")[0] in ("not applicable", "limit", "invalid")
    assert {"board", "blocked", "turn", "end", "setup"} <= seen, seen


def test_arena_edits_keep_to_the_arena_kinds():
    for i in range(300):
        e = edits.edit(OTHELLO, generator(4, i), "arena")
        if e.stage is not None:
            assert type(e.stage.turn) in edits.ARENA_TURNS
            assert {type(end.result) for end in e.stage.ends} <= set(edits.ARENA_RESULTS)
            assert isinstance(e.stage.board, A.SquareBoard)


def test_an_edit_replays_from_its_word_and_its_smallest_edit_gives_the_same_game():
    fewer = 0
    for i in range(300):
        e = edits.edit(OTHELLO, generator(9, i), "arena")
        if e.rejected is not None:
            continue
        again, bits = edits.replay(OTHELLO, e.word, "arena")
        assert again == e.stage and bits == pytest.approx(e.bits)
        least, word = edits.smallest(OTHELLO, e.stage, e.word, "arena")
        smallest_stage, smallest_bits = edits.replay(OTHELLO, word, "arena")
        assert least == pytest.approx(smallest_bits) and least <= e.bits + 1e-9
        assert symmetry.canonical_key(smallest_stage) == symmetry.canonical_key(e.stage)
        fewer += least < e.bits - 1e-9
    assert fewer > 0  # some draws carry changes that give nothing
    with pytest.raises(edits.NotAnEdit):
        edits.replay(OTHELLO, (1, ("turn order", A.Alternate)), "arena")  # the base's own order: no change


def _kind_bits(kind: str, family: str = "arena") -> float:
    weights = edits.FAMILIES[family]
    return math.log2(sum(weights.values()) / weights[kind])


def test_a_change_that_moves_nothing_costs_the_variant_no_bits():
    """The seed's case: a 7x7 board and a setup piece "moved" to the cell it stands on were
    recorded at the cost of both changes, where the board change alone gives the same stage."""
    resized, size_bits = edits.replay(OTHELLO, (1, ("board size", 7)), "arena")
    assert size_bits == pytest.approx(B.gamma_bits(1) + _kind_bits("board size") + B.side_bits(7))
    piece = [c for x in resized.setup for c in A.expand(x.cells)][2]
    drawn = (2, ("board size", 7), ("setup pieces", 1, 2, piece))  # piece 2 moved where it is
    stage, drawn_bits = edits.replay(OTHELLO, drawn, "arena")
    assert stage == resized and drawn_bits == pytest.approx(
        B.gamma_bits(2) + _kind_bits("board size") + B.side_bits(7) + _kind_bits("setup pieces")
        + B.gamma_bits(1) + math.log2(4) + math.log2(49))
    assert edits.smallest(OTHELLO, stage, drawn, "arena") == (pytest.approx(size_bits), (1, ("board size", 7)))


def test_the_smallest_edit_moves_a_piece_once_and_blocks_whole_mirror_images():
    b2, f2 = A.Cell(6, 1), A.Cell(6, 5)
    twice = (1, ("setup pieces", 2, 1, b2, 1, f2))  # piece 1 to b2, then on to f2
    stage, _ = edits.replay(OTHELLO, twice, "arena")
    assert edits.smallest(OTHELLO, stage, twice, "arena")[1] == (1, ("setup pieces", 1, 1, f2))
    b6, b5, g5 = A.Cell(2, 1), A.Cell(3, 1), A.Cell(3, 6)  # b5 and g5: one mirror image
    three = (1, ("blocked cells", 3, True, b6, b5, g5))
    stage, _ = edits.replay(OTHELLO, three, "arena")
    bits, word = edits.smallest(OTHELLO, stage, three, "arena")
    assert word[1][:3] == ("blocked cells", 2, True) and bits == pytest.approx(
        B.gamma_bits(1) + _kind_bits("blocked cells") + B.gamma_bits(2) + 1 + 2 * 6)


# --- hidden information: the dark family ------------------------------------------------------------

TTT, PHANTOM = gdl.load(STAGES / "tic-tac-toe.gdl"), gdl.load(STAGES / "phantom-tic-tac-toe.gdl")


def test_what_players_are_told_is_part_of_the_game():
    """Phantom tic-tac-toe is not tic-tac-toe, nor its abrupt form: their keys and fingerprints
    differ, while a perfect-information stage keeps the key it always had."""
    abrupt = gdl.load(STAGES / "phantom-tic-tac-toe-abrupt.gdl")
    seeing = replace(PHANTOM, reveal=(A.RevealAdjacent(),))  # what a reveal shows is told too
    keys = {symmetry.canonical_key(s) for s in (TTT, PHANTOM, abrupt, seeing)}
    assert len(keys) == 4
    assert symmetry.canonical_key(replace(PHANTOM, name="x")) == symmetry.canonical_key(PHANTOM)
    prints = {screen.screen(s, replace(screen.Filters(), enabled=False)).fingerprint
              for s in (TTT, PHANTOM, abrupt, seeing)}
    assert len(prints) == 4
    # a golden: the key of a game's rules alone (since issue 33's dice, without the concepts'
    # class-level words, whose wording changed every key when it changed)
    assert symmetry.canonical_key(TTT) == "8101552f557dd2791739f927882aa783"


def test_the_dark_family_makes_any_base_dark_at_the_cost_of_its_bits():
    made, bits = edits.replay(TTT, (1, ("information", A.LoseTurn)), "dark")
    assert made == replace(TTT, hidden=A.OpponentPieces(), refused=A.LoseTurn())
    assert bits == pytest.approx(B.gamma_bits(1) + _kind_bits("information", "dark") + 1)  # which refusal: 1 bit
    told, bits2 = edits.replay(TTT, (2, ("information", A.Retry), ("announcement",)), "dark")
    assert told.announce == (A.TurnCount(),) and bits2 == pytest.approx(
        B.gamma_bits(2) + _kind_bits("information", "dark") + 1 + _kind_bits("announcement", "dark"))
    seeing, bits3 = edits.replay(TTT, (2, ("information", A.Retry), ("reveal", A.RevealAdjacent)), "dark")
    assert seeing.reveal == (A.RevealAdjacent(),) and bits3 == pytest.approx(
        B.gamma_bits(2) + _kind_bits("information", "dark") + 1 + _kind_bits("reveal", "dark") + math.log2(3))
    assert edits.replay(seeing, (1, ("reveal", A.RevealAdjacent)), "dark")[0].reveal == ()  # taken away again
    assert edits._direct(TTT, seeing, "dark") == [(2, ("information", A.Retry), ("reveal", A.RevealAdjacent))]
    with pytest.raises(edits.NotAnEdit):  # a dark family's variant hides information
        edits.replay(TTT, (1, ("turn order", A.FewerPieces)), "dark")
    with pytest.raises(edits.NotAnEdit):  # nothing to refuse without hidden information
        edits.replay(TTT, (1, ("refusal",)), "all")
    assert edits.replay(PHANTOM, (1, ("refusal",)), "dark")[0].refused == A.LoseTurn()
    assert edits.replay(PHANTOM, (1, ("information",)), "all")[0] == replace(TTT, name=PHANTOM.name)
    drawn = [edits.edit(TTT, generator(4, i), "dark") for i in range(200)]
    kept = [e for e in drawn if e.rejected is None]
    assert len(kept) > 10 and all(e.stage.hidden is not None and e.stage.refused is not None for e in kept)
    assert all("hidden opponent-pieces added" in e.changes for e in kept)
    for e in kept[:20]:  # the smallest edit found gives the same game
        least, word = edits.smallest(TTT, e.stage, e.word, "dark")
        again, _ = edits.replay(TTT, word, "dark")
        assert symmetry.canonical_key(again) == symmetry.canonical_key(e.stage) and least <= e.bits + 1e-9


def test_the_dark_family_makes_a_random_start_dark_and_not_dice():
    """A random start on a hidden stage is played (its start shown to both): its dark variants are
    drawn and play as tries; dice on a hidden stage are not played yet: none is drawn."""
    base = gdl.load(STAGES / "othello-random-setup.gdl")
    made, _ = edits.replay(base, (1, ("information", A.Retry)), "dark")
    assert made.hidden is not None and made.random_setup and compiler.playable(made)
    race = gdl.load(STAGES / "dice-race.gdl")
    drawn = [edits.edit(race, generator(2, i), "dark") for i in range(60)]
    assert all(e.rejected is not None for e in drawn)
    assert any("dice on a stage with hidden information" in e.rejected for e in drawn)


def test_dark_variants_are_drawn_screened_through_their_true_game_and_play_as_tries(tmp_path):
    run = sampler.variants(gdl.load(STAGES / "connect-four.gdl"), 3, seed=2, family="dark", jobs=1)
    assert len(run.accepted) == 3
    for c in run.accepted:
        assert c.stage.hidden is not None and "hidden opponent-pieces added" in c.changes
        assert c.figures["mc skill"]["through"] == "views"  # its skill test plays through the views
        dark = compiler.playable(c.stage)
        assert check_game(dark, games=3, seed=1) > 3  # the referee's game of tries
    sampler.write(run, tmp_path / "set", prefix="variant")
    manifest = json.loads((tmp_path / "set" / "manifest.json").read_text())
    assert manifest["family"] == "dark" and all("refused" in s["changes"] for s in manifest["stages"])
    for entry in manifest["stages"]:
        assert "hidden opponent-pieces" in (tmp_path / "set" / entry["file"]).read_text()


def test_the_chance_family_throws_deals_and_blocks_at_the_cost_of_its_bits():
    race = gdl.load(STAGES / "breakthrough.gdl")
    made, bits_made = edits.replay(race, (1, ("dice", 0, 1, 6)), "chance")  # the first of its two step rules, then 1d6
    assert made.roll == A.Roll(1, 6) and isinstance(made.moves[0].kind, A.Advance)
    assert made.moves[0].kind.directions == race.moves[0].kind.directions and not gdl.check(made)
    assert bits_made == pytest.approx(B.gamma_bits(1) + _kind_bits("dice", "chance") + 1 + 2 + math.log2(19))
    othello = gdl.load(STAGES / "standard-8x8.gdl")
    dealt, bits = edits.replay(othello, (1, ("random start",)), "chance")
    assert dealt.setup == () and [(r.player, r.count) for r in dealt.random_setup] == [("black", 2), ("white", 2)]
    assert bits == pytest.approx(B.gamma_bits(1) + _kind_bits("random start", "chance"))
    blocked, bits = edits.replay(othello, (1, ("random blocked", 3)), "chance")
    assert gdl.format(blocked).count("blocked random 3 in a1..h8") == 1
    assert bits == pytest.approx(B.gamma_bits(1) + _kind_bits("random blocked", "chance") + B.gamma_bits(3))
    with pytest.raises(edits.NotAnEdit):  # the chance family's variants draw something
        edits.replay(othello, (1, ("turn order", A.FewerPieces)), "chance")
    with pytest.raises(edits.NotAnEdit):  # no step or slide to make an advance
        edits.replay(othello, (1, ("dice", 0, 1, 6)), "chance")
    # the net difference is found again as a direct edit, so a variant is costed by its smallest edit
    twice = (2, ("dice", 0, 2, 6), ("dice", 1, 6))  # 2d6, then thrown anew as 1d6
    assert edits.replay(race, twice, "chance")[0] == made
    assert edits.smallest(race, made, twice, "chance") == (pytest.approx(bits_made), (1, ("dice", 0, 1, 6)))


def test_chance_variants_are_drawn_screened_and_played_with_their_chance(tmp_path):
    run = sampler.variants(gdl.load(STAGES / "breakthrough.gdl"), 3, seed=3, family="chance", jobs=1)
    assert len(run.accepted) == 3 and all(c.stage.chance for c in run.accepted)
    for c in run.accepted:
        assert check_game(compiler.playable(c.stage), games=3, seed=1) > 3
    sampler.write(run, tmp_path / "set", prefix="variant")
    manifest = json.loads((tmp_path / "set" / "manifest.json").read_text())
    assert manifest["family"] == "chance"
    for entry in manifest["stages"]:
        text = (tmp_path / "set" / entry["file"]).read_text()
        assert "roll " in text or " random " in text, text


# --- divergence: what a policy tuned to the base loses on a variant ----------------------------------

SMALL = gdl.load(STAGES / "small-board-6x6.gdl")


def test_reversed_scoring_diverges_and_a_moved_setup_hardly_does():
    """On the 6x6 board the Othello-tuned policy about holds its own against flat Monte-Carlo; with
    fewest pieces winning it loses nearly every game (it still takes discs and corners), with the
    four middle discs set another way it plays as well as before."""
    settings = divergence.Settings()
    base = divergence.score(SMALL, 80, settings)
    assert 0.3 < base.score < 0.7
    reverse = replace(SMALL, ends=(A.End(A.NoMoves(), A.FewestPieces()),))
    split = replace(SMALL, setup=(A.Setup("black", (A.Cell(2, 2), A.Cell(2, 3))),
                                  A.Setup("white", (A.Cell(3, 2), A.Cell(3, 3)))))
    far = divergence.figure(base, divergence.score(reverse, 40, settings))
    near = divergence.figure(base, divergence.score(split, 40, settings))
    assert far["value"] > 0.3 and far["value"] > 3 * far["se"], far
    assert abs(near["value"]) < 2.5 * near["se"] < 0.25, near
    assert divergence.score(reverse, 40, settings) == divergence.score(reverse, 40, settings)  # seeded


def test_a_minimum_divergence_rejects_a_variant_below_it():
    from ludica.sampler import sample

    spec = sampler.Spec(1, SMALL, "arena", min_divergence=0.5, divergence=divergence.Settings(games=4))
    c = sample.Candidate(1, stage=replace(SMALL, turn=A.FewerPieces()))
    sample._diverge(c, spec, divergence.Score(0.5, 0.05, 80))  # the base's score: 1/2
    assert c.divergence["value"] < 0.5 and c.rejected_by == "divergence" and "below 0.5" in c.reason
    c = sample.Candidate(2, stage=c.stage)
    sample._diverge(c, replace(spec, min_divergence=-1.0), divergence.Score(0.5, 0.05, 80))
    assert c.rejected_by is None and c.divergence["games"] == 4
    with pytest.raises(ValueError, match="minimum divergence"):
        sampler.Spec(1, None, min_divergence=0.1)  # fresh stages have no base to diverge from


def test_a_divergence_without_settings_says_so():
    """A reference score given with a spec that measures no divergence (divergence=None) is a
    caller's mistake, named as such (it was an AttributeError on None; mypy found it)."""
    from ludica.sampler import sample

    c = sample.Candidate(1, stage=replace(SMALL, turn=A.FewerPieces()))
    with pytest.raises(ValueError, match="divergence settings"):
        sample._diverge(c, sampler.Spec(1, SMALL, "arena", divergence=None), divergence.Score(0.5, 0.05, 80))


@pytest.fixture(scope="module")
def small_sets(tmp_path_factory):
    base = gdl.load(STAGES / "small-board-6x6.gdl")
    out = {}
    cheap = divergence.Settings(games=8, base_games=16)  # measured, and reproducible whatever the processes
    for jobs in (1, 2):
        run = sampler.run(sampler.Spec(11, base, "arena", divergence=cheap), 3, jobs=jobs)
        folder = tmp_path_factory.mktemp(f"jobs{jobs}")
        sampler.write(run, folder, prefix="variant")
        out[jobs] = (run, folder)
    return out


def test_same_seed_same_bytes_with_one_process_or_two(small_sets):
    (run1, a), (run2, b) = small_sets[1], small_sets[2]
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and "manifest.json" in names and len(names) == 4
    for name in names:
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    assert [c.number for c in run1.judged] == [c.number for c in run2.judged]


def test_accepted_variants_are_valid_distinct_and_play_alike_on_both_engines(small_sets):
    run, folder = small_sets[1]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["accepted"] == 3 and manifest["candidates"] == len(run.judged)
    assert sum(manifest["rejections"].values()) + manifest["draws"]["drawn again"] == len(run.judged) - 3
    keys = set()
    for entry in manifest["stages"]:
        s = gdl.load(folder / entry["file"])
        assert not [d for d in gdl.check(s) if d.is_error]
        assert parse(fmt(s)) == s and fmt(s) == (folder / entry["file"]).read_text()
        check_game(gdl.reference(s), games=3)
        check_game(compiler.compile(s), games=3)
        assert entry["K"] == pytest.approx(entry["bits"] + __import__("math").log2(entry["tau"]), abs=1e-5)
        assert set(screen.FILTERS) <= set(entry["figures"])
        keys.add(symmetry.canonical_key(s))
    assert len(keys) == 3
    assert sum(e["levin_weight"] for e in manifest["stages"]) == pytest.approx(1.0)
    by_draws = [e["multiplicity"] / e["tau"] for e in manifest["stages"]]
    assert [e["levin_weight"] for e in manifest["stages"]] == pytest.approx([w / sum(by_draws) for w in by_draws])
    draws = manifest["draws"]
    assert sum(e["multiplicity"] for e in manifest["stages"]) == draws["new stages"] + draws["drawn again"]
    assert draws["public"] == manifest["rejections"].get("public", 0) and draws["new stages"] == 3
    assert manifest["divergence"]["base"]["games"] == 16
    for entry, c in zip(manifest["stages"], run.accepted):
        assert entry["divergence"] == c.divergence and entry["divergence"]["games"] == 8
        assert entry["divergence"]["value"] == pytest.approx(manifest["divergence"]["base"]["score"]
                                                             - entry["divergence"]["score"], abs=1e-3)
    public = {symmetry.canonical_key(gdl.load(p)) for p in STAGES.glob("*.gdl")}
    assert not keys & public


def test_an_evaluation_reads_the_weights_and_multiplicities_of_a_set(small_sets, tmp_path):
    from ludica.evaluation import stageset
    from ludica.gdl.diagnostics import LudicaError

    _, folder = small_sets[1]
    manifest = json.loads((folder / "manifest.json").read_text())
    read = stageset.from_folder(folder)
    assert [(s.weight, s.multiplicity) for s in read] == [(e["levin_weight"], e["multiplicity"])
                                                          for e in manifest["stages"]]
    assert [s.divergence for s in read] == [(e["divergence"]["value"], e["divergence"]["se"])
                                            for e in manifest["stages"]]
    copy = tmp_path / "copy"
    copy.mkdir()
    for e in manifest["stages"]:
        (copy / e["file"]).write_text((folder / e["file"]).read_text())
    manifest["stages"][0]["multiplicity"] = 3
    del manifest["stages"][1]["multiplicity"]  # a manifest from before draws were counted
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert [s.multiplicity for s in stageset.from_folder(copy)] == [3, 1, 1]
    manifest["stages"][0]["multiplicity"] = 1.5
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(LudicaError, match="the multiplicity of variant-001.gdl is 1.5"):
        stageset.from_folder(copy)


def test_exclude_keeps_a_new_set_disjoint(small_sets, tmp_path):
    _, folder = small_sets[1]
    base = gdl.load(STAGES / "small-board-6x6.gdl")
    again = sampler.run(sampler.Spec(11, base, "arena", divergence=None), 3, jobs=1, exclude=[folder])
    before = {symmetry.canonical_key(gdl.load(p)) for p in folder.glob("*.gdl")}
    assert not before & {c.key for c in again.accepted}
    assert any(c.rejected_by == "excluded" and "excluded" in c.reason for c in again.judged)
    assert again.draws()["excluded"] == sum(c.rejected_by == "excluded" for c in again.judged)


# --- draws counted: the set's weights follow the prior as the set grows -------------------------------

# A space of eight stages drawn with probabilities 2^-1 .. 2^-7, 2^-7 and counted costs τ: the prior
# ∝ 2^-K gives stage i the weight p_i / τ_i normalised. The first is a public stage (rejected).
SPACE_P = [2.0 ** -min(i + 1, 7) for i in range(8)]
SPACE_TAU = [40.0, 10.0, 80.0, 20.0, 10.0, 60.0, 30.0, 15.0]


def _space_run(monkeypatch, seed: int, n: int) -> sampler.Run:
    """sample.run over the space: each candidate drawn from its own generator, screening replaced
    by the space's table (the public stage rejected as screening rejects one)."""
    from ludica.sampler import sample

    def draw(spec, known, number, reference=None):
        i = generator(spec.seed, number).choices(range(8), SPACE_P)[0]
        c = sample.Candidate(number, bits=-math.log2(SPACE_P[i]), key=f"key {i}", fingerprint=f"games {i}",
                             tau=SPACE_TAU[i])
        if i == 0:
            c.rejected_by = sample.PUBLIC
        return c

    monkeypatch.setattr(sample, "draw_candidate", draw)
    monkeypatch.setattr(sample, "known_stages", lambda spec, exclude: sample.Known())
    return sampler.run(sampler.Spec(seed, OTHELLO, divergence=None), n, jobs=1)


def _total_variation(run: sampler.Run) -> float:
    """Between the set's Levin weights and the prior ∝ 2^-K over the space's unseen stages."""
    exact = [p / t for p, t in zip(SPACE_P[1:], SPACE_TAU[1:])]
    exact = [x / math.fsum(exact) for x in exact]
    weights = dict(zip((int(c.key.split()[1]) for c in run.accepted), run.weights()))
    return 0.5 * math.fsum(abs(weights.get(i + 1, 0.0) - x) for i, x in enumerate(exact))


def test_a_stage_drawn_again_counts_again_and_the_weights_follow_the_prior(monkeypatch):
    """Rejecting a stage drawn again (the sampler before issue 20) left every stage of a complete
    set the weight 1/τ whatever its 2^-bits: a total variation of 0.49 from the prior here."""
    shifts = []
    for seed in range(10):
        run = _space_run(monkeypatch, seed, 7)  # every unseen stage of the space: a complete set
        assert len(run.accepted) == 7
        shifts.append(_total_variation(run))
        draws = run.draws()
        counted = sum(c.multiplicity for c in run.accepted)
        assert counted == draws["new stages"] + draws["drawn again"] == draws["valid"] - draws["public"]
        assert all(c.drawn_again is not None or c.accepted or c.rejected_by == "public" for c in run.judged)
    assert statistics.fmean(shifts) < 0.1 and max(shifts) < 0.2, shifts


def test_the_share_of_draws_that_were_public_is_counted(monkeypatch):
    draws = _space_run(monkeypatch, 3, 7).draws()
    assert draws["public"] > 0 and draws["public share"] == round(draws["public"] / draws["valid"], 4)
    assert 0.3 < draws["public share"] < 0.7  # the public stage is drawn half the time


def test_the_shipped_fingerprints_are_what_the_bundled_stages_play():
    """sampler/bundled_prints.json holds every bundled stage's fingerprint under the default filters:
    a draw sets the public stages aside with them without playing (and compiling) them. Out of date
    (a bundled stage or the engine's random games changed): run scripts/bundled-prints."""
    from ludica import stages
    from ludica.sampler import prints

    shipped = json.loads(prints.TABLE.read_text())
    assert shipped == prints.table(), "sampler/bundled_prints.json is out of date: run scripts/bundled-prints"
    assert len(shipped) == len(stages.bundled())


def test_a_draw_sets_the_public_stages_aside_without_playing_them(monkeypatch):
    """Fingerprinting the 28 bundled stages compiled every form they have before the first candidate
    (18 s of a fresh clone's first evaluation, issue 34): with the default filters none is played,
    and with other random games each is, live."""
    from ludica.sampler import prints, sample

    played = []
    real = screen.screen
    monkeypatch.setattr(screen, "screen", lambda stage, *a, **k: played.append(stage.name) or real(stage, *a, **k))
    spec = sampler.Spec(1, OTHELLO, family="arena")
    known = sample.known_stages(spec, [])
    assert played == []
    shipped = json.loads(prints.TABLE.read_text())
    assert set(known.prints) == {e["fingerprint"] for e in shipped.values()}
    other = replace(spec, filters=replace(spec.filters, random_games=128))
    assert set(sample.known_stages(other, []).prints).isdisjoint(known.prints)
    assert len(played) == len(shipped) + 1  # the base (a bundled stage) too
    # another engine (an edit to the compiler, say) plays its own games: the table is not trusted
    monkeypatch.setattr(prints, "engine", lambda: "an edited engine")
    played.clear()
    assert set(sample.known_stages(spec, []).prints) == set(known.prints) and len(played) == len(shipped) + 1


def test_a_draw_on_several_cores_compiles_the_screenings_kernels_beside_its_first_work(monkeypatch):
    """The games between policies and the solver (20 s and 6 s cold) compile in helpers while the
    draw sets the public stages aside and scores the base; not on one core, not for fresh draws (no
    base to compile them on), nor unscreened ones, nor the solver when it is off."""
    from ludica.sampler import sample

    started = []
    monkeypatch.setattr(sample, "_compile_for_screening", lambda base, part: started.append(part))
    spec = sampler.Spec(1, OTHELLO, family="arena")
    helpers = sample._prefetch(spec, 2)
    for helper in helpers:
        helper.join()
    assert [h.name for h in helpers] == ["compile games", "compile solve"] and all(h.exitcode == 0 for h in helpers)
    assert sample._prefetch(spec, 1) == [] and sample._prefetch(replace(spec, base=None), 2) == []
    assert sample._prefetch(replace(spec, filters=sampler.NO_FILTERS), 2) == []
    unsolved = replace(spec, filters=replace(spec.filters, solve_positions=0))
    assert [h.name for h in sample._prefetch(unsolved, 2) if not h.join()] == ["compile games"]
    assert sorted(started) == []  # in the helpers, not here


@pytest.mark.slow
def test_a_cold_draw_compiles_each_kernel_in_one_process(tmp_path):
    """From an empty numba cache, `ludica sample` on 2 cores: the screening workers compiled the
    games and the solver each, at once (issue 34); every kernel is now compiled by one process (an
    inlined helper is compiled inside each kernel that calls it: not counted)."""
    listener = textwrap.dedent("""
        import os, sys
        from numba.core import event
        class Compiled(event.Listener):
            def on_start(self, ev):
                pass
            def on_end(self, ev):  # a kernel of ludica's (an inlined one compiles inside each caller)
                d = ev.data["dispatcher"]
                f = d.py_func
                if not f.__module__.startswith("ludica.compiler") or d.targetoptions.get("inline") == "always":
                    return
                closed = [getattr(c.cell_contents, "__module__", "") + "." + getattr(c.cell_contents, "__name__", "")
                          for c in f.__closure__ or ()]  # which closure: the kernels it closes over
                with open(os.path.join(sys.argv[1], "compiled"), "a") as out:
                    out.write(f"{os.getpid()} {f.__module__}.{f.__qualname__}{closed} {ev.data['args']}" + chr(10))
        event.register("numba:compile", Compiled())
        from ludica.cli import main
        sys.exit(main(["sample", "--base", "small-board-6x6", "-n", "2", "--seed", "3", "--jobs", "2",
                       "--out", os.path.join(sys.argv[1], "set")]))
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", listener, str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "compiled").read_text().splitlines()
    kernels = [line.split(" ", 1)[1] for line in lines]
    assert any("matches.games" in k for k in kernels) and any("retrograde" in k for k in kernels)
    twice = sorted({line for line in lines if kernels.count(line.split(" ", 1)[1]) > 1})
    assert not twice, twice


def test_raw_prior_draws_are_valid_stages():
    run = sampler.fresh(4, seed=3, filters=sampler.NO_FILTERS, jobs=1)
    assert len(run.accepted) == 4
    for c in run.accepted:
        assert not [d for d in gdl.check(c.stage) if d.is_error]
        assert c.bits == pytest.approx(gdl.description_length(c.stage))


# --- the command ---------------------------------------------------------------------------------------


def test_ludica_sample_writes_stages_that_check(tmp_path, capsys):
    out = tmp_path / "set"
    assert main(["sample", "--base", "small-board-6x6", "-n", "2", "--seed", "2", "--family", "arena",
                 "--out", str(out), "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    assert "accepted" in printed and "candidates judged/min" in printed
    files = sorted(out.glob("*.gdl"))
    assert len(files) == 2
    assert main(["check", *map(str, files)]) == 0


def test_ludica_sample_refuses_what_it_should(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    assert main(["sample", "--fresh", "-n", "1", "--seed", "1", "--out", str(tmp_path / "full")]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
    assert main(["sample", "--base", "standard-8x8", "-n", "1", "--seed", "1", "--family", "nope",
                 "--out", str(tmp_path / "new")]) == 2
    assert "no family" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["sample", "--base", "standard-8x8", "--fresh", "-n", "1", "--seed", "1", "--out", str(tmp_path / "x")])


@pytest.mark.slow
def test_the_skill_verdicts_agree_with_an_independent_strength_test(monkeypatch, capsys):
    """benchmarks/filter_agreement.py on a smaller set: the "mc skill" verdicts of fresh candidates
    and variants against flat Monte-Carlo driven from Python (issue 20: ≥ 90% agreement)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import filter_agreement

    rows = filter_agreement.measure(seed=1, fresh=12, variants=1, games=60)
    assert len(rows) >= 12  # (those costlier than the benchmark's max_tau are left out)
    print(filter_agreement.confusion(rows))
    assert filter_agreement.agreement(rows) >= 0.9
