"""`ludica sample`: variant sets of a base stage, or fresh stages, written to a folder with a
manifest; a progress bar while candidates are screened, then a summary of what was rejected and why,
the share of valid draws that were public stages, the bits and K of the accepted stages, and the
screening speed."""
from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from ludica import gdl
from ludica.arguments import MAX_CANDIDATES, count_up_to, jobs_count, stage_count, stage_path
from ludica.terminal import clock, progress_bar


def add_parser(sub) -> None:
    p = sub.add_parser("sample", help="draw unseen stages: variants of a base stage, or fresh ones",
                       description="Draw stages ∝ 2^-bits, screen them for playability inside the kernels, "
                                   "count a stage drawn again (its multiplicity) rather than play it twice, "
                                   "and write them with manifest.json. The same command and "
                                   "seed write the same bytes, whatever --jobs.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--base", metavar="STAGE", help="draw variants of this stage (a file or a bundled name)")
    what.add_argument("--fresh", action="store_true", help="draw fresh stages from the whole language")
    p.add_argument("-n", type=stage_count, required=True, metavar="N", help="how many stages to accept")
    p.add_argument("--seed", type=int, required=True,
                   help="the draw's seed: anyone who knows it draws the same set, so keep it secret for stages "
                        "meant to stay unseen (docs/sampler.md)")
    p.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder for the .gdl files and manifest")
    p.add_argument("--family", default="all", help="variants: the kinds of change (all, arena, dark: variants that hide information, chance: "
                   "variants with dice or a random start; default all)")
    p.add_argument("--exclude", action="append", default=[], metavar="DIR",
                   help="keep the set disjoint from the .gdl files of DIR (repeat the option)")
    p.add_argument("--sides", type=_sides, default=None, metavar="MIN..MAX",
                   help="board sides a draw may have (default 3..12 fresh, 4..12 variants)")
    p.add_argument("--filters", choices=("default", "none"), default="default",
                   help="none: raw draws of the prior (valid stages, no playability filter, every draw kept)")
    p.add_argument("--jobs", type=jobs_count, default=None, metavar="J", help="processes (default: every core)")
    p.add_argument("--min-divergence", type=float, default=None, metavar="D",
                   help="variants: reject those on which a policy tuned to the base loses less than D of its score "
                        "against a rules-aware reference (the divergence, in the manifest; docs/sampler.md)")
    p.add_argument("--max-candidates", type=count_up_to(MAX_CANDIDATES, "candidates judged"), default=None, metavar="M",
                   help="stop after judging M candidates (default: 500 per stage asked for, 20,000 when fresh)")
    p.set_defaults(run=run)


def _sides(text: str) -> tuple[int, int]:
    """argparse type: MIN..MAX board sides within 1..26."""
    low, dots, high = text.partition("..")
    if not dots or not low.isdigit() or not high.isdigit() or not 1 <= int(low) <= int(high) <= 26:
        raise argparse.ArgumentTypeError(f"board sides are MIN..MAX with 1 ≤ MIN ≤ MAX ≤ 26, not {text!r}")
    return int(low), int(high)


