"""Variant sets: candidates drawn, screened on every core, de-duplicated, accepted in order.

Candidate i of a run seeded S is drawn from its own generator (prior.generator(S, i)), so it is
the same whatever process screens it; candidates are judged in the order of their numbers and the
run stops at the n-th accepted one: the same command and seed give the same set, byte for byte,
with one process or many.

Public and excluded stages: a candidate whose canonical key (symmetries and labels: symmetry.py)
or whose random games' fingerprint equals a public (bundled) stage's or the base's is rejected as
"public", one equal to a stage of an --exclude folder as "excluded" (the set is drawn among the
stages not seen); `Run.draws` counts them, and the share of the valid draws that were public.

Draws counted, not dropped. Candidates are i.i.d. draws of the edit model (of the prior, fresh),
conditioned on acceptance: stage s comes with probability ∝ Q(s), the sum of 2^-bits over the
edits (descriptions) that give it. A candidate that is an accepted stage again (the same key or
fingerprint) is not played again but counted: the stage's multiplicity m_s is the number of the
run's N accepted draws that gave it, so Σ_s m_s δ_s / N is the empirical measure of the draws,
which tends to Q. Each stage's Levin weight is m_s / τ_s normalised over the set: the importance
weight 2^-K / 2^-bits = 1/τ of each draw, summed over its draws, so that a weighted mean over the
set estimates the mean under the prior ∝ Q(s) / τ(s) = Σ over the edits e giving s of 2^-K(e)
(K = bits + log2 τ; the stage records the K of its smallest edit, the largest term: edits.smallest).
Rejecting the draws again instead (before issue 20) gave every stage the weight 1/τ whatever its
2^-bits: as a set grows the estimate drifts toward a uniform mean over the stages there are. Weights,
not rejection on τ: that would discard most draws. The run stops at its n-th distinct stage, so its
last draw is always a new one (a bias of one draw in N). A raw draw of the prior (--filters none)
keeps every draw as its own entry, duplicates included.
"""
from __future__ import annotations

import math
import os
from collections import deque
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar
from collections.abc import Callable, Iterator, Sequence

from ..gdl import ast as A
from .. import stages as bundled_stages
from ..gdl import load
from ..gdl.diagnostics import InternalError
from . import divergence, edits, prints, prior, screen, symmetry
from .cost import levin_k


T = TypeVar("T")


def present(value: T | None, what: str) -> T:
    """A value the steps before promise (a draw not rejected has its stage, a screened one its τ):
    missing, it is a bug of ours."""
    if value is None:
        raise InternalError(f"{what} is missing")
    return value


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
    rejected_by: str | None = None  # "limit", "invalid", "not applicable", a filter, "divergence", "public", ...
    reason: str | None = None
    seconds: float = 0.0
    every_filter: bool = False  # screening ran every filter (accepted, or rejected by the last)
    multiplicity: int = 1  # an accepted stage: the run's draws that gave it (itself and the draws again)
    drawn_again: int | None = None  # a draw of the set's stage number N again: counted there, not played
    divergence: dict | None = None  # variants: how much the base-tuned policy loses here (divergence.py)

    @property
    def accepted(self) -> bool:
        """A new stage of the set (a stage drawn again is counted, not accepted again)."""
        return self.rejected_by is None and self.drawn_again is None

    @property
    def verdict(self) -> str:
        if self.drawn_again is not None:
            return f"drawn again: stage {self.drawn_again}"
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
    # variants: how divergence from the base is measured (None: it is not); below min_divergence a
    # variant is rejected ("divergence")
    divergence: divergence.Settings | None = divergence.Settings()
    min_divergence: float | None = None

    def __post_init__(self):
        if self.family not in edits.FAMILIES:
            raise ValueError(f"no family {self.family!r}; families: {', '.join(edits.FAMILIES)}")
        if self.min_divergence is not None and not self.measures_divergence:
            raise ValueError("a minimum divergence is a filter of variants (of a base, filters on, divergence "
                             "measured)")

    @property
    def measures_divergence(self) -> bool:
        return self.base is not None and self.divergence is not None and self.filters.enabled


