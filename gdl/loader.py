"""Loading and checking stage files: parse, then the static checks, all diagnostics at once."""
from __future__ import annotations

from pathlib import Path

from .ast import Stage
from .checks import check_stage
from .diagnostics import Diagnostic, StageError, sort
from .parser import parse_diagnostics


def analyse(text: str, path: str | Path | None = None) -> tuple[Stage | None, list[Diagnostic]]:
    """Parse and check stage text: the stage (None if it cannot be built) and every diagnostic."""
    parsed = parse_diagnostics(text, Path(path).stem if path is not None else "")
    problems = list(parsed.diagnostics)
    if parsed.stage is not None:
        problems += check_stage(parsed.stage, partial=parsed.failed)
    return parsed.stage, sort(problems)


def check(source: str | Path | Stage) -> list[Diagnostic]:
    """Every diagnostic (errors and warnings) of a stage file, of stage text, or of an AST."""
    if isinstance(source, Stage):
        return sort(check_stage(source))
    if isinstance(source, Path):
        return analyse(source.read_text(encoding="utf-8"), source)[1]
    return analyse(source)[1]


def load(path: str | Path) -> Stage:
    """Read, parse and check a stage file; raise StageError listing every error it has."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise FileNotFoundError(f"cannot read stage file {str(path)!r}: {err.strerror}") from None
    stage, problems = analyse(text, path)
    if stage is None or any(d.is_error for d in problems):
        raise StageError(problems, text, str(path))
    return stage


def loads(text: str, path: str | Path | None = None) -> Stage:
    """Like `load`, for stage text already in memory."""
    stage, problems = analyse(text, path)
    if stage is None or any(d.is_error for d in problems):
        raise StageError(problems, text, None if path is None else str(path))
    return stage
