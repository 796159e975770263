"""The three ways the compiler hands a function to numba, and a cache that knows what it depends on.

`kernel`: compiled once, cached on disk (a second process starts without compiling), releases the
GIL (playouts run on several threads) and skips bounds checks (the program's tables are built to
fit). `inline`: the same, and inlined into every caller at numba's IR level: a small helper that
runs once per cell, candidate or ply and takes arrays would otherwise cost a reference count per
array argument per call, which in a playout loop costs more than the helper's work.

`leaf`: a kernel without numba's runtime (NRT), so without reference counts: for the helpers a
ply calls (move generation, effects, ends, a position's status), which take arrays, allocate
none and return no array. numba counts references of every array passed to a kernel, an atomic
increment and decrement each, the Program's twenty tables on every call: that was most of the
generic kernels' time (measured: Custodian's playouts 4.5x faster, Ataxx's 2.0x, tic-tac-toe's
1.3x, as leaves). A leaf's arrays are its caller's, alive for the whole call; it may make views of
them, but must never return one (nothing would keep it alive, and numba returns garbage: tried):
a leaf compiles through a pipeline with one more pass, after type inference, that refuses a
return type holding an array; numba itself refuses an allocation in a leaf. Not every
kernel gains: the bitboard custodial helpers stay kernels (as leaves, the Othello family's
playouts ran about 8% slower, measured before the step tables of bitboards.py).

Two measured traps of the hot loops. An `inline` helper that takes arrays *and calls a kernel
inside* costs a reference count per array on every call, taken branch or not (a stepping-piece
playout ran 5x slower): such helpers take scalars, and the loop calls the kernel itself (see
ends.holds_bits and board_bits). And tables read in a ply loop should be arguments of the kernel
that loops, not views made in it (a thin kernel unpacks, then calls the loop).

numba keys a function's cached machine code on its own source file only, yet a kernel's machine
code holds the code of every kernel it calls, inlined or not: change ends.py and the cached
playouts of playouts.py would go on playing the old ends. So a compiler module's kernels are keyed
on a digest of the module and of every compiler module it imports, transitively (`dependencies`:
read from each module's import statements, those inside functions included, so a kernel can reach
no other compiler code than those files). An edit recompiles the kernels of the modules
that import the edited one, directly or not (an edit to rng.py: the playouts, not the ends); an
unchanged compiler loads everything from the cache. Every kernel module imports this one, so an
edit here recompiles everything; so does any edit, for the few plain functions of a module that
does not import this one, compiled by another (codes.move_code as calls.encode). A kernel reads
no name a module imports from outside the compiler (gdl's code is not in the digest):
tests/test_jit_cache.py holds them to that.

A kernel may also be made by a factory (ply.py: the rules every form shares, written once, each
form handing in only what differs), a closure over the form's kernels. numba keys a closure's cache
entry on a pickle of what it closes over, and a kernel pickles differently in every process: such a
kernel would never load from the cache (tried). For the compiler's closures the entry is keyed on
the names of the kernels they close over instead, and on their modules' digests: the factory's
module does not import the form that calls it (ply.py's kernels close over othello.py's).
"""
from __future__ import annotations

import ast
import fcntl
import hashlib
import os
import re
import sys
import time
from functools import cache
from pathlib import Path

from numba import njit, types
from numba.core import caching
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.typed_passes import NopythonTypeInference

_OPTIONS = dict(cache=True, nogil=True, boundscheck=False)

kernel = njit(**_OPTIONS)
inline = njit(**_OPTIONS, inline="always")


def _holds_an_array(t) -> bool:
    return isinstance(t, types.Array) or (isinstance(t, types.BaseTuple) and any(map(_holds_an_array, t.types)))


@register_pass(mutates_CFG=False, analysis_only=True)
class _ReturnsNoArray(FunctionPass):
    """A leaf's return type holds no array (see the module docstring)."""

    _name = "leaf_returns_no_array"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state) -> bool:
        if _holds_an_array(state.return_type):
            raise TypeError(f"the leaf kernel {state.func_id.func_qualname} returns {state.return_type}: a leaf "
                            "runs without reference counts and must return no array (compiler/jit.py)")
        return False


