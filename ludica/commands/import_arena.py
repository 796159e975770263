"""`ludica import-arena`: Othello AI Arena stage configs (JSON) → canonical .gdl files.

Every config of every file is tried; each bad one is said (file, index, what is wrong) and the
others are still written; the exit status is 1 if any was bad. Nothing is overwritten: two
configs whose names give one file name get distinct files (`-2`, `-3`...), and so does a config
whose file is already there with other text (the same text: left as it is). A stage that would
not pass `ludica check` (every cell blocked...) is not written.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ludica import gdl
from ludica.files import slug, write_atomic
from ludica.gdl.arena import configs_from_json
from ludica.gdl.loader import read_utf8

MAX_CONFIG_BYTES = 4 << 20  # the Arena's configs are a few hundred bytes each


def add_parser(sub) -> None:
    p = sub.add_parser("import-arena", help="turn Othello AI Arena stage configs (JSON) into .gdl files")
    p.add_argument("configs", nargs="+", metavar="CONFIG.json", help="one config object, or a list of them, per file")
    p.add_argument("--out", required=True, metavar="DIR")
    p.set_defaults(run=run)


def read_configs(path: Path) -> list:
    """The configs of a JSON file (one object, or a list of them); LudicaError saying what is wrong."""
    return configs_from_json(read_utf8(path, "Arena stage config", MAX_CONFIG_BYTES), path)


def _file_stem(stage_name: str) -> str:
    """A stage's file name: its name in lower case, letters and digits, words joined by `-`."""
    return slug(stage_name.lower(), empty="stage")


def _target(out: Path, stem: str, text: str, taken: set[Path]) -> tuple[Path, bool]:
    """Where a stage's text goes (a free name, never over other text), and whether it is there already."""
    for k in range(1, 10_000):
        path = out / (f"{stem}.gdl" if k == 1 else f"{stem}-{k}.gdl")
        if path in taken:
            continue
        if not path.exists():
            return path, False
        if path.read_text(encoding="utf-8", errors="replace") == text:
            return path, True
    raise gdl.LudicaError(f"{out}: no free file name for {stem}.gdl")


def run(args) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise gdl.LudicaError(f"--out {out} is a file, not a folder")
    written, failed = 0, 0
    taken: set[Path] = set()
    for source in args.configs:
        try:
            configs = read_configs(Path(source))
        except (gdl.LudicaError, FileNotFoundError) as err:
            print(f"error: {err}", file=sys.stderr)
            failed += 1
            continue
        for i, config in enumerate(configs):
            where = source if len(configs) == 1 else f"{source}[{i}]"
            warnings: list[str] = []
            try:
                stage = gdl.from_arena(config, warnings)
            except ValueError as err:
                print(f"{where}: error: {err}", file=sys.stderr)
                failed += 1
                continue
            for w in warnings:
                print(f"{where}: warning: {w}")
            text = gdl.format(stage)
            checked, problems = gdl.analyse(text)
            if checked is None or any(d.is_error for d in problems):
                for d in problems:
                    if d.is_error:
                        print(f"{where}: error: the stage it describes cannot be played: {d.message}", file=sys.stderr)
                failed += 1
                continue
            out.mkdir(parents=True, exist_ok=True)
            stem = _file_stem(stage.name)
            target, same = _target(out, stem, text, taken)
            taken.add(target)
            if same:
                print(f"{where}: {target} already holds this stage")
            else:
                write_atomic(target, text)
                renamed = "" if target.stem == stem else f" ({stem}.gdl was taken)"
                print(f"{where}: wrote {target}{renamed} ({gdl.description_length(stage):.1f} bits)")
            written += 1
    print(f"{written} stage{'s' * (written != 1)} in {out}" + (f"; {failed} config(s) not imported" if failed else ""))
    return 1 if failed else 0
