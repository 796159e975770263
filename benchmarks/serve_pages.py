"""How long `ludica serve` takes to show a finished run, measured in one run, beside the static report.

Over a run folder (a finished `ludica evaluate` or `ludica tournament`), in this process through
the application's ASGI interface (Starlette's TestClient: no socket, no browser), it times:

- the run page the first time (the store read, the ratings and their bootstrap, every view and the
  replay's boards computed, the page rendered),
- the run page again (the views held: only rendered),
- the replay page (every game's boards, as JSON),
- the static report of the same run (`ludica report`'s work: summarise, then render report.html),

and prints the ratios: a served page against the report it mirrors, a held page against a
computed one. A browser adds its own parse and layout (the closing note of issue 22 measured it
with Chromium: well under a second for the pages of a 1860-game store).

    python benchmarks/serve_pages.py RUN_FOLDER [--resamples 200]
"""
from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

from ludica.evaluation import summarise, write_report
from ludica.runtime import Run
from ludica.web import create_app, sort_folders

with warnings.catch_warnings():  # newer Starlette asks for httpx's successor, which mirrors lack
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    value = call()
    return time.perf_counter() - started, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished run folder")
    parser.add_argument("--resamples", type=int, default=200, help="the bootstrap's, as `ludica serve` (default 200)")
    args = parser.parse_args()

    client = TestClient(create_app(sort_folders([args.run]), resamples=args.resamples), base_url="http://127.0.0.1")
    first, page = timed(lambda: client.get("/runs/0"))
    again, _ = timed(lambda: client.get("/runs/0"))
    replay, replayed = timed(lambda: client.get("/runs/0/replay"))
    assert page.status_code == replayed.status_code == 200

    def report() -> int:
        with Run.read(args.run) as run:
            summary = summarise(run.store, resamples=args.resamples, seed=run.options.seed)
        with tempfile.TemporaryDirectory() as out:
            return write_report(summary, Path(out))["html"].stat().st_size

    static, size = timed(report)
    with Run.read(args.run) as run:
        games = len(run.store.games())
    print(f"run folder {args.run}: {games} games in the store; bootstrap {args.resamples} resamples")
    print(f"run page, first:  {first:7.2f} s  ({len(page.content) / 1e6:.2f} MB)")
    print(f"run page, again:  {again:7.2f} s")
    print(f"replay page:      {replay:7.2f} s  ({len(replayed.content) / 1e6:.2f} MB)")
    print(f"static report:    {static:7.2f} s  ({size / 1e6:.2f} MB report.html)")
    print(f"first run page / static report = {first / static:.2f}; run page again / first = {again / first:.3f}")


if __name__ == "__main__":
    main()