class _LeafCompiler(CompilerBase):
    """numba's nopython pipeline, and _ReturnsNoArray once the types are known."""

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(_ReturnsNoArray, NopythonTypeInference)
        pipeline.finalize()
        return [pipeline]


# _nrt: numba's own option name (numba/core/cpu.py lists it); pipeline_class: its extension point
LEAF = dict(_nrt=False, pipeline_class=_LeafCompiler)
leaf = njit(**_OPTIONS, **LEAF)

_ROOT = Path(__file__).resolve().parent
_PACKAGE = __name__.rpartition(".")[0]  # "ludica.compiler": how an absolute import names the compiler


def _module_files(path: Path) -> list[Path]:
    """The file of the module `path` names without its suffix (a module or a package), if any."""
    return [f for f in (path.with_suffix(".py"), path / "__init__.py") if f.is_file()]


def _imported_from(path: Path, node: ast.ImportFrom) -> set[Path]:
    """The compiler's files a `from ... import ...` in the module at `path` reads: the module named
    and the submodules imported from it; a package's __init__ only when a name is not a submodule
    (`from . import codes` reads codes.py, not the compiler's __init__, which imports everything)."""
    if node.level:
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
        parts = node.module.split(".") if node.module else []
    elif node.module == _PACKAGE or (node.module or "").startswith(_PACKAGE + "."):
        base, parts = _ROOT, node.module[len(_PACKAGE):].split(".")[1:]
    else:
        return set()  # outside the compiler
    named = base.joinpath(*parts)
    found: set[Path] = set()
    for alias in node.names:
        submodule = _module_files(named / alias.name) if named.is_dir() else []
        found.update(submodule or _module_files(named))
    return found


# An import statement at the start of a line (indented or not, parenthesised or not): parsing only
# these, not the whole module, is 70 times faster, and every process that imports the compiler
# (each sandboxed worker) reads every module (issue 34). A miss would leave a dependency out, and a
# kernel's stale machine code in: so a module with an import these lines do not read whole (after
# `;` or `:` on one line, `from.x`, `from .import x`, a backslash continuation), or with a match
# that is not one import statement (a line of a docstring), is parsed whole. tests/test_jit_cache.py
# holds every compiler module to the same imports both ways, and to no whole parse.
_IMPORT_LINE = re.compile(rb"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)",
                          re.MULTILINE)
_UNREAD = re.compile(rb"[;:][ \t]*(?:from[ \t]+\.*[\w.]*[ \t]*import\b|import[ \t]+[\w.]+)"
                     rb"|^[ \t]*from(?:\.|[ \t]+\.+import)|^[ \t]*(?:from|import)\b[^\n]*\\$", re.MULTILINE)


def import_statements(source: bytes, name: str) -> list[ast.stmt]:
    """The module's import statements, found line by line; the whole module parsed if they may not
    all be found so."""
    if not _UNREAD.search(source):
        try:
            found = [ast.parse(m.group().strip(), name).body for m in _IMPORT_LINE.finditer(source)]
            if all(len(body) == 1 and isinstance(body[0], (ast.Import, ast.ImportFrom)) for body in found):
                return [body[0] for body in found]
        except SyntaxError:
            pass
    return [node for node in ast.walk(ast.parse(source, name)) if isinstance(node, (ast.Import, ast.ImportFrom))]


