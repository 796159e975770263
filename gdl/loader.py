"""Loading and checking stage files: parse, then the static checks, all diagnostics at once."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .ast import Stage
from .checks import check_stage
from .diagnostics import Diagnostic, StageError, StageFileError, sort
from .parser import MAX_CHARACTERS, parse_diagnostics


def analyse(text: str, path: str | Path | None = None) -> tuple[Stage | None, list[Diagnostic]]:
    """Parse and check stage text: the stage (None if it cannot be built) and every diagnostic."""
    parsed = parse_diagnostics(text, Path(path).stem if path is not None else "")
    problems = list(parsed.diagnostics)
    if parsed.stage is not None:
        problems += check_stage(parsed.stage, partial=parsed.failed)
    return parsed.stage, sort(problems)


def read_stage(path: str | Path) -> str:
    """The text of a stage file. A byte-order mark at the start (Windows editors write one) is not
    part of it. FileNotFoundError if it cannot be read, StageFileError for a folder or for bytes
    that are not UTF-8 (with the line and column of the first bad byte) or a file far too large to
    be a stage (never read)."""
    path = Path(path)
    if path.is_dir():
        raise StageFileError(f"{path} is a folder, not a stage file (its stages: {path}/*.gdl)")
    # not read at all beyond this size: a stage is at most MAX_CHARACTERS (of at most 4 bytes each)
    return read_utf8(path, "stage file", 4 * MAX_CHARACTERS, f"a stage file is at most {MAX_CHARACTERS:,} characters")


def read_utf8(path: Path, what: str, limit: int, why: str = "") -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes (a byte-order mark dropped);
    StageFileError naming the file, and the line and column of a byte that is not UTF-8. A FIFO,
    a device (/dev/zero) or a socket is refused before a byte is read: reading one may never end."""
    try:
        # without O_NONBLOCK, opening a FIFO waits for a writer, which may never come
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise FileNotFoundError(f"cannot read {what} {str(path)!r}: {err.strerror}") from None
    too_large = why or f"{what}s are at most {limit:,} bytes"
    with os.fdopen(descriptor, "rb") as f:
        held = os.fstat(descriptor)  # of what was opened, not of what the name meant a moment ago
        if not stat.S_ISREG(held.st_mode):
            raise StageFileError(f"{path} is {_file_kind(held.st_mode)}, not a regular file: a {what} is read whole "
                                 "from a regular file; give one")
        if held.st_size > limit:  # not read at all
            raise StageFileError(f"{path} is {held.st_size:,} bytes: {too_large}")
        try:
            data = f.read(limit + 1)  # never more than the bound, whatever the file grew to since
        except OSError as err:
            raise FileNotFoundError(f"cannot read {what} {str(path)!r}: {err.strerror}") from None
    if len(data) > limit:
        raise StageFileError(f"{path} grew past {limit:,} bytes as it was read: {too_large}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise StageFileError(f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[err.start]:02x}): {what}s are "
                             "UTF-8; save it as UTF-8") from None


def _file_kind(mode: int) -> str:
    """What a file that is not a regular one is, as a message says it."""
    kinds = ((stat.S_ISFIFO, "a FIFO (a named pipe)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
    return next((said for test, said in kinds if test(mode)), "not a regular file")


def check(source: str | Path | Stage) -> list[Diagnostic]:
    """Every diagnostic (errors and warnings) of a stage file, of stage text, or of an AST."""
    if isinstance(source, Stage):
        return sort(check_stage(source))
    if isinstance(source, Path):
        return analyse(read_stage(source), source)[1]
    return analyse(source)[1]


def load(path: str | Path) -> Stage:
    """Read, parse and check a stage file; raise StageError listing every error it has."""
    text = read_stage(path)
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
