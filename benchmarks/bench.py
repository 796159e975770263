"""How fast the compiled engine is, stage by stage, in figures and ratios.

    python benchmarks/bench.py [STAGE...] [--seconds S] [--threads N] [--no-cold] [--json FILE]
    ludica bench [STAGE...] ...     # the same, where ludica is installed from this checkout

A STAGE is a path to a .gdl file or the name of a bundled stage; every bundled stage if none is
given. The bench is a development tool: it lives in the repository, not in the installed package.

For each stage: compile time cold (a subprocess with an empty, temporary NUMBA_CACHE_DIR, so
numba compiles every kernel) and warm (a second subprocess with that cache filled), the time to
make a new variant ready in-process once the structure is compiled, random playouts per second
and moves per second on one core, the speed-up with two threads, and the cost per move of
`legal_moves` + `apply` called from Python. For standard Othello the hand-written bitboard kernel
(othello_bitboard_reference.py, beside this file) is measured in the same run, interleaved with
ludica, and the ratio printed. The machine is shared and noisy: every rate is the best of several
short repeats, and series that are compared are run round-robin, so the ratios of one run mean
something even when the absolute figures drift.

The timing helpers (`calibrate`, `interleave`, `python_games`) are also used by
openspiel_compare.py, beside this file.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter
from collections.abc import Callable

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
DEFAULT_REFERENCE = HERE / "othello_bitboard_reference.py"
OTHELLO = "standard-8x8"

# Targets of the compiler issue ("Speed"), each checked on one run's figures.
TARGET_RATIO, AIM_RATIO = 0.7, 1.0      # in-kernel Othello playouts / hand-written bitboard kernel (issue 21)
TARGET_SPEEDUP = 1.7                    # threads=2 over threads=1
TARGET_VARIANT_MS = 50.0                # a new variant of a compiled structure, ready to play
TARGET_COLD_S, TARGET_WARM_S = 15.0, 2.0  # first compilation of the Othello structure
TARGET_PY_US = 5.0                      # a game driven from Python (legal_moves, choice, apply), per ply
MACHINE_FREE = 0.9  # a threads speed-up is judged only when a compute loop gets this share of the threads

ROUNDS = 5  # repeats per series; each series runs for about --seconds in all


# --- timing helpers ----------------------------------------------------------------------------


def calibrate(run: Callable[[int], object], target: float, start: int = 1, limit: int = 1 << 26) -> int:
    """A batch size n such that run(n) takes about `target` seconds (run is warmed up on the way)."""
    n = start
    while True:
        t0 = perf_counter()
        run(n)
        dt = perf_counter() - t0
        if dt >= target / 3 or n >= limit:
            break
        n = n * 8 if dt < target / 50 else n * 2
    return max(start, min(limit, int(n * target / max(dt, 1e-9))))


def interleave(series: dict[str, Callable[[], float]], rounds: int = ROUNDS,
               clock: Callable[[], float] = perf_counter) -> dict[str, list[tuple[float, float]]]:
    """Run each series once per round, round-robin; a series returns its amount of work (games);
    results are (seconds, work) per round, timed by `clock` (time.thread_time for series that run
    on the calling thread alone: then time spent waiting for a core of a shared machine is not
    counted)."""
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in series}
    for _ in range(rounds):
        for name, run in series.items():
            t0 = clock()
            work = run()
            out[name].append((clock() - t0, work))
    return out


def best_rate(samples: list[tuple[float, float]]) -> float:
    return max(work / dt for dt, work in samples)


def median_rate(samples: list[tuple[float, float]]) -> float:
    rates = sorted(work / dt for dt, work in samples)
    return rates[len(rates) // 2]


def python_games(game, n_games: int, rng: random.Random, record: list | None = None, actions: bool = False) -> int:
    """Play n_games random games driven from Python (legal_moves, random.choice, apply; with
    `actions`, the integer moves OpenSpiel's Python loop has: legal_actions, apply_action); returns
    the plies played. With `record`, (state, move) pairs are appended to it."""
    legal, play = (game.legal_actions, game.apply_action) if actions else (game.legal_moves, game.apply)
    plies = 0
    for _ in range(n_games):
        state = game.initial_state()
        while True:
            moves = legal(state)
            if not moves:
                break
            move = rng.choice(moves)
            if record is not None:
                record.append((state, move))
            state = play(state, move)
            plies += 1
    return plies


@njit(cache=True, nogil=True)
def _spin(n):
    """A pure compute loop (xorshift), no memory traffic: what one core can give."""
    x = np.uint64(88172645463325252)
    for _ in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
    return x


def spin_series(threads: int, rep: float, pool: ThreadPoolExecutor) -> dict[str, Callable[[], float]]:
    """Two series for `interleave`: a pure compute loop on one thread and on `threads` threads.
    Their ratio is what the machine can give right now: on a shared machine another process may
    hold a core, and then no kernel can scale either."""
    _spin(10)
    n = calibrate(_spin, rep, start=1000)

    def parallel():
        for job in [pool.submit(_spin, n) for _ in range(threads)]:
            job.result()
        return threads

    return {"spin": lambda: (_spin(n), 1)[1], f"spin×{threads}": parallel}


# --- stages and variants -----------------------------------------------------------------------


def load_stage(path: Path):
    from ludica import gdl
    return gdl.load(path)


def is_standard_othello(stage) -> bool:
    from ludica import gdl, stages
    standard = gdl.load(stages.path(OTHELLO))
    return dataclasses.replace(stage, name=standard.name) == standard


def variants(stage, game, per_kind: int = 3) -> dict[str, dict[str, object]]:
    """New variants of the stage's rule structure, `per_kind` of each kind: one extra blocked
    cell (the first empty cells from the corners inwards that give a valid stage), and the board
    1, 2, 3... sizes larger. Returns {kind: {label: stage}}."""
    from ludica import gdl
    from ludica.gdl import ast

    def valid(candidate):
        try:
            return gdl.loads(gdl.format(candidate))
        except gdl.StageError:
            return None

    blocked: dict[str, object] = {}
    board = game.board(game.initial_state())
    rows, cols = board.shape
    order = sorted(((r, c) for r in range(rows) for c in range(cols)),
                   key=lambda rc: -max(abs(2 * rc[0] - rows + 1), abs(2 * rc[1] - cols + 1)))
    for r, c in order:
        if len(blocked) == per_kind:
            break
        if board[r, c] != 0:
            continue
        v = valid(dataclasses.replace(stage, blocked=stage.blocked + (ast.Cell(r, c),)))
        if v is not None:
            blocked[f"blocked {ast.cell_name(r, c)}"] = v
    larger: dict[str, object] = {}
    b = stage.board
    for k in range(1, per_kind + 1):
        bigger = (dataclasses.replace(b, n_rows=b.n_rows + k, n_cols=b.n_cols + k) if isinstance(b, ast.RectBoard)
                  else dataclasses.replace(b, size=b.size + k))
        v = valid(dataclasses.replace(stage, board=bigger))
        if v is not None:
            larger[f"board {bigger.rows}x{bigger.cols}"] = v
    return {kind: found for kind, found in (("blocked cell", blocked), ("larger board", larger)) if found}


def ready(stage):
    """Compile a stage and use every kernel a player needs once: the game is then ready."""
    from ludica import compiler
    return first_use(compiler.compile(stage))


def first_use(game):
    """Call every kernel a player needs once (legal moves, apply, terminal test, playouts)."""
    state = game.initial_state()
    moves = game.legal_moves(state)
    if moves:
        state = game.apply(state, moves[0])
    game.is_terminal(state)
    game.playouts(2, seed=0)
    return game


# --- cold and warm compilation, in subprocesses ------------------------------------------------

_PROBE = """
import json, sys
from time import perf_counter
t0 = perf_counter()
sys.path.insert(0, sys.argv[2])  # this file's folder
from ludica import compiler, gdl
from bench import first_use
t1 = perf_counter()
stage = gdl.load(sys.argv[1])
t2 = perf_counter()
game = compiler.compile(stage)
t3 = perf_counter()
first_use(game)
t4 = perf_counter()
print(json.dumps({"import_s": t1 - t0, "compile_s": t3 - t2, "first_use_s": t4 - t3}))
"""


def compile_probe(path: Path, cache_dir: str) -> dict:
    """Time, in a fresh process using `cache_dir` as numba's cache: importing ludica's compiler,
    `compiler.compile(stage)` (which compiles, or loads from the cache, the kernels it calls),
    and the first use of every other kernel a player needs (legal moves, apply, terminal test,
    playouts). `total_s` = compile + first use: the game is ready to play."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(path), str(HERE)], env=env, capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"compile probe failed: {proc.stderr.strip().splitlines()[-1:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["total_s"] = out["compile_s"] + out["first_use_s"]
    return out


# --- one stage ---------------------------------------------------------------------------------


def bench_stage(path: Path, seconds: float, threads: int, cold: bool, reference, log) -> dict:
    from ludica import gdl
    stage = gdl.load(path)
    res: dict = {"stage": path.stem, "path": str(path), "name": stage.name}

    if cold:
        with tempfile.TemporaryDirectory(prefix="ludica-numba-cache-") as cache:
            log(f"{path.stem}: cold compile (empty numba cache)…")
            res["cold"] = compile_probe(path, cache)
            log(f"{path.stem}: warm compile (filled cache)…")
            res["warm"] = compile_probe(path, cache)

    log(f"{path.stem}: in-process warm-up…")
    t0 = perf_counter()
    game = ready(stage)
    res["in_process_first_ready_s"] = perf_counter() - t0

    # New variants of the structure just compiled: compile + first use, each variant new to the
    # process. Per kind the median of a few (one sample is at the mercy of a noisy machine);
    # the figure is the worse kind.
    res["variants_ms"] = {}
    res["variant_kinds_ms"] = {}
    for kind, found in variants(stage, game).items():
        times = []
        for label, v in found.items():
            t0 = perf_counter()
            ready(v)
            times.append((perf_counter() - t0) * 1e3)
            res["variants_ms"][label] = times[-1]
        res["variant_kinds_ms"][kind] = sorted(times)[len(times) // 2]
    res["variant_ms"] = max(res["variant_kinds_ms"].values()) if res["variant_kinds_ms"] else None

    # Random playouts in the kernel: one thread, `threads` threads, and the reference kernel,
    # round-robin so that their ratios come from the same minutes of the machine.
    log(f"{path.stem}: playouts…")
    rep = seconds / ROUNDS
    lengths = {"plies": 0, "games": 0}

    def one_thread_batch(n, seed):
        p = game.playouts(n, seed=seed, threads=1)
        lengths["plies"] += int(p.lengths.sum())
        lengths["games"] += n
        return n

    n1 = calibrate(lambda n: game.playouts(n, seed=0, threads=1), rep)
    seeds = iter(range(1, 1 << 30))
    series = {"ludica": lambda: one_thread_batch(n1, next(seeds))}
    pool = ThreadPoolExecutor(max(threads, 1))
    if threads > 1:
        nt = max(2 * threads, n1 * threads)
        game.playouts(nt, seed=0, threads=threads)  # warm-up
        series[f"ludica×{threads}"] = lambda: game.playouts(nt, seed=next(seeds), threads=threads).lengths.shape[0]
        series.update(spin_series(threads, rep / 4, pool))
    ref_moves = {"moves": 0, "games": 0}
    if reference is not None:
        reference.random_playouts(10, 1)  # compiles the reference kernel
        nr = calibrate(lambda n: reference.random_playouts(n, 0), rep)

        def ref_batch():
            moves, _ = reference.random_playouts(nr, next(seeds))
            ref_moves["moves"] += int(moves)
            ref_moves["games"] += nr
            return nr

        series["reference"] = ref_batch
    with pool:
        samples = interleave(series)
    plies_per_game = lengths["plies"] / lengths["games"]
    res["games_per_s"] = best_rate(samples["ludica"])
    res["games_per_s_median"] = median_rate(samples["ludica"])
    res["plies_per_game"] = plies_per_game
    res["moves_per_s"] = res["games_per_s"] * plies_per_game
    res["batch_games"] = n1
    if threads > 1:
        res["threads"] = threads
        res["threaded_games_per_s"] = best_rate(samples[f"ludica×{threads}"])
        res["speedup"] = res["threaded_games_per_s"] / res["games_per_s"]
        res["machine_speedup"] = best_rate(samples[f"spin×{threads}"]) / best_rate(samples["spin"])
    if reference is not None:
        ref_rate = best_rate(samples["reference"])
        res["reference"] = {
            "games_per_s": ref_rate,
            "games_per_s_median": median_rate(samples["reference"]),
            "moves_per_game": ref_moves["moves"] / ref_moves["games"],
            "moves_per_s": ref_rate * ref_moves["moves"] / ref_moves["games"],
        }
        res["ratio"] = res["games_per_s"] / ref_rate
        res["ratio_median"] = res["games_per_s_median"] / res["reference"]["games_per_s_median"]

    # From Python: whole random games driven by legal_moves / random.choice / apply, recording
    # the positions, then legal_moves + apply alone over those positions.
    log(f"{path.stem}: legal_moves + apply from Python…")
    rng = random.Random(1)
    pairs: list = []
    python_games(game, 1, rng, pairs)  # warm-up
    pairs.clear()
    budget = max(seconds / 6, 0.02)
    games = 0
    t0 = perf_counter()
    while perf_counter() - t0 < budget or games < 2:
        python_games(game, 1, rng, pairs)
        games += 1
    dt = perf_counter() - t0
    res["python_games_per_s"] = games / dt
    res["python_us_per_ply"] = 1e6 * dt / len(pairs)  # a player's pattern: the position just made

    def per_move():
        for state, move in pairs:
            game.legal_moves(state)
            game.apply(state, move)
        return len(pairs)

    def legal_only():
        for state, _ in pairs:
            game.legal_moves(state)
        return len(pairs)

    per = interleave({"both": per_move, "legal_moves": legal_only})
    res["python_us_per_move"] = 1e6 / best_rate(per["both"])
    res["python_legal_moves_us"] = 1e6 / best_rate(per["legal_moves"])
    # apply right after legal_moves on the same state, as a player calls them (the difference)
    res["python_apply_us"] = res["python_us_per_move"] - res["python_legal_moves_us"]
    res["python_moves_timed"] = len(pairs)
    return res


# --- output ------------------------------------------------------------------------------------


def _num(x: float | None, fmt: str = ",.0f") -> str:
    return "—" if x is None else format(x, fmt)


def _seconds(d: dict | None) -> str:
    return "—" if d is None else f"{d['total_s']:.2f}"


def targets(results: list[dict], reference_missing: str | None) -> list[tuple[bool | None, str]]:
    """(met, text) per target; met None when it could not be measured in this run."""
    out: list[tuple[bool | None, str]] = []
    ok = [r for r in results if "error" not in r]
    othello = next((r for r in ok if r.get("is_othello")), None)
    if othello is not None:
        if "ratio" in othello:
            ratio = othello["ratio"]
            out.append((ratio >= TARGET_RATIO, f"Othello playouts / bitboard kernel = {ratio:.2f} "
                                               f"(target ≥ {TARGET_RATIO}, aim {AIM_RATIO})"))
        else:
            out.append((None, f"Othello playouts / bitboard kernel: not measured ({reference_missing})"))
        if "cold" in othello:
            c, w = othello["cold"]["total_s"], othello["warm"]["total_s"]
            out.append((c < TARGET_COLD_S, f"Othello first compilation cold = {c:.1f} s (target < {TARGET_COLD_S:g} s)"))
            out.append((w < TARGET_WARM_S, f"Othello first compilation from a warm cache = {w:.2f} s "
                                           f"(target < {TARGET_WARM_S:g} s)"))
    speed = [r for r in ok if "speedup" in r]
    # A stage whose compute-loop check got less than 90% of the threads (another process held a
    # core) cannot be judged: its speed-up says more about the machine than about ludica.
    judged = [r for r in speed if r["machine_speedup"] >= MACHINE_FREE * r["threads"]]
    busy = [r["stage"] for r in speed if r not in judged]
    busy_note = (f"; not judged where another process held a core (a compute loop got < {MACHINE_FREE:.0%} "
                 f"of the threads): {', '.join(busy)}") if busy else ""
    if judged:
        slow = [f"{r['stage']} {r['speedup']:.2f}×" for r in judged if r["speedup"] < TARGET_SPEEDUP]
        worst = min(r["speedup"] for r in judged)
        out.append((not slow, f"threads={judged[0]['threads']} speed-up ≥ {TARGET_SPEEDUP}× on every stage judged: "
                              f"lowest {worst:.2f}×" + (f"; below: {', '.join(slow)}" if slow else "") + busy_note))
    elif speed:
        out.append((None, f"threads={speed[0]['threads']} speed-up ≥ {TARGET_SPEEDUP}×{busy_note}"))
    if ok:
        slow = [f"{r['stage']} {r['python_us_per_ply']:.1f} µs" for r in ok if r["python_us_per_ply"] >= TARGET_PY_US]
        worst = max(r["python_us_per_ply"] for r in ok)
        above = f"; above: {', '.join(slow)}" if slow else ""
        out.append((not slow, f"a game driven from Python (legal_moves, random.choice, apply) < {TARGET_PY_US:g} µs "
                              f"per ply on every stage: highest {worst:.1f} µs{above}"))
    var = [r for r in ok if r.get("variant_ms") is not None]
    if var:
        slow = [f"{r['stage']} {r['variant_ms']:.0f} ms" for r in var if r["variant_ms"] >= TARGET_VARIANT_MS]
        worst = max(r["variant_ms"] for r in var)
        out.append((not slow, f"new variant ready < {TARGET_VARIANT_MS:g} ms on every stage: highest {worst:.1f} ms"
                              + (f"; above: {', '.join(slow)}" if slow else "")))
    return out


def report(results: list[dict], console: Console, reference_missing: str | None, threads: int) -> None:
    table = Table(title="ludica bench (rates: best of several repeats, one core unless noted)")
    table.add_column("stage", no_wrap=True)
    table.add_column("cold compile s", justify="right")
    table.add_column("warm compile s", justify="right")
    table.add_column("new variant ms", justify="right")
    table.add_column("playouts/s", justify="right")
    table.add_column("moves/s", justify="right")
    table.add_column(f"threads={threads} speed-up", justify="right")
    table.add_column("Python game µs/ply", justify="right")
    table.add_column("legal_moves+apply µs/move", justify="right")
    table.add_column("vs bitboard", justify="right")
    for r in results:
        if "error" in r:
            table.add_row(r["stage"], f"[red]error: {r['error']}[/red]", *[""] * 8)
            continue
        table.add_row(
            r["stage"], _seconds(r.get("cold")), _seconds(r.get("warm")), _num(r.get("variant_ms"), ".1f"),
            _num(r["games_per_s"]), _num(r["moves_per_s"]),
            _num(r.get("speedup"), ".2f") + ("×" if "speedup" in r else ""), _num(r["python_us_per_ply"], ".2f"),
            _num(r["python_us_per_move"], ".2f"),
            _num(r.get("ratio"), ".2f"),
        )
    console.print(table)

    # The same figures in plain text, one line per stage, and what they mean.
    for r in results:
        if "error" in r:
            print(f"{r['stage']}: error: {r['error']}")
            continue
        cold = "cold compile not measured (--no-cold)" if "cold" not in r else (
            f"cold compile {r['cold']['total_s']:.2f} s, warm compile {r['warm']['total_s']:.2f} s "
            f"(+ import {r['warm']['import_s']:.2f} s)")
        variant = ", ".join(f"{k} {v:.1f} ms" for k, v in r["variant_kinds_ms"].items()) or "none"
        line = (f"{r['stage']}: {cold}; new variant ready ({variant}, medians); {r['games_per_s']:,.0f} playouts/s, "
                f"{r['moves_per_s']:,.0f} moves/s ({r['plies_per_game']:.1f} plies/game) on one core")
        if "speedup" in r:
            line += (f"; threads={r['threads']} speed-up {r['speedup']:.2f}× (a pure compute loop got "
                     f"{r['machine_speedup']:.2f}× meanwhile)")
        line += (f"; from Python, a random game {r['python_us_per_ply']:.2f} µs/ply "
                 f"({r['python_games_per_s']:,.0f} games/s), legal_moves + apply on a stored position "
                 f"{r['python_us_per_move']:.2f} µs/move (legal_moves {r['python_legal_moves_us']:.2f} µs, "
                 f"then apply {r['python_apply_us']:.2f} µs)")
        print(line)
        if "reference" in r:
            ref = r["reference"]
            print(f"hand-written bitboard kernel: {ref['games_per_s']:,.0f} games/s, {ref['moves_per_s']:,.0f} moves/s "
                  f"({ref['moves_per_game']:.1f} moves/game, passes not counted)")
            print(f"ratio to hand-written bitboard kernel: {r['ratio']:.2f} (medians: {r['ratio_median']:.2f})")
    if reference_missing:
        print(f"hand-written bitboard kernel: skipped, {reference_missing}")

    print("\ntargets:")
    for met, text in targets(results, reference_missing):
        mark = "not measured" if met is None else ("met" if met else "NOT met")
        print(f"  [{mark}] {text}")
    print("  (ludica ≥ 10× OpenSpiel: see benchmarks/openspiel_compare.py)")


# --- entry point -------------------------------------------------------------------------------


def load_reference(path: Path):
    spec = importlib.util.spec_from_file_location("othello_bitboard_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Compile times, playouts/s, threads, Python-call cost "
                                     "(every bundled stage if none is given).")
    parser.add_argument("stages", nargs="*", metavar="STAGE", help="a .gdl file or the name of a bundled stage")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measured series (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="threads for the scaling figure (default 2)")
    parser.add_argument("--reference", metavar="PATH", help="the hand-written bitboard kernel "
                        "(default benchmarks/othello_bitboard_reference.py)")
    parser.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold/warm compile subprocesses")
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    return parser


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parse the command line `argv` (`prog` names the command in messages) and run the bench."""
    from ludica import stages
    from ludica.arguments import stage_path

    args = build_parser(prog).parse_args(argv)
    try:
        paths = [stage_path(a) for a in args.stages] if args.stages else stages.bundled()
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return run(args, paths)


def run(args: argparse.Namespace, paths: list[Path]) -> int:
    """Run the benchmark on stage files `paths` with the parsed arguments."""
    out = Console(width=None if sys.stdout.isatty() else 160, highlight=False)
    err = Console(stderr=True, highlight=False)
    log = (lambda msg: None) if args.quiet else (lambda msg: err.print(f"[dim]{msg}[/dim]"))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    ref_path = Path(args.reference) if args.reference else DEFAULT_REFERENCE
    reference = None
    reference_missing = None
    results = []
    for path in paths:
        try:
            othello = is_standard_othello(load_stage(path))
            ref = None
            if othello:
                if reference is None and reference_missing is None:
                    if ref_path.exists():
                        reference = load_reference(ref_path)
                    else:
                        reference_missing = f"no reference kernel at {ref_path}"
                ref = reference
            res = bench_stage(path, args.seconds, args.threads, not args.no_cold, ref, log)
            res["is_othello"] = othello
        except Exception as exc:  # one broken stage must not hide the figures of the others
            res = {"stage": path.stem, "path": str(path), "error": f"{type(exc).__name__}: {exc}"}
        results.append(res)

    report(results, out, reference_missing, args.threads)
    if load is not None:
        print(f"load average (1 min) before the run: {load:.2f} on {os.cpu_count()} cores")

    if args.json:
        import numba
        import numpy
        doc = {
            "machine": {"cpus": os.cpu_count(), "load_average_before": load, "python": platform.python_version(), "numba": numba.__version__,
                        "numpy": numpy.__version__, "platform": platform.platform()},
            "settings": {"seconds": args.seconds, "threads": args.threads, "cold": not args.no_cold,
                         "reference": str(ref_path), "repeats": ROUNDS},
            "stages": results,
            "targets": [{"met": met, "text": text} for met, text in targets(results, reference_missing)],
        }
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
