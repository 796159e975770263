"""Variant sets: candidates drawn, screened on every core, de-duplicated, accepted in order.

Candidate i of a run seeded S is drawn from its own generator (prior.generator(S, i)), so it is
the same whatever process screens it; candidates are judged in the order of their numbers and the
run stops at the n-th accepted one: the same command and seed give the same set, byte for byte,
with one process or many.

Duplicates: a candidate whose canonical key (symmetries and labels: symmetry.py) or whose random
games' fingerprint equals an accepted one's, a public (bundled) stage's, the base's or an excluded
stage's is rejected as "duplicate" (a raw draw of the prior, --filters none, keeps them: they are
part of the distribution).

Levin weights: candidates are drawn ∝ 2^-bits (the edit's bits for variants, the description
length for fresh stages; a variant records the bits of the smallest edit that gives it, see
edits.smallest); K = bits + log2 τ; each accepted stage carries the importance weight
2^-K / 2^-bits = 1/τ normalised over the set, so that a weighted mean over the set estimates a mean
under the prior ∝ 2^-K (weights, not rejection: rejecting on τ would discard most draws).
"""
from __future__ import annotations

import math
import os
from collections import deque
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Iterator

from ..gdl import ast as A
from .. import stages as bundled_stages
from ..gdl import load
from . import edits, prior, screen, symmetry
from .cost import levin_k


@dataclass
class Candidate:
    """One candidate: what was drawn, what screening found, and the verdict."""

    number: int
    stage: A.Stage | None = None
    bits: float | None = None  # of the smallest edit that gives it (variants), of the stage (fresh)
    drawn_bits: float | None = None  # of the edit drawn (variants; a no-op change riding along costs bits)
    edit: tuple | None = None  # the smallest edit's word (variants: edits.replay reads it)
    changes: str = ""
    tau: float | None = None
    figures: dict = field(default_factory=dict)
    key: str | None = None
    fingerprint: str | None = None
    rejected_by: str | None = None  # "limit", "invalid", "not applicable", a filter, "duplicate"
    reason: str | None = None
    seconds: float = 0.0
    every_filter: bool = False  # screening ran every filter (accepted, or rejected by the last)

    @property
    def accepted(self) -> bool:
        return self.rejected_by is None

    @property
    def verdict(self) -> str:
        return "accepted" if self.accepted else f"rejected: {self.rejected_by}"

    @property
    def K(self) -> float | None:
        return None if self.tau is None or self.bits is None else levin_k(self.bits, self.tau)


@dataclass(frozen=True)
class Spec:
    """What a run draws: variants of `base` (a family of changes) or fresh stages (`limits`)."""

    seed: int
    base: A.Stage | None = None
    family: str = "all"
    limits: prior.Limits | None = None  # None: prior.Limits() for fresh stages, edits.VARIANT_LIMITS for variants
    filters: screen.Filters = screen.Filters()

    def __post_init__(self):
        if self.family not in edits.FAMILIES:
            raise ValueError(f"no family {self.family!r}; families: {', '.join(edits.FAMILIES)}")


def draw_candidate(spec: Spec, known: "Known", number: int) -> Candidate:
    """Draw and screen candidate `number` (in a worker process); a candidate the same as one of
    `known` is rejected as soon as that shows (by its key before screening, by its fingerprint
    after the random games)."""
    started = time.perf_counter()
    rng = prior.generator(spec.seed, number)
    c = Candidate(number)
    if spec.base is not None:
        edited = edits.edit(spec.base, rng, spec.family, spec.limits or edits.VARIANT_LIMITS)
        c.stage, c.bits, c.drawn_bits, c.changes = edited.stage, edited.bits, edited.bits, edited.changes
        rejected = edited.rejected
    else:
        drawn = prior.draw(rng, spec.limits or prior.Limits(), players=("black", "white"))
        c.stage, c.bits, rejected = drawn.stage, drawn.bits, drawn.rejected
    if rejected is not None:
        c.rejected_by, _, c.reason = rejected.partition(": ")
    else:
        c.key = symmetry.canonical_key(c.stage)
        if c.key in known.keys:
            c.rejected_by, c.reason = "duplicate", f"the same game as {known.keys[c.key]}"
        else:
            if spec.base is not None:  # K counts the smallest edit that gives the variant (edits.smallest)
                c.bits, c.edit = edits.smallest(spec.base, c.stage, edited.word, spec.family,
                                                spec.limits or edits.VARIANT_LIMITS)
            found = screen.screen(c.stage, spec.filters, known.prints)
            c.tau, c.fingerprint, c.figures = found.tau, found.fingerprint, found.figures
            c.rejected_by, c.reason = found.rejected_by, found.reason
            c.every_filter = found.rejected_by in (None, screen.FILTERS[-1])
    c.seconds = time.perf_counter() - started
    return c


