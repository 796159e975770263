"""The exported conformance check (gdl/conformance.py) on every bundled stage."""
import pytest

from ludica import gdl, stages
from ludica.gdl.conformance import check_game


@pytest.mark.parametrize("path", stages.bundled(), ids=lambda p: p.stem)
def test_reference_conforms(path):
    game = gdl.reference(gdl.load(path))
    assert check_game(game, games=4, seed=7) > 4
