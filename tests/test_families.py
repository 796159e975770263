"""The families' tables and the ply protocol they share (compiler/ply.py): each family packs its
tables by name and reads every one back under the same name; the kernels a factory makes load
from numba's cache like every other kernel."""
from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

from ludica import gdl, stages
from ludica.compiler import families
from ludica.compiler.families import othello, pieces, placement
from ludica.compiler.program import Layout, build

# A stage of each family's shape whose same-shaped tables all differ, so that two tables read back
# in each other's place would show (test_the_stage_tells_the_tables_apart).
SHAPES = [(othello, "standard-8x8"), (pieces, "breakthrough"), (placement, "hex-11"), (placement, "connect-four")]


def _tables(family, name):
    program, _ = build(gdl.load(stages.path(name)))
    tables = family.applies(program)
    assert tables is not None, f"{name} is not of the {family.NAME} family's shape"
    return program, tables


@pytest.mark.parametrize("family, name", SHAPES, ids=[f"{f.NAME}-{n}" for f, n in SHAPES])
def test_a_family_reads_back_every_table_under_its_name(family, name):
    program, tables = _tables(family, name)
    named = family.named_tables(program)
    back = family.unpack(tables[0], tables[1])
    assert set(back._fields) == set(named), (family.NAME, back._fields)
    for field in back._fields:
        ours, theirs = np.asarray(named[field]), getattr(back, field)
        assert ours.shape == theirs.shape and np.array_equal(ours, theirs), (family.NAME, field)


@pytest.mark.parametrize("family, name", SHAPES, ids=[f"{f.NAME}-{n}" for f, n in SHAPES])
def test_the_stage_tells_the_tables_apart(family, name):
    program, _ = _tables(family, name)
    named = family.named_tables(program)
    for (a, x), (b, y) in itertools.combinations(named.items(), 2):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape != y.shape or not np.array_equal(x, y), f"{name}: {a} and {b} are alike"


def test_every_family_names_its_tables():
    for family in families.FAMILIES:
        assert callable(family.named_tables) and hasattr(family.unpack, "py_func"), family.NAME


def test_a_layout_packs_its_tables_by_name_only():
    layout = Layout("a", "b")
    a, b = np.arange(3, dtype=np.int32), np.arange(6, dtype=np.int32).reshape(2, 3)
    assert np.array_equal(layout.pack(b=b, a=a), layout.pack(a=a, b=b))
    assert layout.number("b") == 1
    with pytest.raises(ValueError, match="do not fit"):
        layout.pack(a=a)
    with pytest.raises(ValueError, match="do not fit"):
        layout.pack(a=a, b=b, c=a)


_WARM = """
from ludica import compiler, gdl, stages
from ludica.compiler.jit import cache_use
for name in ("tic-tac-toe", "breakthrough"):
    game = compiler.compile(gdl.load(stages.path(name)))
    game.playouts(4, seed=1)
    state = game.initial_state()
    game.apply(state, game.legal_moves(state)[0])
print(cache_use())
"""


def test_the_kernels_a_factory_makes_load_from_the_cache():
    """ply.step_kernel and ends.end_rule close over a form's kernels; numba would key their cache on
    a pickle that differs in every process (jit.py): a second process must compile nothing."""
    runs = [subprocess.run([sys.executable, "-c", _WARM], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[1].strip().endswith(", 0 compiled"), runs


def test_closures_over_other_kernels_have_other_cache_keys():
    """Two kernels of one factory share a source line: their cache entries differ by what they close
    over, nested closures included (jit._closed_over), else one form would load another's code."""
    from ludica.compiler import jit
    from ludica.compiler.ply import describe_bits

    assert jit._closed_over(describe_bits(1, othello._list)) != jit._closed_over(describe_bits(1, pieces._list))
    assert jit._closed_over(describe_bits(1, othello._list)) != jit._closed_over(describe_bits(2, othello._list))
    assert jit._closed_over(othello.step) != jit._closed_over(pieces.step)
    assert jit._closed_over(othello.step) == jit._closed_over(othello.step)
