"""What an edit to one compiler module costs the next process: the kernels it compiles again and the
time its warm-up takes (issue 21; compiler/jit.py says how the cache is keyed).

    python benchmarks/cache_edits.py [MODULE...] [--tree DIR]... [--stage NAME]... [--json FILE]

For each checkout DIR (default: this one; give two, say main's and a branch's, to compare them in
one run), the package is copied into a temporary folder and numba's cache (a temporary
NUMBA_CACHE_DIR) is filled by a drive over one stage of every kind of kernel (each family's and
the generic ones: every call from Python, playouts, perft, matches with every policy, the
solver; with --stage, only a run's warm-up of the stages named). Then for each MODULE (a file
under compiler/, such as rng.py; default: every one), the filled cache is restored, a comment is
appended to the module, and the drive runs again in a fresh process: it prints the kernels
compiled and loaded, and the drive's time. The machine is shared: compare times within one run,
modules of both trees interleaved. With --keys nothing is compiled: for every kernel of the
compiler, the cache key jit.py gives it is computed before and after each edit, and the kernels
whose entry the edit makes stale are counted.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# The package's folders and where they install (pyproject.toml's package-dir).
_FOLDERS = {"ludica": "ludica", "gdl": "ludica/gdl", "compiler": "ludica/compiler", "runtime": "ludica/runtime",
            "sampler": "ludica/sampler", "evaluation": "ludica/evaluation", "stages": "ludica/stages"}

_DRIVE = """
import json, sys, time
start = time.perf_counter()
import numpy as np
from numba.core.dispatcher import Dispatcher
from ludica import compiler, gdl, stages
from ludica.runtime.api import RulesApi, warm
from ludica.runtime.warmup import kinds

names = json.loads(sys.argv[2])
chosen = [gdl.load(stages.path(name)) for name in names] or kinds([gdl.load(p) for p in stages.bundled()]).values()
for stage in chosen:
    game = compiler.compile(stage)
    warm(RulesApi(game), game.initial_state())  # what a run's warm-up calls
    if not names:
        game.playouts(2, seed=1, generic=True)
        game.perft(2)
        game.games(2, seed=1, policies=("greedy", "search"), samples=2)
        game.games(2, seed=1, policies=("mc", "random"), samples=2)
        game.solve(500)
kernels, seen = {}, set()
for name, module in list(sys.modules.items()):
    if name.startswith("ludica.compiler"):
        for var, value in vars(module).items():
            if isinstance(value, Dispatcher) and value._cache is not None and id(value) not in seen:
                seen.add(id(value))  # once, however many modules import it
                f = value.py_func  # named where it is defined; a factory's kernel where it is kept
                where = (name, var) if f.__closure__ else (f.__module__, f.__qualname__)
                hits, misses = sum(value.stats.cache_hits.values()), sum(value.stats.cache_misses.values())
                if hits or misses:
                    kernels[f"{where[0].removeprefix('ludica.compiler.')}.{where[1]}"] = (hits, misses)
assert compiler.__file__.startswith(sys.argv[1]), compiler.__file__  # the copy, not the checkout
print(json.dumps({"seconds": time.perf_counter() - start, "kernels": kernels}))
"""

# Every kernel of the compiler and what its cache entry is keyed on (jit.py's own functions), before
# and after a comment is appended to each module in turn: the entries an edit makes stale, with no
# compiling at all.
_KEYS = """
import importlib, json, pkgutil, sys
from pathlib import Path
from numba.core.dispatcher import Dispatcher
import ludica.compiler
from ludica.compiler import jit
names = [m.name for m in pkgutil.walk_packages(ludica.compiler.__path__, "ludica.compiler.")]
kernels = {}
for module in [ludica.compiler] + [importlib.import_module(name) for name in names]:
    for name, value in vars(module).items():
        if isinstance(value, Dispatcher) and id(value) not in kernels:
            f = value.py_func  # named where it is defined; a factory's kernel where it is kept
            where = (module.__name__, name) if f.__closure__ else (f.__module__, f.__qualname__)
            kernels[id(value)] = (f"{where[0].removeprefix('ludica.compiler.')}.{where[1]}", f)
def keys():
    if hasattr(jit, "dependencies"):
        jit.dependencies.cache_clear(), jit._stamp.cache_clear()
        stamp = lambda f: jit._stamp(Path(f.__code__.co_filename))
    else:  # before issue 21: one digest of every file of the compiler
        digest = jit._digest()
        stamp = lambda f: digest
    return {name: (stamp(f), repr([jit._closed_over(c.cell_contents) for c in f.__closure__ or ()]))
            for name, f in kernels.values()}
