"""The exact prior: stages drawn with probability 2^-description_length, through the very code that
gdl/bits.py measures (its `Coder` protocol), so the sampler and the description length cannot drift.

A draw reads every field of the code at random: a choice among n alternatives uniformly, an
integer n ≥ 1 with probability 2^-γ(n) (k zero bits until a one, P(k) = 2^-(k+1), then k uniform low
bits: n = 2^k + low), a board side by the same gamma code redrawn while above 26 (the side code is
renormalised over 1..26, so redrawing the field is exact), a cell uniformly among the board's. A
stage is then drawn with probability exactly 2^-bits(stage), its labels aside (the caller's).

Limits. A draw that goes beyond a limit (a board side, the board's cells, an integer field's value)
is rejected whole, with the limit it broke; so is a draw that breaks a static check of the language
(gdl.check). Rejecting whole draws conditions the prior on the accepted set: every accepted stage
keeps probability ∝ 2^-bits (P(s | accepted) = 2^-bits(s) / Z, Z the acceptance rate), which is what
the manifest states. Rejecting one field and redrawing it would not: it would favour stages with
many fields near a limit.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from collections.abc import Mapping

from ..gdl import ast as A
from ..gdl import bits as B
from ..gdl import check
from ..gdl.diagnostics import LudicaError


EDIT_FIELDS = ("changes", "cells changed", "pieces moved")


class OutOfLimits(LudicaError):
    """A draw went beyond a limit (`what` names it); the draw is rejected whole."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


# Each integer field's largest value in a draw, by default (gdl/bits.py INTEGER_FIELDS; for a list,
# its number of items). The edits of a base stage (edits.py) draw three more integers, limited the
# same way: EDIT_FIELDS.
DEFAULT_MAXIMA: Mapping[str, int] = {
    "blocked items": 16, "setups": 8, "setup items": 16, "moves": 4, "effects": 4,
    "direction words": 4, "distance": 4, "ends": 4, "line length": 8, "plies": 1024,
}


@dataclass(frozen=True)
class Limits:
    """What a draw may hold. Sides are bounded below too: a board of one row holds no game worth
    screening, and rejecting it keeps the rest ∝ 2^-bits."""

    min_side: int = 3
    max_side: int = 12
    max_cells: int = 144
    # Whether a draw may hide information (drawn, as every field: half of all stages hide it). A
    # hidden stage is screened through its true game (sampler/screen.py). False conditions the prior
    # on perfect information (the bit charged, not drawn): a seed then draws what it drew before
    # hidden information was played.
    hidden: bool = True
    # Whether a draw may hold chance (`random` lines, dice), drawn as `hidden` is. False conditions the
    # prior on no chance (the bit charged, not drawn). Dice on a stage with hidden information are not
    # played yet (compiler.playable refuses them by name): `draw` rejects such a draw whole, keeping
    # the rest ∝ 2^-bits.
    chance: bool = True
    maxima: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAXIMA))

    def __post_init__(self):
        if not 1 <= self.min_side <= self.max_side <= B.SIDE_MAX:
            raise ValueError(f"board sides must satisfy 1 ≤ min ≤ max ≤ {B.SIDE_MAX}, not {self.min_side}..{self.max_side}")
        known = (*B.INTEGER_FIELDS, *EDIT_FIELDS)
        unknown = set(self.maxima) - set(known)
        if unknown:
            raise ValueError(f"no integer field called {sorted(unknown)}; the fields are {', '.join(known)}")

    def maximum(self, what: str) -> int | None:
        return self.maxima.get(what)

    def as_dict(self) -> dict:
        return {"board sides": [self.min_side, self.max_side], "board cells at most": self.max_cells,
                "integers at most": {k: self.maxima[k] for k in (*B.INTEGER_FIELDS, *EDIT_FIELDS) if k in self.maxima}}


def gamma(rng: random.Random, cap: int | None = None) -> int:
    """An integer n ≥ 1 with probability 2^-γ(n); OutOfLimits as soon as it must exceed `cap`."""
    k = 0
    while not rng.getrandbits(1):
        k += 1
        if cap is not None and 1 << k > cap:
            raise OutOfLimits(f"an integer above {cap}")
    n = (1 << k) | rng.getrandbits(k) if k else 1
    if cap is not None and n > cap:
        raise OutOfLimits(f"an integer above {cap}")
    return n


