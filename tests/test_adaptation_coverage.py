"""A's intervals hold what they say (issue 34 item 6): the simulation of
benchmarks/adaptation_coverage.py from known odds, in every design — coverage ≥ 93% for every point
of the curve and for its area. Slow (a minute): run with `pytest -m slow`."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRIALS = 2000  # coverage known to ±1% (two standard errors at 95%)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["default", "flat", "strong", "weak", "draws", "one_stage", "many",
                                    "independent"])
def test_the_points_and_the_area_are_covered(monkeypatch, design):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as the script sees itself
    import adaptation_coverage

    rows = adaptation_coverage.measure(design, TRIALS, seed=1)
    assert {k: r["cover"] for k, r in rows.items() if r["cover"] < adaptation_coverage.TARGET_COVERAGE} == {}
