"""Files ludica writes and reads back: written whole or not at all, read with a message for one
that is not whole, and folders checked for writing before any work.

A manifest, a report or a kept seed written in place is cut short by a kill (or a full disk) in
the middle of the write, and the next command that reads it fails on half a file. Written here,
the text goes to a temporary file beside the target, is flushed to the disk, and is then renamed
over the target: a reader sees the old file or the new one, never a part of one.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path

from .gdl.diagnostics import LudicaError


def write_atomic(path: Path, text: str, *, private: bool = False) -> Path:
    """Write `text` (UTF-8) to `path` whole or not at all; `private`: readable by its owner only
    (0600), else as the umask says. Returns the path."""
    path = Path(path)
    # beside the target: a rename within one file system is atomic, across two it is a copy
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o666)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)  # the rename itself reaches the disk
    return path


def slug(text: str, *, empty: str = "x") -> str:
    """A file name's part made of `text`: its runs of characters other than ASCII letters and digits
    as one `-`, in lower case; `empty` if nothing is left."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or empty


def bounded_json(text: str, *, max_chars: int, max_depth: int):
    """The value of JSON `text` of at most `max_chars` characters nested at most `max_depth` levels
    deep; ValueError saying which bound it passes, or why it is not JSON. json.loads recurses once a
    level: nested past Python's recursion limit it raises RecursionError (caught here, and said as
    the bound); within it, the parsed value's depth is measured, without recursion. NaN and
    Infinity are read as Python reads them: the reader checks its numbers."""
    if len(text) > max_chars:
        raise ValueError(f"JSON of at most {max_chars:,} characters (it has {len(text):,})")
    too_deep = f"JSON nested at most {max_depth} levels deep"
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(too_deep) from None
    except ValueError as err:  # JSONDecodeError; an integer of more digits than Python converts
        raise ValueError(f"JSON ({err})") from None
    level = [(value, 0)]
    while level:
        held, depth = level.pop()
        if isinstance(held, (list, dict)):
            if depth >= max_depth:
                raise ValueError(too_deep)
            level.extend((item, depth + 1) for item in (held.values() if isinstance(held, dict) else held))
    return value


MAX_JSON_BYTES = 64_000_000  # a manifest of 10,000 sampled stages is about 15 MB
MAX_JSON_DEPTH = 32  # ludica's files nest 5 levels at most


def read_json(path: Path, *, fix: str):
    """The JSON data in `path` (a regular file of at most MAX_JSON_BYTES, nested at most
    MAX_JSON_DEPTH levels deep); a file that is cut short, is not JSON or passes a bound is a
    LudicaError that names it and says `fix` (how to get on), not a traceback."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise LudicaError(f"{path} is not a regular file; {fix}")
        if size > MAX_JSON_BYTES:
            raise LudicaError(f"{path} is {size:,} bytes: ludica's JSON files are at most {MAX_JSON_BYTES:,}; {fix}")
        text = path.read_text(encoding="utf-8")
        return bounded_json(text, max_chars=MAX_JSON_BYTES, max_depth=MAX_JSON_DEPTH)
    except OSError as err:
        raise LudicaError(f"{path} cannot be read ({err.strerror}); {fix}") from None
    except UnicodeDecodeError as err:
        raise LudicaError(f"{path} is not UTF-8 text (byte {err.start}); {fix}") from None
    except ValueError as err:  # not JSON, or past a bound
        raise LudicaError(f"{path} is cut short or is not {err}; {fix}") from None


def check_writable(folder: Path, option: str = "--out") -> None:
    """Refuse, before any work, a folder this process cannot write into (or, if it does not exist
    yet, make): said with its path, not as an OSError after minutes of drawing or compiling."""
    why = unwritable(folder)
    if why:
        raise LudicaError(f"{option} {folder}: {why}; give a folder you can write to")


def unwritable(folder: Path) -> str:
    """Why this process cannot write into `folder` (or make it: its nearest existing parent must
    take it), as "PATH is ..."; "" if it can."""
    existing = Path(folder)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if os.access(existing, os.W_OK | os.X_OK):
        return ""
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        return f"{existing} is on a read-only file system"
    return f"{existing} is not writable by you"


def sync_folder(folder: Path) -> None:
    """The folder's entries (a rename into it) on the disk, not only in the page cache."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
