"""Entrants by name or by file: the built-ins are plain agent files in runtime/agents/, written
against the public contract like any submission.

An agent's name (in logs and leaderboards) is its file name without `.py`, unless the file sets
`NAME = "..."` at its top level; the name is read from the file's syntax tree, never by running it
(the referee does not run agent code). `human` is a person (runtime/human.py): no file, never
sandboxed, their moves from a move source.
"""
from __future__ import annotations

import ast
import difflib
import hashlib
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..gdl.diagnostics import LudicaError
from .human import HUMAN, MoveSource

BUILTIN_DIR = Path(__file__).parent / "agents"
BUILTINS = ("random", "greedy", "corners", "positional", "mcts", "adaptive")


@dataclass(frozen=True)
class AgentSpec:
    name: str
    path: Path | None  # None: a person (`human`), who has no file
    data: Path | None = None  # a folder the user named for it: read-only at /agent/data in its jail
    # a person's moves: where they come from (None: the terminal); not part of who the entrant is
    source: MoveSource | None = field(default=None, compare=False, repr=False)

    @property
    def builtin(self) -> bool:
        return self.path is not None and self.path.parent == BUILTIN_DIR

    @property
    def human(self) -> bool:
        return self.path is None

    @property
    def fingerprint(self) -> str:
        """What a resumed run checks is unchanged: the agent file's sha256 (a person: `human`)."""
        return HUMAN if self.path is None else hashlib.sha256(self.path.read_bytes()).hexdigest()


def seated(black: AgentSpec, white: AgentSpec) -> tuple[AgentSpec, AgentSpec]:
    """The two seats of one game; one entrant in both (an agent against itself, two people) is
    told apart as NAME-1 and NAME-2, since a game's results are kept by name."""
    if black.name != white.name:
        return black, white
    return replace(black, name=f"{black.name}-1"), replace(white, name=f"{white.name}-2")


class AgentNotFound(LudicaError, ValueError):
    """An agent argument that names neither a built-in nor an agent file."""


class AgentFileError(LudicaError, ValueError):
    """An agent file that does not compile: said before a run starts, with its line."""


def check_compiles(spec: AgentSpec) -> AgentSpec:
    """The agent file compiles (it is not run): a syntax error is said now, with the file and line,
    not as an agent that lost every game."""
    if spec.path is None:
        return spec  # a person: nothing to compile
    source = spec.path.read_text(encoding="utf-8", errors="replace")
    try:
        compile(source, str(spec.path), "exec")
    except SyntaxError as err:
        raise AgentFileError(f"agent {spec.name}: {spec.path}:{err.lineno}: {err.msg}; fix the file, or leave it "
                             "out") from None
    except ValueError as err:  # e.g. a NUL byte in the file
        raise AgentFileError(f"agent {spec.name}: {spec.path}: {err}; fix the file, or leave it out") from None
    return spec


def declared_name(source: str) -> str | None:
    """The string a top-level `NAME = "..."` assigns, if the file has one."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # the worker reports the error when it loads the file
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "NAME" and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str) and node.value.value.strip()):
            return node.value.value.strip()[:60]
    return None


def unfit_character(name: str) -> str | None:
    """The first character of `name` that is not visible text (a control character such as ESC or
    a newline, or a format character such as a right-to-left override or a zero-width space), as
    it would be written in Python; None if there is none."""
    for c in name:
        if unicodedata.category(c) in ("Cc", "Cf"):
            return repr(c)[1:-1]
    return None


def resolve(spec: str) -> AgentSpec:
    """A built-in name (`random`, `mcts`…), `human` (a person), or a path to an agent file."""
    if spec == HUMAN:
        return AgentSpec(HUMAN, None)
    if spec in BUILTINS:
        path = BUILTIN_DIR / f"{spec}.py"
    else:
        path = Path(spec).expanduser()
        if not path.is_file():
            what = "a folder, not an agent file" if path.is_dir() else "no such file"
            near = difflib.get_close_matches(spec, BUILTINS + (HUMAN,), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise AgentNotFound(f"no agent {spec!r}: not a built-in ({', '.join(BUILTINS)}), not {HUMAN} (a person) "
                                f"and {what}{hint}")
    path = path.resolve()
    source = path.read_text(encoding="utf-8", errors="replace")
    name = declared_name(source) or path.stem
    bad = unfit_character(name)
    if bad is not None:
        raise AgentFileError(f"agent file {path}: its NAME {name!r} holds {bad}: a name is one line of visible text "
                             "(it is shown in terminals, logs and reports); fix NAME")
    return AgentSpec(name, path)


def builtins() -> list[AgentSpec]:
    return [resolve(name) for name in BUILTINS if (BUILTIN_DIR / f"{name}.py").is_file()]