def _out_folder(text: str) -> Path:
    """--out: a new or empty folder this process can write to, checked before the draw (which may
    take minutes, and would be lost)."""
    from ludica.files import check_writable

    out = Path(text)
    if out.exists() and not out.is_dir():
        raise gdl.LudicaError(f"--out {text} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise gdl.LudicaError(f"--out {text} is not empty: give a new folder (a set is reproducible from its seed)")
    check_writable(out, "--out")
    return out


def run(args) -> int:
    from rich.console import Console

    from ludica import sampler
    from ludica.sampler.edits import VARIANT_LIMITS

    console = Console()
    out = _out_folder(args.out)
    exclude = [Path(d) for d in args.exclude]
    for folder in exclude:
        if not folder.is_dir():
            raise gdl.LudicaError(f"--exclude {folder}: not a folder")
    base_file = None
    base = None
    if args.base is not None:
        base_file = stage_path(args.base)
        base = gdl.load(base_file)
    filters = sampler.Filters() if args.filters == "default" else sampler.NO_FILTERS
    limits = None
    if args.sides is not None:
        default = sampler.Limits() if base is None else VARIANT_LIMITS
        limits = replace(default, min_side=args.sides[0], max_side=args.sides[1],
                         max_cells=max(default.max_cells, args.sides[1] ** 2))
    try:
        spec = sampler.Spec(args.seed, base, args.family, limits=limits, filters=filters,
                            min_divergence=args.min_divergence)
    except ValueError as err:  # an unknown family: said by the Spec
        raise gdl.LudicaError(str(err)) from None
    preparing = ("preparing: the public stages' fingerprints" + (
        ", the base's score for divergence" if spec.measures_divergence else "") + " (the first run also "
        "compiles the kernels, about a minute)")
    lines = None if console.is_terminal else _Lines(args.n, lambda line: console.print(line, highlight=False, soft_wrap=True))
    if lines is not None:
        lines.say(preparing)
    with progress_bar(console, disable=lines is not None) as progress:  # piped: no bar left in the log, lines
        task = progress.add_task(preparing, total=args.n)

        def on_candidate(c, accepted: int) -> None:
            progress.update(task, completed=accepted, description=f"candidate {c.number}: {c.verdict}")
            if lines is not None:
                lines.candidate(c.number, accepted)

        try:
            result = sampler.run(spec, args.n, jobs=args.jobs or 0, exclude=exclude,
                                 max_candidates=args.max_candidates, progress=on_candidate)
        except KeyboardInterrupt:
            console.print("[yellow]interrupted: nothing written (the same command draws the same set again)[/]")
            return 130
    prefix = "variant" if base is not None else "fresh"
    files = sampler.write(result, out, prefix=prefix, base_file=str(base_file) if base_file else None)
    summary(console, result)
    console.print(f"{len(files)} stages and manifest.json in {out}")
    if result.stopped:
        console.print(f"[yellow]stopped early: {result.stopped}[/]")
        return 1
    return 0


class _Lines:
    """The screening's progress as plain lines, where no bar is drawn (piped, CI, nohup), as a run's
    is (terminal.PlainProgress): a line for each stage accepted, and between those at most one every
    `every` seconds, each with the candidates screened and the time taken."""

    def __init__(self, wanted: int, say, every: float = 60.0, now=time.monotonic):
        self.wanted, self.say, self.every, self.now = wanted, say, every, now
        self.started = self.last = now()
        self.accepted = 0

    def candidate(self, number: int, accepted: int) -> None:
        if accepted == self.accepted and self.now() - self.last < self.every:
            return
        self.accepted, self.last = accepted, self.now()
        self.say(f"{accepted} of {self.wanted} stages accepted, {number} candidates screened, "
                 f"{clock(self.last - self.started)} taken")


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def summary(console, result) -> None:
    """The rejections per filter, the accepted stages' bits and K, and the speed."""
    from rich.table import Table
    from ludica.sampler.output import filter_order

    judged = result.judged
    table = Table(title=f"{len(judged)} candidates: {len(result.accepted)} accepted")
    for column in ("verdict", "candidates", "share", "mean seconds each"):
        table.add_column(column, justify="left" if column == "verdict" else "right")
    groups: dict[str, list] = {}
    for c in judged:
        group = "drawn again (counted)" if c.drawn_again is not None else c.verdict
        groups.setdefault(group, []).append(c)
    order = sorted(groups, key=lambda g: (not g.startswith("rejected"), g == "accepted",
                                          filter_order(g.removeprefix("rejected: "))))
    for g in order:
        cs = groups[g]
        table.add_row(g, str(len(cs)), f"{len(cs) / max(1, len(judged)):.0%}",
                      f"{statistics.fmean(c.seconds for c in cs):.3f}")
    console.print(table)
    accepted = result.accepted
    draws = result.draws()
    if draws["valid"]:
        console.print(f"valid draws: {draws['valid']}; {draws['public share']:.0%} were public stages (or the base), "
                      f"{draws['drawn again']} drew a stage of the set again (counted in its multiplicity)")
    console.print(f"accepted: bits min/median/max {_spread([c.bits for c in accepted])}, "
                  f"K {_spread([c.K for c in accepted])}, tau {_spread([c.tau for c in accepted])}")
    if result.reference is not None:
        values = [c.divergence["value"] for c in accepted]
        console.print(f"divergence (the base-tuned policy's score {result.reference.score:.2f} on the base, minus "
                      f"its score on the variant): min/median/max {_spread(values)}")
    minutes = result.seconds / 60
    full = [c for c in judged if c.every_filter]
    console.print(f"speed: {len(judged) / minutes:.0f} candidates judged/min, {len(full) / minutes:.0f} through "
                  f"every filter/min, {len(accepted) / minutes:.1f} accepted/min ({result.seconds:.1f} s)")