def draw_candidate(spec: Spec, known: Known, number: int, reference: divergence.Score | None = None) -> Candidate:
    """Draw and screen candidate `number` (in a worker process); a candidate the same as one of
    `known` is rejected as soon as that shows (by its key before screening, by its fingerprint
    after the random games). A variant that passes every filter has its divergence from the base
    measured against `reference` (the base's score), when given."""
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
        stage = present(c.stage, f"the stage of candidate {number}, drawn and not rejected")
        key = c.key = symmetry.canonical_key(stage)
        if key in known.keys:
            what = known.keys[key]
            c.rejected_by, c.reason = known.why[what], f"the same game as {what}"
        else:
            if spec.base is not None:  # K counts the smallest edit that gives the variant (edits.smallest)
                c.bits, c.edit = edits.smallest(spec.base, stage, edited.word, spec.family,
                                                spec.limits or edits.VARIANT_LIMITS)
            found = screen.screen(stage, spec.filters, known.prints)
            c.tau, c.fingerprint, c.figures = found.tau, found.fingerprint, found.figures
            c.rejected_by, c.reason = found.rejected_by, found.reason
            if found.rejected_by == "duplicate":  # screening's word for a fingerprint of `known`
                c.rejected_by = known.why[known.prints[present(c.fingerprint, "a duplicate's fingerprint")]]
            c.every_filter = found.rejected_by in (None, screen.FILTERS[-1])
            if c.rejected_by is None and reference is not None:
                _diverge(c, spec, reference)
    c.seconds = time.perf_counter() - started
    return c


def _diverge(c: Candidate, spec: Spec, reference: divergence.Score) -> None:
    """The variant's divergence from the base (divergence.py), and the verdict of min_divergence."""
    settings = spec.divergence
    if settings is None:
        raise ValueError("a divergence from the base is measured with the spec's divergence settings, and it has none")
    stage = present(c.stage, f"the stage of candidate {c.number}")
    c.divergence = divergence.figure(reference, divergence.score(stage, settings.games, settings))
    if spec.min_divergence is not None and c.divergence["value"] < spec.min_divergence:
        c.rejected_by, c.reason = "divergence", (f"the base-tuned policy loses {c.divergence['value']:.2f} of its "
                                                 f"score here, below {spec.min_divergence:g}")


PUBLIC, EXCLUDED = "public", "excluded"
DRAW_REJECTIONS = ("limit", "not applicable", "invalid", "not played")  # the draw itself is no valid stage


@dataclass
class Known:
    """Stages a run must not draw: their keys and fingerprints (→ what each is), and why (what →
    PUBLIC or EXCLUDED)."""

    keys: dict[str, str] = field(default_factory=dict)
    prints: dict[str, str] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)

    def add(self, stage: A.Stage, what: str, why: str, filters: screen.Filters) -> None:
        self.why.setdefault(what, why)
        self.keys.setdefault(symmetry.canonical_key(stage), what)
        found = prints.fingerprint(stage, filters)  # the same random games (a bundled stage's: shipped)
        if found is not None:
            self.prints.setdefault(found, what)


def known_stages(spec: Spec, exclude: list[Path]) -> Known:
    """The public stages, the base and every stage of the excluded folders."""
    known = Known()
    for path in bundled_stages.bundled():
        known.add(load(path), f"the public stage {path.stem}", PUBLIC, spec.filters)
    if spec.base is not None:
        known.add(spec.base, "the base stage", PUBLIC, spec.filters)
    for folder in exclude:
        for path in sorted(folder.glob("*.gdl")):
            known.add(load(path), f"{path} (excluded)", EXCLUDED, spec.filters)
    return known


