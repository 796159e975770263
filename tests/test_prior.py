"""The exact prior (sampler/prior.py on gdl/bits.py's one definition of the code): a stage's own
code word decodes to the stage at exactly its description length; draws cost what they measure;
and the frequencies of draws match 2^-bits (chi-square over a small space, enumerated by hand),
as do the arena family's edits their documented weights."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings

from ludica.gdl import ast as A
from ludica.gdl import bits as B
from ludica.gdl import load
from ludica.gdl.parser import parse
from ludica.gdl.printer import format as fmt
from ludica.sampler import prior as P
from ludica.sampler.symmetry import relabelled

from strategies import codable_stages, every_concept

STAGES = sorted((Path(__file__).resolve().parents[1] / "stages").glob("*.gdl"))


def _round_trip(s: A.Stage) -> None:
    word = B.encode(s)
    replay = B.Replay(word)
    back = B.code(replay, None, name=s.name, players=s.players.names)
    assert back == s
    assert replay.finished
    assert math.fsum(replay.bits) == pytest.approx(B.description_length(s), abs=1e-9)
    assert B.decode(word, name=s.name, players=s.players.names) == s


@pytest.mark.parametrize("path", STAGES, ids=lambda p: p.stem)
def test_a_bundled_stage_decodes_from_its_own_code_word(path):
    _round_trip(load(path))


@settings(max_examples=300, deadline=None)
@given(codable_stages())
def test_any_codable_stage_decodes_from_its_own_code_word(s):
    _round_trip(s)


def test_a_word_that_stops_short_or_runs_on_is_not_a_stage():
    word = B.encode(load(STAGES[0]))
    with pytest.raises(B.NotCodable, match="ends after"):
        B.decode(word[:-1])
    with pytest.raises(B.NotCodable, match="goes on"):
        B.decode(word + (0,))


@settings(max_examples=200, deadline=None)
@given(codable_stages())
def test_the_labels_are_not_in_the_word(s):
    assert B.encode(s) == B.encode(replace(relabelled(s, ("p", "q")), name="other"))


def test_draws_cost_what_they_measure_and_print_back():
    seen = 0
    for i in range(1500):
        rng = P.generator(7, i)
        coder = P.Draw(rng, P.Limits(min_side=1, max_side=26, max_cells=676))
        try:
            s = B.code(coder, None, name="drawn", players=("black", "white"))
        except P.OutOfLimits:
            continue
        seen += 1
        assert coder.bits == pytest.approx(B.description_length(s), rel=1e-12, abs=1e-9)
        assert parse(fmt(s)) == s
    assert seen > 200


def test_same_seed_same_draw_and_limits_are_named():
    a = [P.draw(P.generator(3, i)) for i in range(200)]
    b = [P.draw(P.generator(3, i)) for i in range(200)]
    assert a == b
    assert {d.rejected.split(":")[0] for d in a if d.rejected} <= {"limit", "invalid", "not played"}
    assert any(d.rejected is None for d in a)
    with pytest.raises(ValueError, match="no integer field"):
        P.Limits(maxima={"moovs": 3})


def test_gamma_draws_integers_with_probability_two_to_the_minus_gamma():
    rng = random.Random(11)
    n = 60_000
    counts = Counter(P.gamma(rng) for _ in range(n))
    for k in range(1, 16):
        expected = n * 2.0 ** -B.gamma_bits(k)
        assert abs(counts[k] - expected) <= 4.5 * math.sqrt(expected) + 2, (k, counts[k], expected)
    with pytest.raises(P.OutOfLimits):
        for _ in range(1000):
            P.gamma(rng, cap=1)


# --- frequencies: chi-square over a space small enough to enumerate -------------------------------
# Limits: sides 1..2 and every integer at its least value (empty lists where a list may be empty,
# one item where it may not, distances, line lengths and ply counts 1). Draws then vary in the
# board, forward, the move, the turn, the pass rule and the end, each enumerated from the concepts'
# fields (tests/strategies.py every_concept): each statement's drawn values must follow 2^-bits
# over its enumerated alternatives.

TIGHT = P.Limits(min_side=1, max_side=2, max_cells=4, chance=False,
                 maxima={f: 0 if f in B.COUNTS_FROM_ZERO else 1 for f in B.INTEGER_FIELDS})
BASE = A.Stage("", A.SquareBoard(1), A.Players(("black", "white")), (A.MoveRule(A.PlaceEmpty()),),
               (A.End(A.NoMoves(), A.Draw()),))
DIRS = [A.Directions((w,)) for w in A.DIRECTION_WORDS]
BOARDS = every_concept(A.BOARD_KINDS, sides=(1, 2))
FORWARDS = [()] + [(A.Heading(p, h),) for p in ("black", "white") for h in A.HEADINGS] + [
    tuple(A.Heading(p, h) for p, h in zip(order, hs))
    for order in (("black", "white"), ("white", "black")) for hs in itertools.product(A.HEADINGS, repeat=2)]
MOVES = [A.MoveRule(k) for k in every_concept(A.MOVE_KINDS, directions=DIRS)]
ENDS = [A.End(c, r) for c in every_concept(A.CONDITIONS) for r in every_concept(A.RESULTS)]
TURNS_AND_PASSES = [(t, p) for t in every_concept(A.TURN_ORDERS) for p in (None, *every_concept(A.PASS_RULES))]
STATEMENTS = {
    "board": (BOARDS, lambda v: replace(BASE, board=v), lambda s: s.board),
    "forward": (FORWARDS, lambda v: replace(BASE, forward=v), lambda s: s.forward),
    "move": (MOVES, lambda v: replace(BASE, moves=(v,)), lambda s: s.moves[0]),
    "end": (ENDS, lambda v: replace(BASE, ends=(v,)), lambda s: s.ends[0]),
    "turn and pass": (TURNS_AND_PASSES, lambda v: replace(BASE, turn=v[0], pass_rule=v[1]),
                      lambda s: (s.turn, s.pass_rule)),
}


def _chi_square_limit(df: int, z: float = 3.72) -> float:
    """The chi-square value a fair sampler exceeds with probability ≈ 1e-4 (Wilson–Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.fixture(scope="module")
def tight_draws() -> list[A.Stage]:
    out = []
    for i in range(80_000):
        try:
            out.append(B.code(P.Draw(P.generator("chi", i), TIGHT), None, players=("black", "white")))
        except P.OutOfLimits:
            pass
    return out


def _chi_square(counts: Counter, values: list, weights: list[float], n: int) -> tuple[float, int]:
    """Pearson's statistic and its degrees of freedom, the bins expected to hold fewer than 5 draws
    pooled into one (the usual condition for the chi-square approximation)."""
    total = math.fsum(weights)
    bins = [(counts[v], n * w / total) for v, w in zip(values, weights)]
    small = [b for b in bins if b[1] < 5]
    bins = [b for b in bins if b[1] >= 5] + ([(sum(o for o, _ in small), sum(e for _, e in small))] if small else [])
    return sum((o - e) ** 2 / e for o, e in bins), len(bins) - 1


@pytest.mark.parametrize("statement", sorted(STATEMENTS))
def test_drawn_frequencies_match_two_to_the_minus_bits(statement, tight_draws):
    values, put, read = STATEMENTS[statement]
    assert len(set(values)) == len(values)
    counts = Counter(read(s) for s in tight_draws)
    assert set(counts) <= set(values), f"drawn outside the enumerated space: {set(counts) - set(values)}"
    weights = [2.0 ** -B.description_length(put(v)) for v in values]
    chi2, df = _chi_square(counts, values, weights, len(tight_draws))
    assert df >= 5 and chi2 < _chi_square_limit(df), (statement, chi2, df)


def test_the_chi_square_test_can_fail(tight_draws):
    """The same draws are far from what a sampler uniform over whole moves or ends (not over each
    choice of the code) would give: the test tells the prior from a plausible wrong one."""
    for statement in ("move", "end"):
        values, _, read = STATEMENTS[statement]
        counts = Counter(read(s) for s in tight_draws)
        chi2, df = _chi_square(counts, values, [1.0] * len(values), len(tight_draws))
        assert chi2 > 3 * _chi_square_limit(df), (statement, chi2, df)


# --- the edit model of variants: kinds by their family's weights ------------------------------------

# docs/sampler.md's table, written again here: what an independent sampler of the arena family draws.
ARENA_WEIGHTS = {"board size": 3, "blocked cells": 3, "over-blocked": 3, "turn order": 3, "result": 3,
                 "setup pieces": 1}


def test_a_weighted_choice_of_equal_weights_draws_what_a_uniform_choice_draws():
    """So the family "all" (every kind weighing 1) draws the sets it drew before kinds had weights."""
    kinds = tuple("abcdefghijklm")
    for i in range(200):
        a, b = P.Draw(P.generator("w", i), P.Limits()), P.Draw(P.generator("w", i), P.Limits())
        assert a.weighted(None, kinds, (1,) * 13) == b.choice(None, kinds) and a.bits == pytest.approx(b.bits)


def _arena_word_class(word: tuple) -> tuple | None:
    """The single-change edits of the standard board whose probability the documented code gives
    in closed form (None: any other edit)."""
    if word[0] != 1:
        return None
    kind, *values = word[1]
    if kind in ("turn order", "result", "over-blocked"):
        return (kind,)  # one way each on the standard board
    if kind == "board size":
        return (kind, values[0])
    if kind in ("blocked cells", "setup pieces") and values[0] == 1:
        return (kind, 1)  # one cell blocked, or one piece moved: any cell
    return None


def _arena_probability(word_class: tuple) -> float:
    """From the documented code alone: one change (1/2), its kind (w / 16), its parameters."""
    kind, *rest = word_class
    p = 0.5 * ARENA_WEIGHTS[kind] / sum(ARENA_WEIGHTS.values())
    if kind == "board size":
        n = rest[0]
        return p * 2.0 ** -(2 * (n.bit_length() - 1) + 1) / (491 / 512)
    if kind == "blocked cells":
        return p * 0.5  # k = 1: γ(1) = 1 bit; then any cell, mirrored or not (none is blocked already)
    if kind == "setup pieces":
        return p * 0.5 * 63 / 64  # any piece, any cell but its own (the base again: not applicable)
    return p


def test_arena_edits_follow_the_documented_weights():
    """Words of single changes, counted over 20,000 draws of the arena family on the standard
    board, against their probabilities from the documented table (chi-square); the same counts
    are far from what equal weights (the family before issue 20) would give."""
    from ludica.sampler import edits

    base = load(Path(__file__).resolve().parents[1] / "stages" / "standard-8x8.gdl")
    n = 20_000
    counts = Counter(_arena_word_class(edits.edit(base, P.generator("kinds", i), "arena").word or (0,))
                     for i in range(n))
    # side 8 is the base's own (not applicable); sides below 4 break the variants' limit
    classes = [("turn order",), ("result",), ("over-blocked",), ("blocked cells", 1), ("setup pieces", 1)] + [
        ("board size", side) for side in (4, 5, 6, 7, 9, 10, 11, 12)]
    expected = [_arena_probability(c) for c in classes]
    values = classes + [None]
    weights = expected + [1 - math.fsum(expected)]
    chi2, df = _chi_square(counts, values, weights, n)
    assert df >= 8 and chi2 < _chi_square_limit(df), (chi2, df, counts)
    uniform = dict.fromkeys(ARENA_WEIGHTS, 1)
    saved = dict(ARENA_WEIGHTS)
    ARENA_WEIGHTS.update(uniform)
    try:
        wrong = [_arena_probability(c) for c in classes]
    finally:
        ARENA_WEIGHTS.update(saved)
    chi2, df = _chi_square(counts, values, wrong + [1 - math.fsum(wrong)], n)
    assert chi2 > 3 * _chi_square_limit(df), (chi2, df)


def test_fresh_draws_hold_chance_and_leave_out_what_is_not_played():
    """The prior draws chance as it draws every field (random lines, dice); a draw with dice and
    hidden information, which the engines do not play yet, is rejected whole, by name. (Candidates
    958 and 1221 of seed 11 are the first of each, found by a search: goldens of today's prior.)"""
    drawn = [P.draw(P.generator(11, i)) for i in range(1222)]
    valid = [d.stage for d in drawn if d.rejected is None]
    assert drawn[958].rejected is None and drawn[958].stage.chance and drawn[958].stage.hidden is None
    assert not any(s.roll is not None and s.hidden is not None for s in valid)
    assert drawn[1221].rejected == "not played: dice on a stage with hidden information"
    held = [P.draw(P.generator(11, i), P.Limits(chance=False)) for i in range(1222)]
    assert not any(d.stage.chance for d in held if d.stage is not None)
