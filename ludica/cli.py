"""The `ludica` command line.

    ludica check [FILE...]            check stage files (all bundled stages if none are given)
    ludica show STAGE [--rules]       the initial board and the legal first moves (--rules: the
                                      rules in plain English)
    ludica import-arena CONFIG... --out DIR
                                      Othello AI Arena stage configs (JSON) → canonical .gdl files
    ludica play STAGE --black AGENT --white AGENT [--quiet]
                                      one game, printed move by move (`human`: you play it here)
    ludica tournament STAGE... --agent AGENT... [--builtins] --out DIR [--resume]
                                      round robins of sandboxed agents, results in DIR
    ludica sample (--base STAGE | --fresh) -n N --seed S --out DIR [--family arena] [--exclude DIR]
                                      unseen stages drawn ∝ 2^-K, screened, with manifest.json
    ludica evaluate [AGENT...] [--out DIR]
                                      agents on public and unseen stages: ratings, metrics, report
    ludica report DIR                 a run's report again (DIR/report.html), its leaderboard here
    ludica serve [DIR...] [--port N] [--host H]
                                      a local web application: the stages, runs live, replays,
                                      and Play (you against any agent, or agents watched live)
    ludica demo [--out DIR]           check every bundled stage, then a small tournament of the
                                      built-in agents on bundled stages (results in ./ludica-demo)
    ludica bench [STAGE...]           speed of the compiled engine: runs benchmarks/bench.py of the
                                      source checkout ludica is installed from (pip install -e .)

A STAGE is a path to a .gdl file or the name of a bundled stage (`ludica check` lists them).
An AGENT is the name of a built-in (random, greedy, corners, positional, mcts, adaptive), `human`
(a person: moves typed at the terminal, or clicked on serve's Play page) or a path to an agent
file (README: "Writing an agent").
"""
from __future__ import annotations

import argparse
import sys

from ludica import gdl
from ludica.commands import COMMANDS
from ludica.terminal import inert


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("ludica")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ludica", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"ludica {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)  # as given: a run keeps its command line
    if args.command == "bench":  # its arguments are the bench script's to parse
        args.bench_args = rest
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return args.run(args)
    except gdl.StageError as err:
        print(err, file=sys.stderr)
        return 1
    except gdl.StageFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except gdl.LudicaError as err:  # an agent argument, ...: what is wrong, no traceback
        print(f"error: {inert(err)}", file=sys.stderr)  # it may name an agent
        return 2
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `ludica demo | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