def _screened(spec: Spec, known: Known, jobs: int, start: int,
              reference: divergence.Score | None) -> Iterator[Candidate]:
    """Candidates start, start+1, ... in order, screened `jobs` at a time."""
    number = start
    if jobs <= 1:
        while True:
            yield draw_candidate(spec, known, number, reference)
            number += 1
    # fork: the workers start with the kernels this process loaded (Linux, like the sandbox)
    with ProcessPoolExecutor(jobs, mp_context=get_context("fork")) as pool:
        # candidates in flight, oldest first: a window kept full, results in order
        ahead: deque[Future[Candidate]] = deque()
        while True:
            while len(ahead) < 4 * jobs:
                ahead.append(pool.submit(draw_candidate, spec, known, number, reference))
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
    reference: divergence.Score | None = None  # the base's score, which divergence is measured from

    def rejections(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for c in self.judged:
            if c.rejected_by is not None:  # a stage drawn again is counted, not rejected
                counts[c.rejected_by] = counts.get(c.rejected_by, 0) + 1
        return counts

    def weights(self) -> list[float]:
        """Each accepted stage's Levin weight, normalised over the set: multiplicity / τ, the
        importance weight 2^-K / 2^-bits = 1/τ of each of its draws (the draws carry the 2^-bits:
        weighting by it again would count it twice), summed over them (see the module docstring)."""
        raw = [c.multiplicity / present(c.tau, f"the τ of accepted candidate {c.number}") for c in self.accepted]
        total = math.fsum(raw)
        return [w / total for w in raw]

    def draws(self) -> dict:
        """What the valid draws were: new stages, draws again, public, excluded, and rejected by
        a filter; the share that were public stages (or the base)."""
        valid = [c for c in self.judged if c.rejected_by not in DRAW_REJECTIONS]
        public = sum(c.rejected_by == PUBLIC for c in valid)
        again = sum(c.drawn_again is not None for c in valid)
        excluded = sum(c.rejected_by == EXCLUDED for c in valid)
        return {"valid": len(valid), "new stages": len(self.accepted), "drawn again": again, "public": public,
                "excluded": excluded, "filtered out": len(valid) - len(self.accepted) - again - public - excluded,
                "public share": round(public / len(valid), 4) if valid else None}


def _compile_for_screening(base: A.Stage, part: str) -> None:
    from .. import compiler

    try:
        game = compiler.compile(base.without_information())
        if part == "games":
            game.games(1, 0, ("random", "random"), 8)
        else:
            game.solve(1)
    except Exception:
        pass  # a base that cannot be played so (dice: no solver) is the draw's to say, not a helper's


def _prefetch(spec: Spec, jobs: int) -> list:
    """Processes that compile the kernels every variant's screening calls, the games between
    policies and the solver (compiler/matches.py, solve.py: 20 s and 6 s of a fresh clone's draw,
    issue 34), while this process sets the public stages aside and scores the base: the screening
    workers, forked after that, wait for them (compiler/jit.py's lock) and load them, where each
    compiled both itself, at once. Nothing to do once they are in numba's cache; none for fresh
    draws (their first candidates have other forms to compile) or unscreened ones."""
    if jobs < 2 or spec.base is None or not spec.filters.enabled:
        return []
    parts = ["games"] + (["solve"] if spec.filters.solve_positions else [])
    helpers = [get_context("fork").Process(target=_compile_for_screening, args=(spec.base, part), daemon=True,
                                           name=f"compile {part}") for part in parts]
    for helper in helpers:
        helper.start()
    return helpers


def run(spec: Spec, n: int, *, jobs: int = 0, exclude: Sequence[Path] = (), max_candidates: int | None = None,
        progress: Callable[[Candidate, int], None] | None = None) -> Run:
    """Draw and screen candidates until `n` are accepted (or `max_candidates` were judged)."""
    jobs = jobs or os.cpu_count() or 1
    helpers = _prefetch(spec, jobs)
    try:
        return _run(spec, n, jobs, exclude, max_candidates, progress)
    finally:
        for helper in helpers:  # waited for, not killed: numba writes a cache entry in two files
            helper.join()


def _run(spec: Spec, n: int, jobs: int, exclude: Sequence[Path], max_candidates: int | None,
         progress: Callable[[Candidate, int], None] | None) -> Run:
    started = time.perf_counter()
    raw = not spec.filters.enabled
    known = Known() if raw else known_stages(spec, list(exclude))  # fixed for the run: the workers check it
    # the base's score, once, before the workers start (they are given it)
    reference = divergence.base_score(spec.base, spec.divergence) if spec.measures_divergence else None
    per_stage = 500 if spec.base is not None else 20_000  # fresh draws: most break a limit, in microseconds
    limit = max_candidates if max_candidates is not None else max(1000, per_stage * n)
    accepted: list[Candidate] = []
    judged: list[Candidate] = []
    number_of: dict[str, int] = {}  # the accepted stages' keys and fingerprints → their number in the set
    for c in _screened(spec, known, jobs, 0, reference):
        if len(judged) >= limit:
            return Run(spec, accepted, judged, time.perf_counter() - started,
                       f"{limit} candidates judged, {len(accepted)} of {n} accepted", reference)
        key = None if raw else c.key
        again = None if key is None else number_of.get(key) or _number(number_of, c.fingerprint)
        if key is not None and again is not None and c.rejected_by not in (PUBLIC, EXCLUDED):
            # the same game, whatever its own screening said (a mirror image plays other random games)
            first = accepted[again - 1]
            first.multiplicity += 1
            c.drawn_again, c.rejected_by, c.reason = again, None, None
            number_of.setdefault(key, again)
            bits = present(c.bits, f"the bits of candidate {c.number}, drawn")
            if key == first.key and bits < present(first.bits, f"the bits of accepted candidate {first.number}"):
                first.bits, first.edit = bits, c.edit  # another edit of the very stage, smaller
        judged.append(c)
        if c.accepted:
            accepted.append(c)
            if not raw:
                number_of[present(c.key, "an accepted stage's key")] = len(accepted)
                number_of[present(c.fingerprint, "an accepted stage's fingerprint")] = len(accepted)
        if progress is not None:
            progress(c, len(accepted))
        if len(accepted) == n:
            break
    return Run(spec, accepted, judged, time.perf_counter() - started, reference=reference)


def _number(number_of: dict[str, int], fingerprint: str | None) -> int | None:
    """The number in the set of the stage that plays these random games (None: none, or no games)."""
    return None if fingerprint is None else number_of.get(fingerprint)
