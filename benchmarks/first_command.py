"""Where the README's first command's time goes (issue 34): `ludica evaluate` with its defaults, run in
this process with timers on its parts, and the run's own records.

Printed, in one run:
- the whole command's wall time (what it prints as `took`);
- the parts played one after the other, in wall seconds: drawing and screening the unseen stages,
  compiling each stage for play (and warming numba's cache for the workers), the summary, the report;
- the parts played side by side (`--jobs` stages at once), in seconds summed over the jobs, and
  their share of the play's wall time × jobs: starting the sandboxed workers (the jail, Python,
  the worker's own compile of the stage), the agents' analyses, the games; and within the games
  the agents' thinking (CPU, as the referee charges it) and the rest (the referee, the kernels it
  steps, the pipes, waiting for a CPU);
- the games by kind (the format's, the adaptation copies', the baselines' reference games): count
  and agents' CPU;
- numba's compilations in this process (their count and seconds: a fresh clone has no cache).

    python benchmarks/first_command.py [--out DIR] [-- EVALUATE-OPTIONS...]

The options after `--` go to `ludica evaluate` as they are (default: none, the README's command).
A fresh clone compiles every kernel on first use: run it once there for the cold figures, again
for the warm ones.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import json
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

from numba.core import event

from ludica.cli import main as ludica
from ludica.evaluation import evaluate, report, stageset, summary
from ludica.runtime import run as runs
from ludica.runtime.sandbox import AgentProcess


class Timers:
    """Seconds and calls per part, summed over the threads that ran it."""

    def __init__(self):
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.calls: dict[str, int] = collections.defaultdict(int)
        self._lock = threading.Lock()
        self._originals: list[tuple[object, str, object]] = []

    def restore(self) -> None:
        """Every wrapped function as it was (the benchmark may run inside another program: a test)."""
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()

    def wrap(self, owner, name: str, part: str) -> None:
        original = getattr(owner, name)
        self._originals.append((owner, name, original))

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds[part] += time.perf_counter() - started
                    self.calls[part] += 1

        setattr(owner, name, timed)


class Compilations(event.Listener):
    """numba's compilations in this process: their count and their seconds (outermost only)."""

    def __init__(self):
        self.count, self.seconds, self._depth, self._started = 0, 0.0, 0, 0.0

    def on_start(self, ev):
        if self._depth == 0:
            self._started = time.perf_counter()
        self._depth += 1

    def on_end(self, ev):
        self._depth -= 1
        if self._depth == 0:
            self.count += 1
            self.seconds += time.perf_counter() - self._started


def games_by_kind(folder: Path) -> dict[str, tuple[int, float]]:
    """kind → (games, the agents' CPU seconds in them), as the summary splits them."""
    with contextlib.closing(sqlite3.connect(folder / "results.sqlite")) as db:
        db.row_factory = sqlite3.Row
        games = [dict(r) for r in db.execute("SELECT * FROM games")]
        setting = dict(db.execute("SELECT key, value FROM settings"))
    setup = json.loads(setting.get("evaluation", "{}"))
    pseudo = {n: (a, f) for n, (a, f) in setup.get("adaptation", {}).items()}
    main, _, learning, among = summary.split_games(games, [], pseudo, setup, json.loads(setting.get("agents", "[]")))
    return {kind: (len(rows), sum(g["black_time"] + g["white_time"] for g in rows))
            for kind, rows in (("the format's", main), ("adaptation", learning), ("reference", among))}


def analyses(folder: Path) -> tuple[int, float]:
    with contextlib.closing(sqlite3.connect(folder / "results.sqlite")) as db:
        count, seconds = db.execute("SELECT COUNT(*), COALESCE(SUM(seconds), 0) FROM analyses").fetchone()
    return count, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the run folder (default: a temporary one)")
    parser.add_argument("evaluate", nargs="*", help="options for ludica evaluate, after --")
    args = parser.parse_args(argv)
    timers = Timers()
    timers.wrap(stageset, "sampled", "draw and screening")
    timers.wrap(runs, "playable", "compile for play")
    timers.wrap(runs, "warm", "compile for play")
    timers.wrap(AgentProcess, "launch", "workers: launch")
    timers.wrap(AgentProcess, "wait_ready", "workers: until ready")
    timers.wrap(AgentProcess, "analyze", "analyses")
    timers.wrap(runs, "play_game", "games")
    timers.wrap(evaluate, "summarise", "summary")
    timers.wrap(report, "write_report", "report")
    compiled = Compilations()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "run"
        command = ["evaluate", "--out", str(out), *args.evaluate]
        started = time.perf_counter()
        try:
            with event.install_listener("numba:compile", compiled):
                code = ludica(command)
        finally:
            timers.restore()
        took = time.perf_counter() - started
        if code != 0:
            print(f"ludica {' '.join(command)} failed (exit code {code})")
            return code
        kinds, (analysed, analysis_cpu) = games_by_kind(out), analyses(out)
    jobs = len(runs.cores()) if "--jobs" not in args.evaluate else int(args.evaluate[args.evaluate.index("--jobs") + 1])
    s = timers.seconds
    sequential = ["draw and screening", "compile for play", "summary", "report"]
    played = took - s["draw and screening"] - s["summary"] - s["report"]  # the play, compiling included
    print(f"first command: ludica {' '.join(command[3:]) or 'evaluate (defaults)'} on {jobs} job(s): took {took:.1f} s")
    print(f"{'part':34} {'seconds':>8} {'calls':>6}  share")
    for part in sequential:
        print(f"{part:34} {s[part]:8.1f} {timers.calls[part]:6d}  {s[part] / took:5.1%} of the whole (wall)")
    print(f"{'the play (wall, compiling included)':34} {played:8.1f} {'':6}  {played / took:5.1%} of the whole")
    capacity = played * jobs
    thinking = sum(cpu for _, cpu in kinds.values())
    side = [("workers: launch", s["workers: launch"]), ("workers: until ready", s["workers: until ready"]),
            ("analyses", s["analyses"]), ("games", s["games"]), ("  agents thinking (CPU)", thinking),
            ("  the rest: referee, kernels, waits", s["games"] - thinking)]
    for part, seconds in side:
        calls = timers.calls.get(part.strip(), "")
        print(f"{part:34} {seconds:8.1f} {calls!s:>6}  {seconds / capacity:5.1%} of the play × {jobs} jobs")
    print(f"{'analyses: agents CPU (store)':34} {analysis_cpu:8.1f} {analysed:6d}")
    for kind, (count, cpu) in kinds.items():
        print(f"{'games, ' + kind:34} {cpu:8.1f} {count:6d}  agents' CPU, {cpu / max(thinking, 1e-9):5.1%} of it")
    print(f"{'numba compilations (this process)':34} {compiled.seconds:8.1f} {compiled.count:6d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
