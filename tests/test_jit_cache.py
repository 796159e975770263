"""numba's cache keyed on what a kernel's machine code can hold (compiler/jit.py): a module's kernels
on the module and every compiler module it imports, transitively; a closure also on the modules of
the kernels it closes over. An edit recompiles exactly the kernels that may hold the edited code,
and never loads one that holds the old code.

The edits are made to a toy package beside a copy of compiler/jit.py (the real keying, on a few
kernels that compile in a second), in fresh processes with their own NUMBA_CACHE_DIR:

    base.one  <-  middle.two  <-  top.three      top imports middle only, not base
    apart.alone                                  imports no other module
    factory.adding(f): a closure over f          made.plus = adding(made.five)
    plain.eight: plain Python                    wrapping.eight = kernel(plain.eight)
"""
from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import ludica.compiler
from ludica.compiler import jit

COMPILER = Path(jit.__file__).resolve().parent

_TOY = {
    "__init__.py": "",
    "base.py": "from .jit import kernel\n\n\n@kernel\ndef one():\n    return 1\n",
    "middle.py": "from .base import one\nfrom .jit import kernel\n\n\n@kernel\ndef two():\n    return one() + 1\n",
    "top.py": "from .middle import two\nfrom .jit import kernel\n\n\n@kernel\ndef three():\n    return two() + 1\n",
    "apart.py": "from .jit import kernel\n\n\n@kernel\ndef alone():\n    return 7\n",
    "factory.py": ("from .jit import kernel\n\n\ndef adding(f):\n    @kernel\n    def add():\n"
                   "        return f() + 100\n    return add\n"),
    "plain.py": "def eight():\n    return 8\n",
    "wrapping.py": "from .jit import kernel\nfrom .plain import eight\n\neight = kernel(eight)\n",
    "made.py": ("from .factory import adding\nfrom .jit import kernel\n\n\n@kernel\ndef five():\n    return 5\n\n\n"
                "plus = adding(five)\n"),
}

# Call every kernel from Python; print the results and the kernels compiled (not loaded).
_RUN = """
import json
from toy import apart, base, made, middle, top, wrapping
values = {"three": top.three(), "alone": apart.alone(), "plus": made.plus(), "eight": wrapping.eight()}
kernels = {"base.one": base.one, "middle.two": middle.two, "top.three": top.three, "apart.alone": apart.alone,
           "made.five": made.five, "made.plus": made.plus, "wrapping.eight": wrapping.eight}
compiled = sorted(name for name, kernel in kernels.items() if kernel.stats.cache_misses)
print(json.dumps({"values": values, "compiled": compiled}))
"""

EVERY_KERNEL = ["apart.alone", "base.one", "made.five", "made.plus", "middle.two", "top.three", "wrapping.eight"]
FIRST_VALUES = {"three": 3, "alone": 7, "plus": 105, "eight": 8}
WRAPPED = ["wrapping.eight"]  # plain.eight, compiled by wrapping.py: keyed on every file (jit._stamp)


class Toy:
    """The toy package in a folder of its own, and numba's cache beside it."""

    def __init__(self, folder: Path):
        self.package = folder / "toy"
        self.package.mkdir()
        for name, text in _TOY.items():
            (self.package / name).write_text(text)
        shutil.copy(COMPILER / "jit.py", self.package / "jit.py")
        self.env = dict(os.environ, PYTHONPATH=str(folder), NUMBA_CACHE_DIR=str(folder / "cache"))

    def run(self) -> dict:
        """Every kernel called in a fresh process."""
        done = subprocess.run([sys.executable, "-c", _RUN], env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    def edit(self, module: str, old: str, new: str) -> None:
        path = self.package / module
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))


@pytest.fixture
def toy(tmp_path) -> Toy:
    """The toy package, its cache filled by a first process (which compiled every kernel)."""
    toy = Toy(tmp_path)
    first = toy.run()
    assert first == {"values": FIRST_VALUES, "compiled": EVERY_KERNEL}
    return toy


