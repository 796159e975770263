"""The `ludica` command line.

    ludica check [FILE...]            check stage files (all bundled stages if none are given)
    ludica show STAGE                 the initial board and the legal first moves
    ludica import-arena CONFIG... --out DIR
                                      Othello AI Arena stage configs (JSON) → canonical .gdl files
    ludica demo [STAGE] [--seed N]    check every bundled stage, then play a random game
    ludica bench [STAGE...]           speed of the compiled engine (see ludica/bench.py)

A STAGE is a path to a .gdl file or the name of a bundled stage (`ludica check` lists them).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

from ludica import gdl
from ludica import stages as bundled


def _stage_path(arg: str) -> Path:
    path = Path(arg)
    if path.exists():
        return path
    if path.suffix == ".gdl" or "/" in arg:
        raise FileNotFoundError(f"no such stage file: {arg}")
    return bundled.path(arg)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def cmd_check(args) -> int:
    paths = [_stage_path(a) for a in args.files] if args.files else bundled.bundled()
    failed = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        stage, problems = gdl.analyse(text, path)
        shown = _display(path)
        for d in problems:
            print(d.render(text, shown))
        if stage is None or any(d.is_error for d in problems):
            failed += 1
            errors = sum(d.is_error for d in problems)
            print(f"{shown}: {errors} error{'s' * (errors != 1)}")
            continue
        print(f"{shown}: OK  {gdl.description_length(stage):.1f} bits  {stage.name!r}")
        if args.bits:
            for what, bits in gdl.bits_breakdown(stage):
                print(f"    {bits:7.2f}  {what}")
    if len(paths) > 1:
        print(f"{len(paths) - failed} of {len(paths)} stages OK")
    return 1 if failed else 0


def _describe(stage: gdl.Stage) -> str:
    b = stage.board
    shape = f"{b.rows}x{b.cols} {b.keyword}" + (" (wrapped)" if b.wrap else "")
    return f"{stage.name!r}: {shape} board, players {' and '.join(stage.player_names)}"


def cmd_show(args) -> int:
    stage = gdl.load(_stage_path(args.stage))
    game = gdl.reference(stage)
    state = game.initial_state()
    print(_describe(stage))
    print(f"description length: {gdl.description_length(stage):.1f} bits")
    print(gdl.render(game, state))
    mover = stage.player_names[game.to_move(state)]
    moves = game.legal_moves(state)
    print(f"{mover} to move; {len(moves)} legal move{'s' * (len(moves) != 1)}: " + " ".join(map(str, moves)))
    return 0


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "stage"


def cmd_import_arena(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for source in args.configs:
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            print(f"{source}: error: cannot read an Arena stage config: {err}", file=sys.stderr)
            return 1
        configs = data if isinstance(data, list) else [data]
        for i, config in enumerate(configs):
            where = source if len(configs) == 1 else f"{source}[{i}]"
            warnings: list[str] = []
            try:
                stage = gdl.from_arena(config, warnings)
            except ValueError as err:
                print(f"{where}: error: {err}", file=sys.stderr)
                return 1
            for w in warnings:
                print(f"{where}: warning: {w}")
            target = out / f"{_slug(stage.name)}.gdl"
            target.write_text(gdl.format(stage), encoding="utf-8")
            gdl.load(target)  # what we write must load back
            print(f"{where}: wrote {target} ({gdl.description_length(stage):.1f} bits)")
            written += 1
    print(f"{written} stage{'s' * (written != 1)} written to {out}")
    return 0


def cmd_demo(args) -> int:
    print("== ludica check (every bundled stage) ==")
    status = cmd_check(argparse.Namespace(files=[], bits=False))
    stage = gdl.load(_stage_path(args.stage))
    game = gdl.reference(stage)
    rng = random.Random(args.seed)
    print(f"\n== a random game: {_describe(stage)}, seed {args.seed} ==")
    state = game.initial_state()
    print(gdl.render(game, state))
    names = stage.player_names
    while not game.is_terminal(state):
        player = names[game.to_move(state)]
        move = rng.choice(game.legal_moves(state))
        state, taken = game.apply_counted(state, move)
        took = f", taking {taken}" if taken else ""
        print(f"\nply {state.ply}: {player} plays {move}{took}")
        print(gdl.render(game, state))
    returns = game.returns(state)
    counts = [int((game.board(state) == p + 1).sum()) for p in range(len(names))]
    result = "a draw" if max(returns) <= 0 else f"{names[returns.index(max(returns))]} wins"
    print(f"\nGame over after {state.ply} plies: {result} (pieces {counts[0]}-{counts[1]})")
    return status


def cmd_bench(args) -> int:
    from ludica import bench  # imports numba: only for this command
    return bench.main(args, [_stage_path(a) for a in args.stages] if args.stages else bundled.bundled())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ludica", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="check stage files (every bundled stage if none are given)")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--bits", action="store_true", help="explain the description length, statement by statement")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("show", help="print a stage's initial board and legal first moves")
    p.add_argument("stage", metavar="STAGE")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("import-arena", help="turn Othello AI Arena stage configs (JSON) into .gdl files")
    p.add_argument("configs", nargs="+", metavar="CONFIG.json", help="one config object, or a list of them, per file")
    p.add_argument("--out", required=True, metavar="DIR")
    p.set_defaults(run=cmd_import_arena)

    p = sub.add_parser("demo", help="check every bundled stage, then play a random game printed as boards")
    p.add_argument("stage", nargs="?", default="standard-8x8", metavar="STAGE")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("bench", help="compile times, playouts/s, threads, Python-call cost (all bundled stages if none given)")
    p.add_argument("stages", nargs="*", metavar="STAGE")
    p.add_argument("--seconds", type=float, default=3.0, help="time per measured series (default 3)")
    p.add_argument("--threads", type=int, default=2, help="threads for the scaling figure (default 2)")
    p.add_argument("--reference", metavar="PATH", help="the hand-written bitboard kernel "
                   "(default ../shared/reference/othello_bitboard.py beside the repository)")
    p.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    p.add_argument("--no-cold", action="store_true", help="skip the cold/warm compile subprocesses")
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except gdl.StageError as err:
        print(err, file=sys.stderr)
        return 1
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `ludica demo | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