@cache  # each module is read once per process (every dependency closure that holds it asks again)
def _imports(path: Path) -> frozenset[Path]:
    """The compiler's files the module at `path` imports, anywhere in it."""
    found: set[Path] = set()
    for node in import_statements(path.read_bytes(), str(path)):
        if isinstance(node, ast.ImportFrom):
            found |= _imported_from(path, node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(_PACKAGE + "."):
                    found.update(_module_files(_ROOT.joinpath(*alias.name[len(_PACKAGE):].split(".")[1:])))
    return frozenset(f.resolve() for f in found if f.resolve().is_relative_to(_ROOT))


@cache
def dependencies(path: Path) -> frozenset[Path]:
    """The compiler's files whose code the kernels of the module at `path` can hold: the module and
    every compiler module it imports, transitively."""
    seen, waiting = set(), [path.resolve()]
    while waiting:
        file = waiting.pop()
        if file not in seen:
            seen.add(file)
            waiting.extend(_imports(file) - seen)
    return frozenset(seen)


@cache
def _stamp(path: Path) -> str:
    """The digest a module's kernels are keyed on: its dependencies' names and contents. A module
    that does not import this one has plain functions that another module compiles (calls.encode is
    codes.move_code), we do not know which, nor with which options: those are keyed on every file."""
    files = dependencies(path) if Path(__file__).resolve() in dependencies(path) else _ROOT.rglob("*.py")
    h = hashlib.sha256()
    for file in sorted(files):
        h.update(file.relative_to(_ROOT).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return h.hexdigest()


class _DependenciesStamp:
    """A numba cache locator for the compiler's files, stamped with the digest of a module's
    dependencies."""

    def get_source_stamp(self):
        return _stamp(Path(self._py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(_ROOT):
            return None  # not ours: numba's own locators take it
        return super().from_function(py_func, py_file)


def _install() -> None:
    # numba ≥ 0.60 names these CacheImpl, InTreeCacheLocator...; 0.59 has them with a leading _.
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    locators = impl._locator_classes
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        base = getattr(caching, name, None) or getattr(caching, "_" + name)
        if any(issubclass(k, _DependenciesStamp) and issubclass(k, base) for k in locators):
            continue  # installed already (a module reloaded)
        ours = type("Compiler" + name, (_DependenciesStamp, base), {})
        locators.insert(locators.index(base), ours)


def _closed_over(value):
    """What a closure's cache entry is keyed on for one value it closes over: a kernel by its name
    and its module's digest (a compiler module's; another's code is numba's to key) and, if it is
    a closure itself, what it closes over; anything else as itself."""
    if isinstance(value, Dispatcher):
        func = value.py_func
        inner = tuple(_closed_over(cell.cell_contents) for cell in func.__closure__ or ())
        file = Path(func.__code__.co_filename).resolve()
        stamp = _stamp(file) if file.is_relative_to(_ROOT) else None
        return "kernel", func.__module__, func.__qualname__, stamp, inner
    return "value", repr(value)


def _of_compiler(func) -> bool:
    """Whether a Python function is written in the compiler's files (numba's own, and the user's,
    are left to numba)."""
    return Path(func.__code__.co_filename).resolve().is_relative_to(_ROOT)


def _install_closure_key() -> None:
    numbas_own = caching.Cache._index_key
    if getattr(numbas_own, "ludica", False):
        return  # installed already (a module reloaded)

    def index_key(self, sig, codegen):
        func = self._py_func
        if func.__closure__ is None or not _of_compiler(func):
            return numbas_own(self, sig, codegen)
        closed = repr(tuple(_closed_over(cell.cell_contents) for cell in func.__closure__)).encode()
        digest = hashlib.sha256
        return sig, codegen.magic_tuple(), (digest(func.__code__.co_code).hexdigest(), digest(closed).hexdigest())

    index_key.ludica = True
    caching.Cache._index_key = index_key


# How long a process waits for another that compiles the same kernel before it compiles it too
# (the other may have failed, or stopped): longer than any kernel takes (the slowest, 20 s).
COMPILE_WAIT = 300.0


def _wait_for(fd: int) -> bool:
    """An exclusive lock on the open file `fd`, waited for up to COMPILE_WAIT; False if it could not
    be had (a file system without locks, such as some network ones, answers at once)."""
    deadline = time.monotonic() + COMPILE_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:  # another process holds it
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        except OSError:
            return False


def _exclusive(path: str) -> int | None:
    """The lock file at `path`, opened and locked (its descriptor: closing it releases the lock), or
    None where there is no lock to be had (see _wait_for)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return None
    if _wait_for(fd):
        return fd
    os.close(fd)
    return None


def _install_compile_lock() -> None:
    """One process compiles a kernel, others wait and load it. Processes that start together
    (the sampler's screening workers, pytest's workers, a prefetch beside a draw) each compiled
    the kernels they missed, the same ones at once: twice the CPU for one result, and numba has no
    lock across processes. A process that misses a compiler kernel in the cache takes an exclusive
    lock on a file beside its index (one per entry), looks again (another process may have saved
    it meanwhile), and holds the lock while it compiles, until it saves (or the compile raises).
    numba compiles under its own lock within a process (global_compiler_lock), so these hooks run
    one at a time in each process. A kernel compiled inside another's compile (a kernel it calls)
    takes its own lock (or holds it again, in the same process), and kernels call one another
    without cycles, so no two processes wait on each other. A cache folder where no lock file can
    be made takes no lock; none waits longer than COMPILE_WAIT."""
    load, save = caching.Cache.load_overload, caching.Cache.save_overload
    if getattr(load, "ludica", False):
        return  # installed already (a module reloaded)
    held: dict[str, tuple[int, int]] = {}  # this process's lock files → (descriptor, holds)

    def lock(cache, sig, target_context) -> str | None:
        # one lock per entry of the index: the closures of a factory share one index (ply.py's steps)
        entry = hashlib.sha256(repr(cache._index_key(sig, target_context.codegen())).encode()).hexdigest()[:16]
        path = f"{cache._cache_file._index_path}.{entry}.lock"
        if path in held:
            fd, holds = held[path]
            held[path] = fd, holds + 1
            return path
        fd = _exclusive(path)
        if fd is None:
            return None
        held[path] = fd, 1
        return path

    def unlock(path: str) -> None:
        fd, holds = held.pop(path)
        if holds > 1:
            held[path] = fd, holds - 1
        else:
            os.close(fd)  # releases the lock

    def release(cache, sig) -> None:
        """The entry lock this process took for `sig` when it missed it, if it holds one."""
        path = getattr(cache, "_ludica_locked", {}).pop(sig, None)
        if path is not None:
            unlock(path)

    def load_overload(self, sig, target_context):
        found = load(self, sig, target_context)
        if found is not None or not _of_compiler(self._py_func):
            return found
        path = lock(self, sig, target_context)
        if path is None:
            return None
        found = load(self, sig, target_context)  # saved by the process that held the lock
        if found is not None:
            unlock(path)
            return found
        self._ludica_locked = getattr(self, "_ludica_locked", {})
        self._ludica_locked[sig] = path  # held while numba compiles, until save_overload
        return None

    def save_overload(self, sig, data):
        # numba reads the index, adds the entry and writes it back: two processes saving two entries
        # of one index (the closures of a factory) would each drop the other's, or name the same data
        # file; so the whole save holds the index's own lock (it compiles nothing). Where no lock can
        # be had, it saves all the same, as numba alone did.
        fd = _exclusive(self._cache_file._index_path + ".lock")
        try:
            save(self, sig, data)
        finally:
            if fd is not None:
                os.close(fd)
            release(self, sig)

    compile_ = Dispatcher.compile

    def compile(self, sig):
        with global_compiler_lock:  # (numba's, taken again inside: the cleanup below is under it too)
            try:
                return compile_(self, sig)
            finally:  # a compile that raised never saved: the lock goes now, not when the process ends
                release(self._cache, sig)

    load_overload.ludica = True  # type: ignore[attr-defined]
    caching.Cache.load_overload = load_overload
    caching.Cache.save_overload = save_overload
    Dispatcher.compile = compile


_install()
_install_closure_key()
_install_compile_lock()


def cache_use() -> str:
    """How many of the compiler's kernels this process loaded from numba's cache and how many it
    compiled: a sandboxed worker of a warmed stage compiles none (else its start costs seconds)."""
    from numba.core.dispatcher import Dispatcher

    hits = misses = 0
    for name, module in list(sys.modules.items()):
        if name.startswith("ludica.compiler"):
            for value in vars(module).values():
                if isinstance(value, Dispatcher) and value._cache is not None:
                    hits += sum(value.stats.cache_hits.values())
                    misses += sum(value.stats.cache_misses.values())
    return f"{hits} loaded from numba's cache, {misses} compiled"
