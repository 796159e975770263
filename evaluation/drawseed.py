"""The seed an evaluation draws its unseen stages with.

The sampler is public and deterministic: whoever knows a draw's seed (and which version of ludica
drew it) draws the very same stages, an agent included (it imports ludica.sampler, draws the
candidates of likely seeds and matches them against the stage it is shown). So an evaluation
draws from a fresh secret seed of SEED_BITS bits, far too many to scan, unless the user names one
(`--draw-seed`). The seed is kept in the run folder, which no agent can reach, so that `--resume`
draws the same set again; it is revealed once the run is finished, every planned game played (in
the report and the terminal), so that the run stays reproducible. A run stopped early (a stopping
rule, Ctrl-C) may be resumed, so its seed stays secret until then (Summary.draw withholds it).
Game seeds never derive from it: they come from `--seed`.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..files import read_json, write_atomic
from ..gdl.diagnostics import LudicaError

SEED_FILE = "draw-seed.json"
SEED_BITS = 64
MANIFEST = Path("unseen") / "manifest.json"  # where a run folder holds its drawn set


@dataclass(frozen=True)
class DrawSeed:
    value: int
    secret: bool  # drawn by ludica for this run: nobody knew it before the run ended

    def as_json(self) -> str:
        return json.dumps({"seed": self.value, "secret": self.secret})


def choose(folder: Path, given: int | None) -> DrawSeed:
    """The draw's seed of the run in `folder`: the one kept there (a resumed run; a seed given now
    must be that one), else `given`, else a fresh secret one. A new seed is kept (owner-only)
    before anything is drawn with it."""
    held = kept(folder)
    if held is not None:
        if given is not None and given != held.value:
            raise LudicaError(f"--draw-seed {given}: the unseen stages of the run in {folder} are drawn with another "
                              f"seed (kept in {folder / SEED_FILE}); resume it without --draw-seed, or choose "
                              "another --out for a new draw")
        return held
    seed = DrawSeed(given, False) if given is not None else DrawSeed(secrets.randbits(SEED_BITS), True)
    write_atomic(folder / SEED_FILE, seed.as_json() + "\n", private=True)
    return seed


def kept(folder: Path) -> DrawSeed | None:
    """The seed kept in a run folder; a folder made before seeds were kept has its draw's manifest,
    whose seed was the run's --seed (given, so not secret)."""
    fix = f"move {folder} away and start the run again, or give another --out"
    if (folder / SEED_FILE).is_file():
        data = read_json(folder / SEED_FILE, fix=fix)
        try:
            return DrawSeed(int(data["seed"]), bool(data["secret"]))
        except (TypeError, KeyError, ValueError):
            raise LudicaError(f"{folder / SEED_FILE} does not hold a draw's seed; {fix}") from None
    if (folder / MANIFEST).is_file():
        manifest = read_json(folder / MANIFEST, fix=fix)
        seed = manifest.get("seed") if isinstance(manifest, dict) else None
        return DrawSeed(seed, False) if isinstance(seed, int) else None
    return None


def public_warning(seed: DrawSeed) -> str:
    return (f"the unseen stages are drawn with a seed that is not secret ({seed.value}): anyone who knows it and "
            "the version of ludica can draw the same stages again, an agent included. Leave out --draw-seed (in a "
            "new --out) to draw from a secret seed")


def revealed(draw: dict) -> str:
    """What a run's report says of its draw (`draw`: Summary.draw, whose seed is None while a secret
    one is withheld: the run is not finished)."""
    if draw["seed"] is None:
        return ("The unseen stages were drawn with a secret seed, kept from everyone until the run is finished (every "
                "planned game played: --resume goes on); it is revealed then")
    how = ("a secret seed, kept from everyone until the run ended" if draw["secret"] else
           "a seed given with the run, not secret")
    return (f"The unseen stages were drawn with seed {draw['seed']} ({how}); `ludica evaluate` with the same "
            f"options and --draw-seed {draw['seed']} draws the same stages again")