before = keys()
stale = {}
for module in json.loads(sys.argv[1]):
    path = jit._ROOT / module
    original = path.read_bytes()
    path.write_bytes(original + b"# an edit: a comment\\n")
    try:
        stale[module] = sorted(name for name, key in keys().items() if key != before[name])
    finally:
        path.write_bytes(original)
print(json.dumps({"kernels": len(before), "stale": stale}))
"""


def copy_package(tree: Path, into: Path) -> Path:
    """The package of the checkout `tree` laid out as installed, under `into`."""
    for folder, installed in _FOLDERS.items():
        shutil.copytree(tree / folder, into / installed, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return into


def drive(package: Path, cache: Path, stages: list[str]) -> dict:
    """Run the drive in a fresh process on the copy at `package` with numba's cache in `cache`."""
    env = {"PYTHONPATH": str(package), "NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", _DRIVE, str(package), json.dumps(stages)], env=env, capture_output=True, text=True,
                         check=True, cwd=package).stdout
    return json.loads(out.splitlines()[-1])


def stale_entries(package: Path, modules: list[str]) -> dict:
    """For each module, the kernels of the copy at `package` whose cache entry a comment appended
    to it makes stale (keys computed by jit.py, nothing compiled)."""
    env = {"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", _KEYS, json.dumps(modules)], env=env, capture_output=True,
                         text=True, check=True, cwd=package).stdout
    return json.loads(out.splitlines()[-1])


def counts(result: dict) -> tuple[int, int]:
    """Kernels compiled, kernels loaded."""
    kernels = result["kernels"].values()
    return sum(1 for _, m in kernels if m), sum(1 for h, m in kernels if h and not m)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="files under compiler/ (default: every one)")
    parser.add_argument("--tree", action="append", type=Path, help="a checkout (repeat to compare)")
    parser.add_argument("--stage", action="append", default=[],
                        help="drive only a run's warm-up of this bundled stage (repeatable)")
    parser.add_argument("--keys", action="store_true",
                        help="only count the cache entries each edit makes stale (nothing compiled)")
    parser.add_argument("--json", type=Path, help="write every result here")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree or [HERE]]
    modules = args.modules or sorted(p.relative_to(trees[0] / "compiler").as_posix()
                                     for p in (trees[0] / "compiler").rglob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        run = stale_table if args.keys else edit_drives
        results = run(trees, modules, args.stage, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def stale_table(trees: list[Path], modules: list[str], _stages, tmp: Path) -> list[dict]:
    """Per tree and module: the cache entries a comment appended to the module makes stale."""
    results = []
    for i, tree in enumerate(trees):
        keyed = stale_entries(copy_package(tree, tmp / f"keys{i}"), modules)
        for module, stale in keyed["stale"].items():
            print(f"{module:24} {tree.name:10} stale entries {len(stale):3} of {keyed['kernels']}", flush=True)
            results.append(dict(module=module, tree=str(tree), stale=stale, kernels=keyed["kernels"]))
    return results


def edit_drives(trees: list[Path], modules: list[str], stages: list[str], tmp: Path) -> list[dict]:
    """Per tree: the drive cold and unchanged; then per module and tree, the drive after an edit."""
    results, warmed = [], []
    for i, tree in enumerate(trees):
        package, cache = copy_package(tree, tmp / f"tree{i}"), tmp / f"cache{i}"
        t = time.perf_counter()
        cold = drive(package, cache, stages)
        print(f"{tree}: cold drive {time.perf_counter() - t:.1f} s, {counts(cold)[0]} kernels compiled", flush=True)
        again = drive(package, cache, stages)
        print(f"{tree}: unchanged, {counts(again)[0]} compiled, {counts(again)[1]} loaded, "
              f"{again['seconds']:.1f} s", flush=True)
        shutil.copytree(cache, tmp / f"warm{i}")
        warmed.append((tree, package, cache, tmp / f"warm{i}"))
    for module in modules:
        for tree, package, cache, warm in warmed:
            # in place: numba's cache folder for a file is named after the file's path
            shutil.rmtree(cache)
            shutil.copytree(warm, cache)
            edited = package / "ludica/compiler" / module
            original = edited.read_bytes()
            edited.write_bytes(original + b"# an edit: a comment\n")
            try:
                result = drive(package, cache, stages)
            finally:
                edited.write_bytes(original)
            compiled, loaded = counts(result)
            recompiled = sorted(k for k, (_, m) in result["kernels"].items() if m)
            print(f"{module:24} {tree.name:10} compiled {compiled:3} loaded {loaded:3} "
                  f"drive {result['seconds']:6.1f} s", flush=True)
            results.append(dict(module=module, tree=str(tree), compiled=compiled, loaded=loaded,
                                seconds=result["seconds"], recompiled=recompiled))
    return results


if __name__ == "__main__":
    main()