def test_processes_that_start_together_compile_each_kernel_once(tmp_path):
    """Two fresh processes call every kernel at the same instant (a barrier after their imports): one
    compiles each kernel and the other waits for it and loads it (numba alone compiled every kernel
    in both: the sampler's screening workers, pytest's workers and a prefetch did twice the work)."""
    toy = Toy(tmp_path)
    go = tmp_path / "go"
    barrier = (f"import os, sys, time\nopen(sys.argv[1], 'w').close()\n"
               f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.002)\n")
    imports, calls = _RUN.split("values =")
    script = imports + barrier + "values =" + calls
    both = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path / f"ready{k}")], env=toy.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(2)]
    while not all((tmp_path / f"ready{k}").exists() for k in range(2)):
        assert all(p.poll() is None for p in both), [p.communicate() for p in both]
        time.sleep(0.002)
    go.touch()
    results = []
    for p in both:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out.splitlines()[-1]))
    assert all(r["values"] == FIRST_VALUES for r in results)
    compiled = results[0]["compiled"] + results[1]["compiled"]
    assert sorted(compiled) == EVERY_KERNEL, results


def test_an_unchanged_package_loads_every_kernel(toy):
    assert toy.run() == {"values": FIRST_VALUES, "compiled": []}


def test_a_plain_function_another_module_compiles_is_compiled_again_after_an_edit_there(toy):
    """plain.py imports nothing: its function's key must still change when wrapping.py compiles it
    otherwise (numba's key holds neither the options nor the module that compiled it)."""
    toy.edit("wrapping.py", "eight = kernel(eight)", "eight = kernel(eight)  # an edit")
    assert toy.run() == {"values": FIRST_VALUES, "compiled": WRAPPED}


def test_an_edit_to_a_module_no_other_imports_recompiles_its_kernels_only(toy):
    toy.edit("apart.py", "return 7", "return 7  # an edit")
    assert toy.run() == {"values": FIRST_VALUES, "compiled": ["apart.alone"] + WRAPPED}


def test_an_edit_recompiles_the_kernels_of_modules_that_import_it_transitively(toy):
    """top.three holds base.one's code, and top.py does not import base.py: a key on a module and
    the modules it imports directly (or numba's own, on the module alone) would load the old three
    and answer 3."""
    toy.edit("base.py", "return 1", "return 2")
    assert toy.run() == {"values": dict(FIRST_VALUES, three=4),
                         "compiled": ["base.one", "middle.two", "top.three"] + WRAPPED}


def test_a_closure_is_recompiled_when_a_kernel_it_closes_over_or_its_factory_changes(toy):
    """made.plus is factory.py's code, closing over made.five: factory.py imports nothing that
    changed, the kernel it closes over did. Then its factory changes (made.py imports factory.py,
    so made.five is compiled again too)."""
    toy.edit("made.py", "return 5", "return 6")
    assert toy.run() == {"values": dict(FIRST_VALUES, plus=106), "compiled": ["made.five", "made.plus"] + WRAPPED}
    toy.edit("factory.py", "return f() + 100", "return f() + 200")
    assert toy.run() == {"values": dict(FIRST_VALUES, plus=206), "compiled": ["made.five", "made.plus"] + WRAPPED}


def _names(*paths: str) -> set[Path]:
    return {COMPILER / p for p in paths}


def test_the_compilers_modules_depend_on_what_they_import_transitively():
    """positions.py imports ends.py and effects.py, which import bitboards.py; nothing under the
    ends imports the random draws or the game object."""
    positions = jit.dependencies(COMPILER / "positions.py")
    assert _names("positions.py", "ends.py", "bitboards.py", "codes.py", "jit.py") <= positions
    assert "bitboards" not in (COMPILER / "positions.py").read_text()  # reached through ends and effects only
    assert not _names("rng.py", "game.py", "ply.py", "__init__.py", "families/__init__.py") & positions
    assert jit.dependencies(COMPILER / "ends.py") == _names("ends.py", "bitboards.py", "codes.py", "jit.py")
    # families/__init__.py imports `from .. import codes`: codes.py, not the compiler's __init__
    assert COMPILER / "__init__.py" not in jit.dependencies(COMPILER / "families" / "othello.py")
    assert jit.dependencies(COMPILER / "jit.py") == _names("jit.py")


