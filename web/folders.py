"""What `ludica serve DIR...` was given: each folder is a run folder (it holds a results store) or a
folder of stages (.gdl files; a sampled set has its manifest.json beside them). The bundled stages
are always served, as the first stage set."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..gdl.diagnostics import LudicaError
from ..runtime.runfolder import STORE

__all__ = ["Folders", "sort_folders"]


@dataclass(frozen=True)
class Folders:
    stage_sets: tuple[Path, ...]  # folders of .gdl files, in the order given
    runs: tuple[Path, ...]  # run folders, in the order given


def sort_folders(paths: list[Path]) -> Folders:
    """Each folder as a run folder or a stage folder; a path that is neither is refused, naming it
    and what it should hold."""
    stage_sets, runs = [], []
    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise LudicaError(f"{path} is not a folder: give run folders (of `ludica tournament` or "
                              "`ludica evaluate`) or folders of .gdl stages")
        if (path / STORE).is_file():
            runs.append(path)
        elif any(path.glob("*.gdl")):
            stage_sets.append(path)
        else:
            raise LudicaError(f"{path} holds neither {STORE} (a run folder) nor .gdl files (a stage folder)")
    return Folders(tuple(stage_sets), tuple(runs))
