"""Golden files of the bundled stages (tests/golden/, regenerated only by scripts/make_golden.py).

Perft counts to a depth and one recorded playthrough per stage, for the reference interpreter;
the compiled kernels are held to the same files.
"""
import json
from pathlib import Path

import pytest

from ludica import gdl, stages

from playthrough import replay

GOLDEN = Path(__file__).parent / "golden"
PERFT = json.loads((GOLDEN / "perft.json").read_text())
BUNDLED = {p.stem: p for p in stages.bundled()}
# The regular run counts each stage to the depth the reference reaches in about a second or two;
# the slow suite goes to the full golden depth.
FAST_LEAVES = 60_000


@pytest.fixture(scope="module")
def games():
    return {name: gdl.reference(gdl.load(path)) for name, path in BUNDLED.items()}


def test_every_bundled_stage_has_golden_files():
    assert set(PERFT) == set(BUNDLED)
    assert {p.stem for p in (GOLDEN / "playthroughs").glob("*.txt")} == set(BUNDLED)


def test_published_perft_figures():
    assert PERFT["standard-8x8"][:6] == [4, 12, 56, 244, 1396, 8200]
    assert PERFT["tic-tac-toe"] == [9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168]
    assert PERFT["connect-four"][:6] == [7, 49, 343, 2401, 16807, 117649]


def _depths(name, slow):
    counts = PERFT[name]
    return [(d, n) for d, n in enumerate(counts, 1) if slow or n <= FAST_LEAVES]


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_perft(games, name):
    for depth, leaves in _depths(name, slow=False):
        assert gdl.perft(games[name], depth) == leaves, f"{name} depth {depth}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_perft_deep(games, name):
    for depth, leaves in _depths(name, slow=True):
        assert gdl.perft(games[name], depth) == leaves, f"{name} depth {depth}"


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_playthrough(games, name):
    expected = (GOLDEN / "playthroughs" / f"{name}.txt").read_text()
    assert replay(games[name], expected) == expected