def test_each_module_is_read_once_for_every_digest_a_process_computes(monkeypatch):
    """Each module's kernels are keyed on a digest of its dependencies: every process that imports the
    compiler (each sandboxed worker among them) computes them, and parsed a module once per digest
    that held it (a worker's 19 digests: 162 parses, half of its import time, issue 34; every file's
    digest: 312 parses of 29 files): now once."""
    parsed = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: parsed.append(self.suffix == ".py" and str(self)) or real_read(self))
    for name in ("_imports", "dependencies"):  # as a fresh process has them: nothing read yet
        function = getattr(jit, name)
        if hasattr(function, "cache_clear"):
            monkeypatch.setattr(jit, name, functools.cache(function.__wrapped__))
    files = sorted(COMPILER.rglob("*.py"))
    for file in files:
        jit.dependencies(file)
    parsed = [p for p in parsed if p]
    assert len(parsed) == len(set(parsed)) <= len(files)


def test_a_modules_imports_are_found_line_by_line_as_the_whole_module_parsed_has_them(monkeypatch):
    """Every process that imports the compiler reads every module's imports: parsed whole, that was
    0.19 s of each sandboxed worker's start (issue 34). The statements found at the starts of lines
    are the module's, for every compiler module, and none of them is parsed whole: a line of prose
    that starts with "import " or "from x import" would make it so (reflow the line)."""
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(jit.ast, "parse", lambda source, *a, **k: parsed.append(source) or real_parse(source, *a, **k))
    whole = []
    for file in sorted(COMPILER.rglob("*.py")):
        source = file.read_bytes()
        found = [ast.dump(node) for node in jit.import_statements(source, str(file))]
        every = [ast.dump(node) for node in ast.walk(real_parse(source)) if isinstance(node, (ast.Import, ast.ImportFrom))]
        assert sorted(found) == sorted(every), file
        whole += [file.name] if source in parsed else []
    assert not whole, f"parsed whole: {whole}"


def test_a_line_of_prose_that_reads_as_an_import_makes_the_module_parsed_whole():
    source = b'"""Notes.\nimport the edited one, then\nfrom here on import it\n"""\nfrom . import codes\n'
    assert [ast.dump(n) for n in jit.import_statements(source, "m.py")] == [ast.dump(ast.parse("from . import codes").body[0])]


@pytest.mark.parametrize("source", [
    "import numpy as np; from . import ends\n", "from .x import (a); from . import y\n",
    "if TYPE_CHECKING: from . import ends\n", "try: from . import x\nexcept ImportError: pass\n",
    "from.ends import x\n", "from .import ends\n", "from . \\\n    import ends\n",
    "from . import jit\nx = 1; import ends\n"])
