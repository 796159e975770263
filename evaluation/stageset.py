"""The stages of an evaluation: public ones (bundled or given files) and unseen ones (a folder of
.gdl files, or a set the sampler draws into the run folder), each with its role and its weight in
the anytime estimate.

Unseen stages drawn by the sampler come ∝ 2^-bits, each played once however often it was drawn, and
carry Levin weights multiplicity / τ normalised over the set (sampler/sample.py, manifest.json):
the weighted mean over the set estimates the mean under the prior ∝ 2^-K. The multiplicity (the
draws that gave the stage, counted in its weight already: a stage drawn twice weighs twice what a
stage of the same τ drawn once does) is read too, for the report, and so is a variant's divergence
(sampler/divergence.py: what a policy tuned to the base loses there). A manifest must list exactly
the folder's stages, each as drawn; stages of a folder without a manifest weigh the same, unless
they bear the sampler's names (a set whose writing was cut short: refused).
"""
from __future__ import annotations

import hashlib
import math
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..files import read_json
from ..gdl import ast as A
from ..gdl import load, read_stage
from ..gdl.diagnostics import LudicaError
from ..gdl.printer import format as format_stage
from ..runtime.guarded import Secret, of_run

PUBLIC, UNSEEN = "public", "unseen"


@dataclass(frozen=True)
class EvalStage:
    stage: A.Stage
    role: str  # PUBLIC or UNSEEN
    weight: float  # relative weight in the anytime estimate (public stages: 1, not used there)
    source: str  # the file it came from
    multiplicity: int = 1  # the sampler's draws that gave the stage (counted in `weight` already)
    divergence: tuple[float, float] | None = None  # a variant's divergence from its base and its standard error

    @property
    def text(self) -> str:
        return format_stage(self.stage)


def secrets(folder: Path, stages: list[EvalStage]) -> tuple[Secret, ...]:
    """What no agent of the evaluation in `folder` may see: the run folder, the stage files it was
    given (bundled ones are public) and the folders of its unseen stages (their manifest too)."""
    return of_run(folder, [s.source for s in stages if s.source],
                  sorted({str(Path(s.source).parent) for s in stages if s.role == UNSEEN and s.source}))


def public(paths: list[Path]) -> list[EvalStage]:
    return [EvalStage(load(p), PUBLIC, 1.0, str(p)) for p in paths]


# The names `ludica sample` gives its stages: a folder of them without its manifest is a set whose
# writing was cut short (by an older ludica: this one renames the set into place whole)
SAMPLED_NAME = re.compile(r"(variant|fresh)-\d{3,}\.gdl")


def from_folder(folder: Path, role: str = UNSEEN) -> list[EvalStage]:
    """Every .gdl file of `folder`, in the manifest's order when it has one (with its weights). A
    manifest must list exactly the folder's stages, each as it was drawn (its sha256); the sampler's
    stages without a manifest are refused, as a set that was not written whole."""
    files = sorted(folder.glob("*.gdl"))
    if not files:
        raise LudicaError(f"no .gdl file in {folder}")
    weights: dict[str, float] = {}
    counts: dict[str, int] = {}
    divergences: dict[str, tuple[float, float]] = {}
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        drawn = [p.name for p in files if SAMPLED_NAME.fullmatch(p.name)]
        if drawn:
            raise LudicaError(f"{folder} holds stages the sampler named ({_some(drawn)}) but no manifest.json: the "
                              "set's writing was cut short (a `ludica sample` stopped before its manifest), and its "
                              "weights are lost. Draw it again (the same command and seed draw the same set), or, "
                              "for stages of your own weighed the same, rename them")
    else:
        fix = "remove it, or give the folder of a `ludica sample` run"
        data = read_json(manifest, fix=fix)
        try:
            for entry in data.get("stages", []):
                if not isinstance(entry.get("file"), str):
                    raise TypeError(f"a stage's file is not named: {str(entry)[:80]}")
            weights = {e["file"]: float(e["levin_weight"]) for e in data.get("stages", [])}
            # a manifest written before draws were counted has no multiplicity: each stage was drawn once
            counts = {e["file"]: e.get("multiplicity", 1) for e in data.get("stages", [])}
            divergences = {e["file"]: (float(e["divergence"]["value"]), float(e["divergence"]["se"]))
                           for e in data.get("stages", []) if e.get("divergence") is not None}
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise LudicaError(f"{manifest} is not a sampler manifest ({err}); {fix}") from None
        _check_listed(folder, manifest, data, files)
        for file, weight in weights.items():
            # the anytime estimate divides by their sum and takes their squares: each must count
            if not (math.isfinite(weight) and weight > 0):
                raise LudicaError(f"{manifest}: the levin_weight of {file} is {weight:g}: every weight must be a "
                                  "finite number above 0; correct it, or remove manifest.json (the stages then "
                                  "weigh the same)")
            if type(counts[file]) is not int or counts[file] < 1:
                raise LudicaError(f"{manifest}: the multiplicity of {file} is {counts[file]!r}: the draws that gave a "
                                  "stage are a whole number, 1 or more; correct it, or remove manifest.json")
        order = list(weights)
        files.sort(key=lambda p: order.index(p.name))
    return [EvalStage(load(p), role, weights.get(p.name, 1.0), str(p), counts.get(p.name, 1), divergences.get(p.name))
            for p in files]


