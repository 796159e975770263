"""`ludica bench [STAGE...]`: the speed of the compiled engine, measured by benchmarks/bench.py of
the source checkout ludica is installed from (pip install -e .)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def add_parser(sub) -> None:
    # Every argument after `bench`, --help included, is handed to benchmarks/bench.py unparsed.
    p = sub.add_parser("bench", add_help=False, help="compile times, playouts/s, threads, Python-call cost "
                       "(benchmarks/bench.py of the source checkout; `ludica bench --help`)")
    p.set_defaults(run=run)


# The bench is a development tool kept out of the installed package, in the repository's
# benchmarks/. An editable install runs this package from its checkout, whose root is the parent
# of the `ludica` folder; an installation without a checkout has no bench to run.
_CHECKOUT = Path(__file__).resolve().parent.parent.parent


def run(args) -> int:
    script = _CHECKOUT / "benchmarks" / "bench.py"
    if not (script.is_file() and (_CHECKOUT / "pyproject.toml").is_file()):
        print("error: the benchmarks live in ludica's source repository (benchmarks/bench.py), and this "
              "installation was not made from a checkout of it. In a checkout, run: python benchmarks/bench.py "
              "[STAGE...] (or, after pip install -e . there, ludica bench [STAGE...])", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("bench", script)
    assert spec is not None and spec.loader is not None  # a .py file's path always has both
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # numba's cache finds a cached kernel's module by its name
    spec.loader.exec_module(bench)  # imports numba: only for this command
    return bench.main(args.bench_args, prog="ludica bench")
