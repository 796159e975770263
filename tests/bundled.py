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


def dark_text(name: str, refused: str = "retry", announce: tuple[str, ...] = ()) -> str:
    """A bundled hidden stage's text with its refusal set to `refused` (retry or lose-turn) and the
    announcement lines `announce` added: the variants the tests of hidden information play."""
    text = ALL[name].read_text(encoding="utf-8")
    assert "refused retry\n" in text and name in HIDDEN
    return text.replace("refused retry\n", f"refused {refused}\n") + "".join(f"announce {a}\n" for a in announce)