@dataclass
class Known:
    """Stages a run must not repeat: their keys and fingerprints, and what each belongs to."""

    keys: dict[str, str] = field(default_factory=dict)
    prints: dict[str, str] = field(default_factory=dict)

    def add(self, stage: A.Stage, what: str, filters: screen.Filters) -> None:
        self.keys.setdefault(symmetry.canonical_key(stage), what)
        found = screen.screen(stage, replace(filters, enabled=False))  # the same random games
        if found.fingerprint is not None:
            self.prints.setdefault(found.fingerprint, what)

    def same_as(self, c: Candidate) -> str | None:
        return self.keys.get(c.key) or self.prints.get(c.fingerprint)


def known_stages(spec: Spec, exclude: list[Path]) -> Known:
    """The public stages, the base and every stage of the excluded folders."""
    known = Known()
    for path in bundled_stages.bundled():
        known.add(load(path), f"the public stage {path.stem}", spec.filters)
    if spec.base is not None:
        known.add(spec.base, "the base stage", spec.filters)
    for folder in exclude:
        for path in sorted(folder.glob("*.gdl")):
            known.add(load(path), f"{path} (excluded)", spec.filters)
    return known


def _screened(spec: Spec, known: Known, jobs: int, start: int) -> Iterator[Candidate]:
    """Candidates start, start+1, ... in order, screened `jobs` at a time."""
    number = start
    if jobs <= 1:
        while True:
            yield draw_candidate(spec, known, number)
            number += 1
    # fork: the workers start with the kernels this process loaded (Linux, like the sandbox)
    with ProcessPoolExecutor(jobs, mp_context=get_context("fork")) as pool:
        ahead = deque()  # candidates in flight, oldest first: a window kept full, results in order
        while True:
            while len(ahead) < 4 * jobs:
                ahead.append(pool.submit(draw_candidate, spec, known, number))
                number += 1
            yield ahead.popleft().result()


@dataclass
class Run:
    """A run's outcome: the accepted candidates in order, every candidate judged, and the time."""

    spec: Spec
    accepted: list[Candidate]
    judged: list[Candidate]
    seconds: float
    stopped: str | None = None  # why the run ended short of n accepted

    def rejections(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for c in self.judged:
            if not c.accepted:
                counts[c.rejected_by] = counts.get(c.rejected_by, 0) + 1
        return counts

    def weights(self) -> list[float]:
        """Each accepted stage's Levin weight, normalised over the set: the importance weight that
        turns the draw (∝ 2^-bits) into the prior ∝ 2^-K = 2^-bits / τ, that is ∝ 1/τ. (Not 2^-K
        itself: the draw already carries the 2^-bits; weighting by it again would count it twice.)"""
        taus = [c.tau for c in self.accepted]
        if not taus:
            return []
        raw = [1.0 / t for t in taus]
        total = math.fsum(raw)
        return [w / total for w in raw]


def run(spec: Spec, n: int, *, jobs: int = 0, exclude: list[Path] = (), max_candidates: int | None = None,
        progress: Callable[[Candidate, int], None] | None = None) -> Run:
    """Draw and screen candidates until `n` are accepted (or `max_candidates` were judged)."""
    started = time.perf_counter()
    jobs = jobs or os.cpu_count() or 1
    raw = not spec.filters.enabled
    known = Known() if raw else known_stages(spec, list(exclude))
    static = Known(dict(known.keys), dict(known.prints))  # what workers check: fixed for the run
    per_stage = 500 if spec.base is not None else 20_000  # fresh draws: most break a limit, in microseconds
    limit = max_candidates if max_candidates is not None else max(1000, per_stage * n)
    accepted: list[Candidate] = []
    judged: list[Candidate] = []
    for c in _screened(spec, static, jobs, 0):
        if len(judged) >= limit:
            return Run(spec, accepted, judged, time.perf_counter() - started,
                       f"{limit} candidates judged, {len(accepted)} of {n} accepted")
        if c.accepted and not raw:
            same = known.same_as(c)
            if same is not None:
                c.rejected_by, c.reason = "duplicate", f"the same game as {same}"
        judged.append(c)
        if c.accepted:
            accepted.append(c)
            if not raw:
                known.keys[c.key] = known.prints[c.fingerprint] = f"variant {len(accepted)}"
        if progress is not None:
            progress(c, len(accepted))
        if len(accepted) == n:
            break
    return Run(spec, accepted, judged, time.perf_counter() - started)
