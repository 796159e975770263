"""`ludica check [FILE...]`: check stage files (every bundled stage if none are given), each
problem shown at its line and column, with the stage's description length."""
from __future__ import annotations

from pathlib import Path

from ludica import gdl
from ludica import stages as bundled
from ludica.arguments import display, stage_files


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check stage files (every bundled stage if none are given)")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--bits", action="store_true", help="explain the description length, statement by statement")
    p.set_defaults(run=run)


def run(args) -> int:
    return check(stage_files(args.files) if args.files else bundled.bundled(), explain_bits=args.bits)


def check(paths: list[Path], explain_bits: bool = False) -> int:
    """Check each stage file, printing what is wrong or its description length (and, with
    `explain_bits`, its statements' bits); 1 if any failed."""
    failed = 0
    for path in paths:
        shown = display(path)
        try:
            text = gdl.read_stage(path)
        except gdl.StageFileError as err:
            print(err)  # it names the file, the line and the column
            failed += 1
            continue
        stage, problems = gdl.analyse(text, path)
        for d in problems:
            print(d.render(text, shown))
        if stage is None or any(d.is_error for d in problems):
            failed += 1
            errors = sum(d.is_error for d in problems)
            print(f"{shown}: {errors} error{'s' * (errors != 1)}")
            continue
        print(f"{shown}: OK  {gdl.description_length(stage):.1f} bits  {stage.name!r}")
        if explain_bits:
            for what, bits in gdl.bits_breakdown(stage):
                print(f"    {bits:7.2f}  {what}")
    if len(paths) > 1:
        print(f"{len(paths) - failed} of {len(paths)} stages OK")
    return 1 if failed else 0
