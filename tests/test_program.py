"""The lowered program: named fields that survive packing for calls from Python, and dispatchers
that stop on a code they have no branch for instead of playing another concept's rule."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from ludica import compiler, gdl, stages
from ludica.compiler import codes as K
from ludica.compiler import calls, families
from ludica.compiler import program as program_module
from ludica.compiler.jit import LEAF
from ludica.compiler.program import FIELDS, Program, build, pack, unpack
from ludica.gdl import InternalError


@pytest.mark.parametrize("name", ["standard-8x8", "hex-11", "ataxx", "breakthrough", "custodian"])
def test_every_field_survives_packing(name):
    program, _ = build(gdl.load(stages.path(name)))
    back = unpack(pack(program), program.bb_mask)
    assert type(back).__name__ == "Program" and back._fields == Program._fields
    for field, _, _ in FIELDS:
        ours, theirs = getattr(program, field), getattr(back, field)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape and np.array_equal(ours, theirs), field


def test_every_packed_table_has_its_number():
    packed = [name for name, ndim, _ in FIELDS if ndim is not None]
    assert [getattr(program_module, "T_" + name.upper()) for name in packed] == list(range(len(packed)))


def test_every_field_is_documented_with_dtype_and_shape():
    assert Program._fields == tuple(name for name, _, _ in FIELDS)
    for name, _, what in FIELDS:
        assert what.split("[")[0] in ("int32", "uint64"), name
        assert name in Program.__doc__


def _poked(text: str, poke) -> compiler.CompiledGame:
    """A compiled stage whose program then gets a code no dispatcher knows (as a concept added to
    program.py and forgotten in a kernel would)."""
    game = compiler.CompiledGame(gdl.loads(text))  # a private game: compile() shares its games
    poke(game.program)
    game._flat = pack(game.program)
    # calls from Python on the generic kernels (the family keeps its playouts)
    game._calls(calls.step, calls.tables(game.program))
    return game


OTHELLO = stages.path("standard-8x8").read_text()
ATAXX = stages.path("ataxx").read_text()
TIC_TAC_TOE = stages.path("tic-tac-toe").read_text()


def _set(table: str, index, value: int):
    return lambda program: getattr(program, table).__setitem__(index, value)


UNKNOWN_CODES = {
    "move kind": (ATAXX, _set("rules", (0, K.R_KIND), 99)),
    "effect": (ATAXX, _set("effects", (0, 0, K.FX_KIND), 99)),
    "legality": (OTHELLO, _set("rules", (0, K.R_LEGALITY), 99)),
    "turn order": (OTHELLO, _set("game", K.G_TURN, 99)),
    "end condition": (TIC_TAC_TOE, _set("ends", (0, K.E_CONDITION), 99)),
    "result": (OTHELLO, _set("ends", (0, K.E_RESULT), 99)),
}


@pytest.mark.parametrize("concept", sorted(UNKNOWN_CODES))
def test_an_unknown_code_is_an_internal_error_never_another_concepts_branch(concept):
    text, poke = UNKNOWN_CODES[concept]
    game = _poked(text, poke)
    with pytest.raises(InternalError, match="no branch"):
        game.playouts(20, seed=1, generic=True)
    if concept != "result":  # a result is read only where a game ends, deep in the tree
        with pytest.raises(InternalError, match="no branch"):
            game.perft(2)
    with pytest.raises(InternalError, match="no branch"):
        state = game.initial_state()
        for _ in range(200):  # the code shows up when a game ends (a result) or after a move (a turn)
            state = game.apply(state, game.legal_moves(state)[0])


@pytest.mark.parametrize("concept", ["turn order", "end condition", "result"])
def test_a_family_stops_on_an_unknown_code_too(concept):
    text, poke = UNKNOWN_CODES[concept]
    game = _poked(text, poke)
    assert families.select(game.program) == (None, None)  # the registry sends it to the generic kernels
    family = game._family  # ... but a family's own dispatchers also refuse it
    lengths, winners = np.zeros(20, np.int32), np.zeros(20, np.int32)
    starts = game.initial_state()[None, :].copy()
    family.playouts(family.applies(game.program), starts, 0, 1, 1000, lengths, winners)
    assert (winners == K.BAD_CODE).any()


def test_a_family_takes_only_the_codes_it_declares():
    for family in families.FAMILIES:
        for category, codes in K.CATEGORIES.items():
            assert family.HANDLES[category] | family.EXCLUDES[category] == set(codes), (family.NAME, category)
            assert not family.HANDLES[category] & family.EXCLUDES[category], (family.NAME, category)


def test_a_family_names_its_codes_one_by_one():
    # a whole category would take every concept added later, with nobody deciding
    with pytest.raises(ValueError, match="one by one"):
        K.coverage(conditions=K.CONDITIONS)
    with pytest.raises(ValueError, match="no concept category"):
        K.coverage(endings={K.LINE})


def test_a_leaf_kernel_may_not_return_an_array():
    """A leaf runs without reference counts (jit.py): an array it returned would point at memory
    nothing keeps alive, so the leaf's compiler refuses it, in a tuple too. (Not cached: a test's
    functions have no place in the compiler's cache.)"""
    @njit(**LEAF)
    def returns_a_view(cells):
        return 1, cells[1:]

    @njit(**LEAF)
    def returns_a_scalar(cells):
        return cells[1] + 1

    with pytest.raises(Exception, match="returns_a_view returns .*array.*must return no array"):
        returns_a_view(np.arange(3, dtype=np.int32))
    assert returns_a_scalar(np.arange(3, dtype=np.int32)) == 2
