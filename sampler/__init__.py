"""The sampler: unseen stages drawn with probability ∝ 2^-bits, screened for playability inside
the kernels, each played once however often drawn (its multiplicity counted), weighted so that
means over a set follow the prior ∝ 2^-K, variants with their divergence from the base,
reproducible to the byte.

    from ludica import gdl, sampler
    base = gdl.load("stages/standard-8x8.gdl")
    run = sampler.variants(base, 10, seed=1, family="arena")   # a Run: .accepted, .judged
    for c in run.accepted:
        print(c.changes, c.bits, c.tau, c.K, c.multiplicity, c.divergence, c.figures)
    sampler.fresh(5, seed=1)                                   # fresh stages of the whole language
    sampler.write(run, Path("out"), prefix="variant")          # .gdl files + manifest.json

The modules: prior.py (the exact prior through gdl/bits.py's code), edits.py (the edit model),
cost.py (τ, counted), screen.py (the playability filters), symmetry.py (duplicates), divergence.py
(how much a policy tuned to the base loses on a variant), sample.py (a run on every core),
output.py (the files and manifest).
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence

from ..gdl.ast import Stage
from .output import write
from .prior import Limits
from .sample import Candidate, Run, Spec, run
from .screen import FILTERS, NO_FILTERS, Filters
from .edits import FAMILIES


def variants(base: Stage, n: int, *, seed: int, family: str = "all", filters: Filters = Filters(), jobs: int = 0,
             exclude: Sequence[Path] = (), max_candidates: int | None = None, progress=None,
             min_divergence: float | None = None) -> Run:
    """Draw variants of `base` until `n` are accepted (see sample.run); `min_divergence`: reject
    those on which a policy tuned to the base loses less of its score (sampler/divergence.py)."""
    return run(Spec(seed, base, family, filters=filters, min_divergence=min_divergence), n, jobs=jobs,
               exclude=exclude, max_candidates=max_candidates, progress=progress)


def fresh(n: int, *, seed: int, limits: Limits = Limits(), filters: Filters = Filters(), jobs: int = 0,
          exclude: Sequence[Path] = (), max_candidates: int | None = None, progress=None) -> Run:
    """Draw fresh stages from the whole language until `n` are accepted."""
    return run(Spec(seed, None, limits=limits, filters=filters), n, jobs=jobs, exclude=exclude,
               max_candidates=max_candidates, progress=progress)


__all__ = ["variants", "fresh", "run", "write", "Spec", "Run", "Candidate", "Filters", "NO_FILTERS", "FILTERS",
           "Limits", "FAMILIES"]