def _some(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _check_listed(folder: Path, manifest: Path, data: dict, files: list[Path]) -> None:
    """The manifest lists the folder's stages, each once, no more and no fewer (as many as it says
    it accepted), and each file is the stage drawn (the sha256 of its text, where it says one)."""
    listed = [e["file"] for e in data.get("stages", [])]
    redraw = ("draw the set again (the same `ludica sample` command and seed draw the same set), or restore the "
              "folder as the sampler wrote it")
    repeated = sorted({f for f in listed if listed.count(f) > 1})
    if repeated:
        raise LudicaError(f"{manifest} lists {_some(repeated)} more than once; {redraw}")
    held = {p.name for p in files}
    missing, extra = [f for f in listed if f not in held], sorted(held - set(listed))
    if missing:
        raise LudicaError(f"{manifest} lists {_some(missing)}, which {folder} does not hold: the set is incomplete "
                          f"(cut short, or files were removed); {redraw}")
    if extra:
        raise LudicaError(f"{folder} holds {_some(extra)}, which its manifest.json does not list (nor weighs); remove "
                          f"them, or {redraw}")
    if "accepted" in data and data["accepted"] != len(listed):
        raise LudicaError(f"{manifest} says {data['accepted']!r} stages were accepted but lists {len(listed)}; {redraw}")
    for entry in data.get("stages", []):
        want = entry.get("sha256")
        if want is not None and hashlib.sha256(read_stage(folder / entry["file"]).encode()).hexdigest() != want:
            raise LudicaError(f"{folder / entry['file']} is not the stage its manifest lists (its sha256 differs): it "
                              f"was changed after the draw; {redraw}")


def sampled(folder: Path, *, base: A.Stage | None, n: int, seed: int, family: str = "arena",
            jobs: int = 0, progress=None, min_divergence: float | None = None) -> list[EvalStage]:
    """`n` unseen stages drawn by the sampler into `folder` (variants of `base`, or fresh stages
    when it is None; `min_divergence`: variants that diverge from the base at least this much), or
    those it holds already from the same draw (a resumed run)."""
    if base is None and min_divergence is not None:
        raise LudicaError("a minimum divergence is from a base stage: fresh stages have none; leave it out, or "
                          "draw variants")
    manifest = folder / "manifest.json"
    if manifest.is_file():
        redraw = (f"delete the folder {folder} and run the same command with --resume: the same set is drawn "
                  "again from the run's kept seed")
        held = read_json(manifest, fix=redraw)
        if not isinstance(held, dict):
            raise LudicaError(f"{manifest} is not a sampler manifest; {redraw}")
        same = (held.get("seed") == seed and held.get("accepted") == n
                and held.get("mode") == ("fresh" if base is None else "variants")
                and (base is None or held.get("family") == family)
                and (held.get("divergence") or {}).get("minimum") == min_divergence)
        if not same:
            # the seed itself is not said: it may be the run's secret
            raise LudicaError(f"{folder} holds another draw of unseen stages ({held.get('accepted')} {held.get('mode')}"
                              f"{'' if base is None else ', family ' + str(held.get('family'))}); resume with the "
                              "same options, or choose another --out")
        return from_folder(folder)
    from .. import sampler  # the sampler's screening compiles kernels: only when a set is drawn

    if folder.exists():  # the run's own folder, from a draw cut short before its manifest: drawn again whole
        shutil.rmtree(folder)

    if base is not None:
        drawn = sampler.variants(base, n, seed=seed, family=family, jobs=jobs, progress=progress,
                                 min_divergence=min_divergence)
    else:
        drawn = sampler.fresh(n, seed=seed, jobs=jobs, progress=progress)
    if len(drawn.accepted) < n:
        raise LudicaError(f"the sampler accepted {len(drawn.accepted)} of the {n} unseen stages asked for "
                          f"({drawn.stopped}); ask for fewer --variants (with --resume: this folder keeps its "
                          "seed), or choose another --out for another seed")
    sampler.write(drawn, folder, prefix="variant" if base is not None else "fresh")
    return from_folder(folder)
