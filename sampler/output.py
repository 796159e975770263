"""A variant set on disk: one `.gdl` file per accepted stage, in canonical form, and manifest.json.

The manifest holds what makes the set reproducible and what each stage is: the seed, the package
version, the base stage and its hash, the family, limits and filters, the definitions of bits, τ
and K, and per stage its file, what changed in one line, bits, τ, K, multiplicity (the draws that
gave it), Levin weight, divergence from the base (variants) and every filter figure; then the
candidates judged, what the valid draws were (new, drawn again, public, excluded, filtered out; the
public share) and the rejections per filter. No clock time goes in it (the same command and seed
write the same bytes); `ludica sample` prints the times.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from dataclasses import replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..files import sync_folder, write_atomic
from ..gdl.diagnostics import LudicaError
from ..gdl.bits import description_length
from ..gdl.printer import format
from .cost import TAU_GAMES, TAU_SEED
from . import edits
from .edits import VARIANT_LIMITS
from .prior import Limits
from .sample import DRAW_REJECTIONS, EXCLUDED, PUBLIC, Run, present
from .screen import FILTERS

PRIOR = ("Each stage is drawn from a prefix-free code by drawing every field at random, so a draw has "
         "probability 2^-bits; draws that break a limit, a static check or a filter are rejected whole, "
         "so accepted stages keep probabilities proportional to 2^-bits among the accepted.")
TAU = (f"tau: the mean, over the seeded random games 0..{TAU_GAMES - 1} of seed {TAU_SEED}, of the sum over "
       "the positions a game passes through of 1 + its legal moves (counted, not timed).")
LEVIN = ("K = bits + log2 tau. Stages are drawn proportional to 2^-bits; a stage drawn again is counted, not played "
         "again (multiplicity: the draws that gave it), and each draw is weighted by 2^-K / 2^-bits = 1/tau: a "
         "stage's levin weight is multiplicity / tau, normalised over the set, and weighted means over the set "
         "estimate means under the prior proportional to 2^-K (summed over the edits or descriptions of a stage).")

DIVERGENCE = ("divergence = score(base) - score(variant), where score is the mean score (win 1, draw 1/2) of a "
              "policy tuned to Othello (one ply ahead, the position its cell table values most) against flat "
              "Monte-Carlo (random playouts from each move's position, the best mean result), half the games in "
              "each seat; se: the standard error of the difference (binomial bound).")


def package_version() -> str:
    try:
        return version("ludica")
    except PackageNotFoundError:
        return "unknown"


def stage_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write(result: Run, out: Path, *, prefix: str, base_file: str | None = None) -> list[Path]:
    """Write the accepted stages and manifest.json into `out` (a new or empty folder), whole or not
    at all; returns the files. They are written into a folder beside `out`, which is renamed to it
    once the manifest, last, is written: a kill in the middle leaves `out` as it was (and a hidden
    `.OUT.partial-...` folder), never a set without its manifest, which `evaluate --unseen` would
    weigh as a hand-made one."""
    out = Path(out)
    if out.is_dir() and any(out.iterdir()):
        raise LudicaError(f"{out} is not empty: a sampled set is written into a new or empty folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.partial-{os.getpid()}-{secrets.token_hex(4)}")
    staging.mkdir()
    try:
        files = _write(result, staging, prefix, base_file)
        os.replace(staging, out)  # rename(2) takes the place of an empty folder, atomically
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    sync_folder(out.parent)  # the rename itself reaches the disk
    return [out / f.name for f in files]


def _write(result: Run, out: Path, prefix: str, base_file: str | None) -> list[Path]:
    """The accepted stages and, last, manifest.json, into the folder `out`."""
    spec = result.spec
    files, entries = [], []
    for i, (c, weight) in enumerate(zip(result.accepted, result.weights()), start=1):
        name = f"{prefix}-{i:03d}"
        label = (f"{spec.base.name} variant {i}" if spec.base is not None and spec.base.name else name)
        what = f"accepted candidate {c.number}"  # screened whole: each figure below is there
        stage = present(c.stage, f"the stage of {what}")
        text = format(replace(stage, name=label))
        path = write_atomic(out / f"{name}.gdl", text)
        files.append(path)
        entries.append({
            "file": path.name, "name": label, "candidate": c.number,
            "changes": c.changes or None, "bits": round(present(c.bits, f"the bits of {what}"), 6),
            **({} if c.edit is None else {"bits_drawn": round(present(c.drawn_bits, f"the bits drawn of {what}"), 6),
                                          "edit": edits.edit_text(c.edit)}),
            "description_length": round(description_length(stage), 6),
            "tau": round(present(c.tau, f"the τ of {what}"), 4),
            "K": round(present(c.K, f"the K of {what}"), 6), "multiplicity": c.multiplicity,
            "levin_weight": round(weight, 9),
            **({} if c.divergence is None else {"divergence": c.divergence}), "figures": c.figures,
            "key": c.key, "fingerprint": c.fingerprint, "sha256": stage_hash(text),
        })
    manifest = {
        "ludica": package_version(),
        "seed": spec.seed,
        "mode": "variants" if spec.base is not None else "fresh",
        "base": None if spec.base is None else {
            "file": base_file, "name": spec.base.name, "sha256": stage_hash(format(spec.base)),
            "description_length": round(description_length(spec.base), 6)},
        "family": spec.family if spec.base is not None else None,
        "limits": (spec.limits or (Limits() if spec.base is None else VARIANT_LIMITS)).as_dict(),
        "filters": spec.filters.as_dict() if spec.filters.enabled else "none",
        "prior": PRIOR, "tau": TAU, "K": LEVIN,
        "bits": ("of the smallest edit that gives the variant (edit; bits_drawn: of the edit drawn, which may "
                 "carry changes that give nothing) for variants; the description length for fresh stages"),
        "divergence": None if result.reference is None else {
            "definition": DIVERGENCE,
            "settings": present(spec.divergence, "the divergence settings of a run measured from the base").as_dict(),
            "minimum": spec.min_divergence,
            "base": {"score": round(result.reference.score, 4), "se": round(result.reference.se, 4),
                     "games": result.reference.games}},
        "stages": entries,
        "candidates": len(result.judged),
        "accepted": len(result.accepted),
        "draws": result.draws(),
        "rejections": dict(sorted(result.rejections().items(), key=lambda kv: filter_order(kv[0]))),
        "stopped": result.stopped,
    }
    # last, and whole or not at all: a folder with a manifest holds its whole set
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return files


def filter_order(rejected_by: str) -> tuple[int, str]:
    """Where a reason for rejection comes in a run: the draw's own, then the filters', then the
    stages not to draw."""
    order = (*DRAW_REJECTIONS, *FILTERS, "divergence", PUBLIC, EXCLUDED)
    return (order.index(rejected_by) if rejected_by in order else len(order), rejected_by)
