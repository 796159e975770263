"""What no agent may see of a run, and the checks that keep it so, made before anything is played.

A run's secrets are its folder (the store, the secret draw and game seeds, the unseen stages drawn
into it), the folder of unseen stages it was given (`--unseen DIR`: their text, and a manifest
whose seed draws them again) and every stage file it plays that is not bundled with ludica. No
agent is given one of them: not as its file or one of its program's files, and not through a data
folder that holds one or lies in one. And the sandbox shows no folder that holds one of them, nor
the working folder or the home (`jail.check_apart`): a Python installation that cannot be kept
apart from them is refused, with what to do.

    secrets = guarded.of_run(out, stage_files=[...], unseen_folders=[...])
    guarded.check_agents(agents, secrets)    # RunFolderError naming the agent, the secret and the fix
    guarded.check_jail(secrets)              # jail.SandboxUnavailable naming the folder and the fix
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..stages import bundled
from . import jail
from .entrants import AgentSpec
from .runfolder import RunFolderError


@dataclass(frozen=True)
class Secret:
    """A file or folder no agent may see; `what` names it in messages."""

    path: Path
    what: str
    folder: bool

    @property
    def real(self) -> Path:
        return self.path.resolve()

    def holds(self, path: Path) -> bool:
        """Whether `path` is this secret or lies in it."""
        real = path.resolve()
        return real == self.real or (self.folder and real.is_relative_to(self.real))

    @property
    def said(self) -> str:
        return f"{self.what} {self.path}"


def of_run(folder: Path, stage_files: Iterable[str | Path] = (), unseen_folders: Iterable[str | Path] = ()
           ) -> tuple[Secret, ...]:
    """The secrets of the run in `folder` that plays `stage_files` (a bundled stage is public and
    left out) with the unseen stages of `unseen_folders`."""
    public = {p.resolve() for p in bundled()}
    found = [Secret(Path(folder), "the run folder", True)]
    found += [Secret(Path(f), "the unseen stages' folder", True) for f in unseen_folders]
    found += [Secret(Path(f), "the stage file", False) for f in stage_files if Path(f).resolve() not in public]
    kept: dict[Path, Secret] = {}
    for secret in found:
        kept.setdefault(secret.real, secret)
    return tuple(kept.values())


def check_agents(agents: Sequence[AgentSpec], secrets: Sequence[Secret]) -> None:
    """No agent is given a secret of the run: as its file or one of its program's files, or
    through a data folder that holds one or lies in one. Said before anything is played, with what
    to change."""
    for spec in agents:
        for path in (Path(p) for p in (spec.path, *(f for f, _ in spec.files)) if p is not None):
            for secret in secrets:
                if secret.holds(path):
                    where = "is" if path.resolve() == secret.real else "is in"
                    raise RunFolderError(f"agent {spec.name}: its file {path} {where} {secret.said}, which no agent "
                                         "may see (a run's store and seeds, unseen stages, stage files); move the "
                                         "file out of it")
        if spec.data is not None:
            data = Path(spec.data).resolve()
            for secret in secrets:
                if secret.real.is_relative_to(data) or secret.holds(data):
                    how = "is" if data == secret.real else "holds" if secret.real.is_relative_to(data) else "is in"
                    raise RunFolderError(f"agent {spec.name}: its data folder {spec.data} {how} {secret.said}, which "
                                         "no agent may see: give it a data folder apart from the run's secrets, or "
                                         "put them elsewhere")


def check_jail(secrets: Sequence[Secret]) -> None:
    """The folders every agent's sandbox shows (the Python installation's) hold no secret of the
    run, nor the working folder or the home."""
    guarded = [(s.path, s.said) for s in secrets]
    guarded += [(Path.cwd(), "the working folder"), (Path.home(), "the home folder")]
    jail.check_apart(guarded)