def test_an_import_the_lines_cannot_read_whole_makes_the_module_parsed_whole(source):
    """Found line by line, each of these missed a dependency (a review found them): an edit there
    would have left a kernel's stale machine code in the cache."""
    every = [ast.dump(n) for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert sorted(ast.dump(n) for n in jit.import_statements(source.encode(), "m.py")) == sorted(every)


def test_a_file_system_without_locks_compiles_at_once(monkeypatch, tmp_path):
    """flock answering ENOSYS (Lustre, some network file systems) was taken for a lock another
    process holds: every kernel missed waited COMPILE_WAIT (300 s) before compiling."""
    import errno
    import fcntl

    real_flock = fcntl.flock

    def no_locks(fd, how):
        raise OSError(errno.ENOSYS, "no locks here")

    monkeypatch.setattr(jit.fcntl, "flock", no_locks)
    fd = os.open(tmp_path / "x.lock", os.O_RDWR | os.O_CREAT)
    started = time.monotonic()
    try:
        assert jit._wait_for(fd) is False and time.monotonic() - started < 1.0
        monkeypatch.setattr(jit.fcntl, "flock", real_flock)
        assert jit._wait_for(fd) is True  # and a lock is had where there are locks
    finally:
        os.close(fd)


def test_a_save_holds_its_index_lock(tmp_path, monkeypatch):
    """numba saves an entry by reading its index, adding the entry and writing it back: two
    processes saving two entries of one index (the closures of a factory) lost one, or named one
    data file twice (a review showed both). The save holds the index's lock throughout."""
    import errno
    import fcntl
    from numba.core import caching

    seen = []
    real_flock = fcntl.flock

    def save(self, sig, data):  # numba's own save, as the hook calls it: is the lock held meanwhile?
        other = os.open(self._cache_file._index_path + ".lock", os.O_RDWR)
        try:
            real_flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append("free")
        except BlockingIOError:
            seen.append("held")
        finally:
            os.close(other)

    monkeypatch.setattr(caching.Cache, "_save_overload", save)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    from ludica.compiler import rng
    cache = caching.FunctionCache(rng.draw.py_func)
    cache.save_overload((), None)
    assert seen == ["held"]
    # where no lock can be had (flock answering ENOSYS), the entry is saved all the same, unlocked
    # (it was not saved at all: every process compiled every kernel again)

    def no_locks(fd, how):
        raise OSError(errno.ENOSYS, "no locks here")

    monkeypatch.setattr(jit.fcntl, "flock", no_locks)
    cache.save_overload((), None)
    assert seen == ["held", "free"]


def _compiler_modules() -> list[types.ModuleType]:
    names = [m.name for m in pkgutil.walk_packages(ludica.compiler.__path__, "ludica.compiler.")]
    return [ludica.compiler] + [importlib.import_module(name) for name in names]


def _kernels(value, found: dict) -> None:
    """`value` if it is a kernel, and the kernels its closure holds, into `found` (by identity)."""
    if isinstance(value, Dispatcher) and id(value) not in found:
        found[id(value)] = value
        for cell in value.py_func.__closure__ or ():
            _kernels(cell.cell_contents, found)


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _imported_from_outside(module: types.ModuleType) -> set[str]:
    """The names a compiler module binds by importing them from the rest of ludica."""
    names = set()
    for node in ast.walk(ast.parse(Path(module.__file__).read_text())):
        if isinstance(node, ast.ImportFrom):
            absolute = importlib.util.resolve_name("." * node.level + (node.module or ""), module.__package__)
            inside = absolute == "ludica.compiler" or absolute.startswith("ludica.compiler.")
            if absolute.startswith("ludica") and not inside:
                names |= {alias.asname or alias.name for alias in node.names}
    return names


def test_no_kernel_reads_code_from_outside_the_compiler():
    """Only the compiler's files are in the digests: a kernel that read a name from gdl (a constant
    numba freezes into its machine code, a function, a module) would keep the old value after an
    edit to gdl. Names imported from elsewhere in ludica stay outside the kernels."""
    kernels: dict = {}
    outside = {}
    for module in _compiler_modules():
        outside[module.__name__] = _imported_from_outside(module)
        for value in vars(module).values():
            _kernels(value, kernels)
    assert len(kernels) > 50
    read = []
    for kernel in kernels.values():
        func = kernel.py_func
        for name in _global_names(func.__code__):
            value = func.__globals__.get(name)
            if name in outside.get(func.__module__, ()):
                read.append((func.__qualname__, name))
            elif isinstance(value, types.ModuleType) and value.__name__.startswith("ludica") and \
                    not value.__name__.startswith("ludica.compiler"):
                read.append((func.__qualname__, name))
    assert not read, read
    # the check sees an import from gdl when there is one: program.py reads gdl.ast outside its kernels
    assert "A" in outside["ludica.compiler.program"]
