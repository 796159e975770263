"""The face of the package: its version, the public API by stage of the pipeline, and its errors.

`import ludica` is cheap (no compiler loaded) and every name it offers is its package's own; every
exception class ludica defines is a LudicaError, so `except ludica.LudicaError` catches whatever
ludica raises on purpose; an illegal move is an IllegalMoveError that names the move and carries
the position, in-process and across the rules oracle alike.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

import ludica
from ludica import stages
from ludica.gdl.game import Move
from ludica.runtime.oracle import wire


def test_the_version_is_the_installed_distributions():
    assert ludica.__version__ == version("ludica")
    out = subprocess.run([sys.executable, "-m", "ludica.cli", "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"ludica {ludica.__version__}"


def test_importing_ludica_loads_no_compiler():
    code = "import sys, ludica; print(ludica.__version__); print(sorted(m for m in ('numba', 'numpy', 'lark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[1] == "[]"


@pytest.mark.parametrize("name", [n for n in ludica.__all__ if n != "__version__"])
def test_every_public_name_is_its_packages_own(name):
    value = getattr(ludica, name)
    if inspect.ismodule(value):
        assert value.__name__ == f"ludica.{name}"
    else:
        assert value is getattr(importlib.import_module(ludica._WHERE[name]), name)
    assert name in dir(ludica)


def test_a_name_ludica_does_not_offer_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'compiel'"):
        ludica.compiel  # noqa: B018


def test_the_docstrings_example_runs():
    game = ludica.compile(ludica.load(ludica.stages.path("tic-tac-toe")))
    assert [str(m) for m in game.legal_moves(game.initial_state())[:3]] == ["a1", "b1", "c1"]


def _modules():
    """Every module of ludica (the pipeline's folders install as subpackages, found one by one)."""
    roots = [ludica] + [importlib.import_module(f"ludica.{name}") for name in ludica._PACKAGES]
    for root in roots:
        yield root
        for info in pkgutil.walk_packages(root.__path__, root.__name__ + "."):
            if ".agents." in info.name or info.name.endswith("__main__"):
                continue  # agents are programs that ludica runs, not ludica; __main__ runs the command line
            yield importlib.import_module(info.name)


def test_every_exception_ludica_defines_is_a_ludica_error():
    defined = {cls for module in _modules() for _, cls in inspect.getmembers(module, inspect.isclass)
               if issubclass(cls, BaseException) and cls.__module__ == module.__name__}
    assert len(defined) >= 15, sorted(c.__qualname__ for c in defined)  # the walk found them
    outside = sorted(f"{c.__module__}.{c.__qualname__}" for c in defined if not issubclass(c, ludica.LudicaError))
    assert not outside, f"exceptions outside LudicaError: {outside}"


def test_an_illegal_move_names_the_move_and_carries_the_position():
    game = ludica.compile(ludica.load(stages.path("standard-8x8")))
    start = game.initial_state()
    with pytest.raises(ludica.IllegalMoveError) as caught:
        game.apply(start, Move.parse("a1"))
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, ludica.LudicaError)
    assert str(error) == "illegal move 'a1': legal moves are d3 c4 f5 e6"
    assert error.move == Move.parse("a1") and [str(m) for m in error.legal] == ["d3", "c4", "f5", "e6"]
    assert np.array_equal(error.state, start) and error.state is not start
    with pytest.raises(ludica.IllegalMoveError, match="illegal action 99"):
        game.apply_action(start, 99)


def test_an_illegal_move_crosses_the_rules_oracle_as_an_illegal_move_error():
    error = ludica.IllegalMoveError("illegal move 'j9': legal moves are a1")
    status, body = wire.failure(error)
    assert status == wire.ILLEGAL
    back = wire.error_of(status, body)
    assert type(back) is ludica.IllegalMoveError and str(back) == str(error)
    plain = wire.error_of(*wire.failure(ValueError("seed -1: a seed is an integer of 64 bits")))
    assert type(plain) is ValueError


def test_every_package_folder_is_shipped():
    """A non-editable install carries only the packages pyproject lists by name: a new package folder
    left out of the list works in a checkout and is missing once installed."""
    root = Path(__file__).parent.parent
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = setuptools["package-dir"]
    found = {f"{package}.{'.'.join(init.parent.relative_to(root / folder).parts)}".rstrip(".")
             for package, folder in folders.items() for init in (root / folder).rglob("__init__.py")
             if "agents" not in init.parent.relative_to(root / folder).parts}
    assert found == set(setuptools["packages"]), (found ^ set(setuptools["packages"]))
