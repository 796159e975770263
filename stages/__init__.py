"""The bundled stages, as .gdl text files shipped with the package."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled() -> list[Path]:
    """Paths of every bundled stage file, sorted by name."""
    root = resources.files(__name__)
    return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith(".gdl"))


def path(name: str) -> Path:
    """The bundled stage file called `name` (with or without `.gdl`)."""
    stem = name[:-4] if name.endswith(".gdl") else name
    for p in bundled():
        if p.stem == stem:
            return p
    known = ", ".join(p.stem for p in bundled())
    raise FileNotFoundError(f"no bundled stage named {name!r}; bundled stages: {known}")
