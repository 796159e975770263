"""A run's folder (`--out`): when a command may use one, and holding it for the run.

ludica writes a run's files (results.sqlite, logs/, report.html, ...) under fixed names, so it
must never write them into a folder of the user's: a new run starts only in a folder that does not
exist yet or is empty (or holds only a game secret copied from another run, to play its games
again: runtime/seatseeds.py), and `--resume` continues only in a folder that holds a run. Both are
checked before any work (drawing stages, compiling kernels), together with whether the folder can
be written at all, and the folder is made only when the run starts: a refused command leaves
nothing behind. runtime.Run (run.py) opens and holds a run folder with these.
"""
from __future__ import annotations

from pathlib import Path

from ..files import check_writable
from ..gdl.diagnostics import LudicaError
from .records import ResultsStore
from .seatseeds import SECRET_FILE, kept

STORE = "results.sqlite"
# the files that mark a folder as a run's (or a drawn set's): its store, its game secret and draw seed
# (runtime/seatseeds.py, evaluation/drawseed.py), a sampler's manifest; no agent file may come from one
SECRET_MARKS = (STORE, "game-secret.json", "draw-seed.json", "manifest.json")
LOCK = ".lock"  # all a refused run may have left: it holds nothing of a run or of the user's


class RunFolderError(LudicaError, ValueError):
    """An --out that cannot hold the run asked for: said before any work."""


class RunMismatch(RunFolderError):
    """--resume on a folder that holds no run, a new run on one that does, or a resumed run
    started with other settings."""


def check_out(out: Path, *, resume: bool) -> None:
    """`out` can take this run: a new run needs a new or empty folder (a game secret alone may be
    there: the run plays the games of the run it was copied from), `resume` one that holds a run;
    either must be writable. Else RunFolderError (or StoreError for a store that is not ludica's),
    and nothing is touched."""
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"--out {out} is a file, not a folder")
    if resume:
        check_resumable(out)
    elif (out / STORE).exists():
        ResultsStore(out / STORE, read_only=True).close()  # another program's file is refused as such
        raise RunMismatch(f"{out} already holds a run: add --resume to continue it, or choose another --out")
    elif out.is_dir():
        theirs = sorted(p.name for p in out.iterdir() if p.name not in (LOCK, SECRET_FILE))
        if theirs:
            shown = ", ".join(theirs[:5]) + (f" and {len(theirs) - 5} more" if len(theirs) > 5 else "")
            raise RunFolderError(f"--out {out} holds files ludica did not write ({shown}); a run writes its files "
                                 "(results.sqlite, report.html, ...) only into a new or empty folder: give one")
    kept(out)  # a game secret there must be whole: said now, not once the run is under way
    check_writable(out, "--out")


def check_resumable(out: Path) -> None:
    """--resume needs a run to resume: a misspelt folder must not quietly start a new one."""
    if not (out / STORE).is_file():
        raise RunMismatch(f"--resume: {out} holds no run to resume"
                             + ("" if out.exists() else " (there is no such folder)")
                             + "; leave out --resume to start one")


def made(out: Path) -> Path:
    """The run folder: an existing folder as it is, or a new one made private (as ludica made it;
    no agent's jail holds it either)."""
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"--out {out} is a file, not a folder")
    if not out.exists():
        out.mkdir(parents=True)
        out.chmod(0o700)
    return out

