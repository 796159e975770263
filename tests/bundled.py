"""The bundled stages, split by information: the perfect-information ones (the compiled kernels'
differential and golden tests hold them) and those with hidden information (played as tries)."""
from __future__ import annotations

from pathlib import Path

from ludica import gdl, stages


def _hidden(path: Path) -> bool:
    return gdl.load(path).hidden is not None


ALL = {p.stem: p for p in stages.bundled()}
PERFECT = {name: p for name, p in ALL.items() if not _hidden(p)}
HIDDEN = {name: p for name, p in ALL.items() if _hidden(p)}