def weighted_bits(value, alternatives, weights) -> float:
    """lg(Σ weights / the weight of `value`): the cost of a weighted choice (Draw.weighted)."""
    return math.log2(sum(weights) / weights[list(alternatives).index(value)])


class Draw(B.Coder):
    """Reads every field of the code at random (see the module docstring); sums the bits it drew."""

    def __init__(self, rng: random.Random, limits: Limits):
        self.rng, self.limits = rng, limits
        self.bits = 0.0

    def choice(self, value, alternatives):
        n = len(alternatives)
        self.bits += B.choice_bits(alternatives[0], alternatives)
        return alternatives[self.rng.randrange(n)] if n > 1 else alternatives[0]

    def weighted(self, value, alternatives, weights):
        """Alternative i with probability weights[i] / Σ weights (integers ≥ 1): lg(Σ / w) bits.
        One uniform integer below Σ picks it, so equal weights draw what `choice` draws."""
        total = sum(weights)
        u = self.rng.randrange(total) if len(alternatives) > 1 else 0
        for a, w in zip(alternatives, weights):
            if u < w:
                self.bits += weighted_bits(a, alternatives, weights)
                return a
            u -= w
        raise AssertionError("unreachable: u < Σ weights")

    def integer(self, value, field):
        cap = self.limits.maximum(field)
        if cap is not None and field in B.COUNTS_FROM_ZERO:
            cap += 1  # the integer of a list that may be empty is its count + 1
        try:
            n = gamma(self.rng, cap)
        except OutOfLimits:
            raise OutOfLimits(f"{field} above {self.limits.maximum(field)}") from None
        self.bits += B.gamma_bits(n)
        return n

    def side(self, value):
        n = gamma(self.rng)
        while n > B.SIDE_MAX:  # the side code is renormalised over 1..26: redraw the field
            n = gamma(self.rng)
        if not self.limits.min_side <= n <= self.limits.max_side:
            raise OutOfLimits(f"board side outside {self.limits.min_side}..{self.limits.max_side}")
        self.bits += B.side_bits(n)
        return n

    def hidden(self, value):
        if self.limits.hidden:
            return super().hidden(value)
        self.bits += B.choice_bits(False, B.FLAGS)
        return False

    def chance(self, value):
        if self.limits.chance:
            return super().chance(value)
        self.bits += B.choice_bits(False, B.FLAGS)
        return False

    def cell(self, value, rows, cols):
        self.bits += B.choice_bits(0, range(rows * cols))
        row, col = divmod(self.rng.randrange(rows * cols), cols)
        return A.Cell(row, col)


@dataclass(frozen=True)
class Drawn:
    """One draw of the prior: the stage, its bits, and why it was rejected (None: accepted)."""

    stage: A.Stage | None
    bits: float | None
    rejected: str | None


def draw(rng: random.Random, limits: Limits = Limits(), *, name: str = "", players=("black", "white")) -> Drawn:
    """One stage from the prior within `limits`, or the reason it was rejected: "limit: ...",
    "invalid: <the first static check it breaks>" or "not played: ..." (what the engines do not play
    yet: dice on a stage with hidden information)."""
    coder = Draw(rng, limits)
    try:
        stage = B.code(coder, None, name=name, players=players)
    except OutOfLimits as err:
        return Drawn(None, None, f"limit: {err.what}")
    if stage.board.rows * stage.board.cols > limits.max_cells:
        return Drawn(stage, coder.bits, f"limit: board above {limits.max_cells} cells")
    errors = [d for d in check(stage) if d.is_error]
    if errors:
        return Drawn(stage, coder.bits, f"invalid: {errors[0].code}")
    if stage.hidden is not None and stage.roll is not None:  # (compiler.playable refuses it: ChanceNotPlayed)
        return Drawn(stage, coder.bits, "not played: dice on a stage with hidden information")
    return Drawn(stage, coder.bits, None)


def generator(seed: int | str, number: int) -> random.Random:
    """The generator of candidate `number` of a run seeded `seed`: one per candidate, so a candidate
    is the same whatever the order or the process that screens it."""
    return random.Random(f"ludica/{seed}/{number}")
