"""Entrants by name or by file: the built-ins are plain agent files in runtime/agents/, written
against the public contract like any submission.

The kinds of entrant (`AgentSpec.kind`):
- `python`: a `.py` agent file (`analyze(stage, api, clock)`), run by its sandboxed worker;
- `program`: a command in any language speaking the line protocol (docs/protocol.md; runtime/
  program.py), given as an agent file `NAME.agent` (TOML: `command`, and optionally `name` and
  `files`) or on the command line (`--agent-cmd "node bot.js"`); its files are copied into its jail;
- `arena`: a `.js` file holding an Othello AI Arena intelligent system (`analyzeStage`), run under
  node by ludica's adapter (runtime/external/arena.js), a program like the others;
- `model`: a language model behind an OpenAI-compatible endpoint, described by a `NAME.model` file
  (runtime/models): its harness runs on the referee's side (the model is remote), its clock is
  wall time;
- `human`: a person (runtime/human.py): no file, never sandboxed, their moves from a move source.

An agent's name (in logs and leaderboards) is its file name without its suffix, unless the file
sets one: `NAME = "..."` at a Python file's top level, `name = "..."` in an agent file, `const
NAME = "..."` at the start of a line of a `.js` file. A name is read from the file, never by running
it (the referee does not run agent code).
"""
from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..gdl.diagnostics import LudicaError
from .human import HUMAN, MoveSource
from .runfolder import SECRET_MARKS

BUILTIN_DIR = Path(__file__).parent / "agents"
BUILTINS = ("random", "greedy", "corners", "positional", "mcts", "adaptive")
# Built-ins for hidden information, in the field only where a stage hides it (named, anywhere)
HIDDEN_BUILTINS = ("determinised",)


KINDS = ("python", "program", "arena", "model", HUMAN)
ARENA_ADAPTER = Path(__file__).parent / "external" / "arena.js"
MODEL_PREFIX = "model:"  # a language model's fingerprint starts so
# Where a program's interpreter may live: the jail shows the system's /usr (and the /bin, /lib links)
SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/")
# The referee reads an agent's file before any sandbox (its name, a syntax check: Python's parser
# takes ~190 times a source's size in memory, 1.4 GB for 7.5 MB), so the file is bounded; an
# agent's data (tables, books, weights) go in its data folder (--agent-data), which is never read.
MAX_AGENT_BYTES = 1_000_000
# A program's files are hashed (streamed) and copied into its jail: bounded together, and in number.
MAX_PROGRAM_BYTES = 256_000_000
MAX_PROGRAM_FILES = 1_000


@dataclass(frozen=True)
class AgentSpec:
    """Who an entrant is and how it is run. `path`: its file (a Python agent's, an Arena system's
    `.js`, a program's agent file; None for a person, or a program given as `--agent-cmd`)."""

    name: str
    path: Path | None
    data: Path | None = None  # a folder the user named for it: read-only at /agent/data in its jail
    # a person's moves: where they come from (None: the terminal); not part of who the entrant is
    source: MoveSource | None = field(default=None, compare=False, repr=False)
    kind: str = "python"
    command: tuple[str, ...] = ()  # a program's command, as run in /agent in its jail
    files: tuple[tuple[Path, bool], ...] = ()  # a program's files, copied to /agent: (host path, executable)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"agent kind {self.kind!r}: the kinds are {', '.join(KINDS)}")
        if self.kind == "python" and self.path is None:  # no file to run: a person (AgentSpec(HUMAN, None))
            object.__setattr__(self, "kind", HUMAN)

    @property
    def builtin(self) -> bool:
        return self.kind == "python" and self.path is not None and self.path.parent == BUILTIN_DIR

    @property
    def human(self) -> bool:
        return self.kind == HUMAN

    @property
    def program(self) -> bool:
        """Run as a program over the line protocol (an agent program, or an Arena system)."""
        return self.kind in ("program", "arena")

    @property
    def wall_clock(self) -> bool:
        """Whether its clock is wall time (a person's, a language model's), not CPU time."""
        return self.kind in (HUMAN, "model")

    @property
    def fingerprint(self) -> str:
        """What a resumed run checks is unchanged: the agent file's sha256 (a person: `human`); a
        program's: the sha256 of its command and of each of its files by name (no host path, so a
        moved folder still resumes); a language model's: `model:` and its .model file's sha256 (the
        report tells its wall clock by it)."""
        if self.kind == HUMAN:
            return HUMAN
        if self.kind == "model":
            assert self.path is not None
            return MODEL_PREFIX + _sha256(self.path)
        if self.kind == "program":
            held = {"kind": self.kind, "command": list(self.command),
                    "files": {p.name: _sha256(p) for p, _ in self.files}}
            return hashlib.sha256(json.dumps(held, sort_keys=True).encode()).hexdigest()
        assert self.path is not None
        return _sha256(self.path)


def _sha256(path: Path) -> str:
    """A file's sha256, read in blocks (a program's file may be large)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read_agent_file(path: Path, what: str = "agent file", errors: str = "replace") -> str:
    """The text of an agent's own file (a Python agent, an Arena system, an agent or .model file),
    at most MAX_AGENT_BYTES: refused, saying the bound and where data go, before it is read."""
    size = path.stat().st_size
    if size > MAX_AGENT_BYTES:
        raise AgentFileError(f"{what} {path} is {size:,} bytes: an agent's file is at most {MAX_AGENT_BYTES:,} bytes "
                             "(ludica reads it before any sandbox); put its data (tables, books, weights) in a "
                             "folder given with --agent-data AGENT=DIR, read at /agent/data")
    return path.read_text(encoding="utf-8", errors=errors)


def _check_program_files(copied: dict[str, tuple[Path, bool]], where: str) -> None:
    """A program's files are at most MAX_PROGRAM_FILES, of MAX_PROGRAM_BYTES together."""
    if len(copied) > MAX_PROGRAM_FILES:
        raise AgentFileError(f"{where}: {len(copied):,} files: an agent program has at most {MAX_PROGRAM_FILES:,}; "
                             "pack them into fewer (an archive it unpacks), or give a data folder (--agent-data)")
    total = sum(path.stat().st_size for path, _ in copied.values())
    if total > MAX_PROGRAM_BYTES:
        raise AgentFileError(f"{where}: its files are {total:,} bytes together: an agent program's files are at most "
                             f"{MAX_PROGRAM_BYTES:,} bytes (each is copied into its sandbox); put its data in a folder "
                             "given with --agent-data AGENT=DIR, read at /agent/data")


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
    not as an agent that lost every game. An Arena system is parsed by `node --check`."""
    if spec.kind == "arena":
        return _check_javascript(spec)
    if spec.path is None or spec.kind != "python":
        return spec  # a person, a program: nothing ludica could compile
    source = read_agent_file(spec.path, f"agent {spec.name}:")
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


def _check_javascript(spec: AgentSpec) -> AgentSpec:
    assert spec.path is not None
    try:
        done = subprocess.run(["node", "--check", str(spec.path)], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise AgentFileError(f"agent {spec.name}: {spec.path}: could not check it with node ({e})") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        said = " / ".join(lines[:4])[:400]
        raise AgentFileError(f"agent {spec.name}: {spec.path} does not parse as JavaScript: {said}; fix the file, or "
                             "leave it out") from None
    return spec


def javascript_name(source: str) -> str | None:
    """The string a top-level `const|let|var NAME = "..."` (or `window.NAME = ...`) assigns."""
    found = re.search(r"""^(?:(?:const|let|var)\s+|window\.)NAME\s*=\s*(["'])([^"'\n]{1,200})\1""", source, re.M)
    return found.group(2).strip()[:60] or None if found else None


def _interpreter(command: tuple[str, ...], copied: set[str], where: str) -> None:
    """The command's program is one of its copied files or the system's (under /usr: the jail
    shows nothing else of the machine); else a clear error now, not a crash in the jail."""
    first = command[0]
    if first.startswith("./") and first[2:] in copied:
        return
    if "/" in first and not first.startswith("/"):
        files = ", ".join(sorted(copied)) or "none"
        raise AgentFileError(f"{where}: the command {first!r} is not one of the agent's files ({files}): build it "
                             "first if it is a compiled program, and name a file of the agent as ./NAME")
    found = first if first.startswith("/") else shutil.which(first, path="/usr/local/bin:/usr/bin:/bin")
    if found is None:
        elsewhere = shutil.which(first)
        hint = (f"; {first} is at {elsewhere}, which the sandbox does not show: install it under /usr (e.g. Debian's "
                "package) so agents can run it" if elsewhere else f"; install {first} under /usr")
        raise AgentFileError(f"{where}: no program {first!r} on the sandbox's PATH (/usr/local/bin:/usr/bin:/bin)"
                             + hint)
    real = os.path.realpath(found)
    if not real.startswith(SYSTEM_PREFIXES):
        raise AgentFileError(f"{where}: {first} is {real}, outside /usr, which the sandbox does not show; install it "
                             "under /usr, or copy it in as one of the agent's files")


def _own_file(item: str, base: Path, home: Path | None, where: str) -> Path:
    """The agent's file `item`, resolved: a file, inside the agent's folder `home` (None: anywhere)
    with symbolic links followed. Anything else is refused: what is copied into the sandbox is what
    the agent may see, and an agent file may not name the machine's files (/etc/shadow,
    /proc/self/environ, another run's store) for the referee to copy in for it."""
    path = (base / item).resolve()
    if home is not None and not path.is_relative_to(home):
        raise AgentFileError(f"{where}: the agent's file {item!r} is {path}, outside its folder {home}: an agent's "
                             "files are copied from its own folder only; copy the file there")
    run = next((d for d in path.parents if d.is_relative_to(home) and any((d / m).exists() for m in SECRET_MARKS)),
               None) if home else None
    if run is not None:  # an earlier run (or a drawn set) kept beside the agent: its store, seeds and stages
        raise AgentFileError(f"{where}: the agent's file {item!r} is in {run}, a run folder of ludica's or a drawn "
                             "set of stages, whose store, seeds and unseen stages are no agent's; keep runs and "
                             "drawn sets out of the agent's folder")
    if path.name.startswith(".env"):  # where projects keep their keys (dotenv): an evaluator's, if it is beside
        raise AgentFileError(f"{where}: the agent's file {item!r} is named as an environment's secrets (.env), which "
                             "are no agent's; rename it if it is the agent's own")
    if not path.is_file():
        raise AgentFileError(f"{where}: the agent's file {item!r} is not a file (looked for {path})")
    return path


def _names_own_file(word: str, base: Path, home: Path | None, where: str) -> bool:
    """Whether the command's word names one of the agent's files, to copy in: a file in its folder.
    A system file (/usr/bin/node) is the sandbox's own and is not copied; a word naming any other
    file of the machine is refused, as a file outside the folder is (`_own_file`)."""
    if not (base / word).is_file():
        return False
    if os.path.isabs(word) and os.path.realpath(word).startswith(SYSTEM_PREFIXES):
        return False
    _own_file(word, base, home, where)
    return True


def program(command: list[str] | tuple[str, ...], base: Path, name: str | None = None, files: list[str] | None = None,
            where: str = "--agent-cmd", confined: bool = False) -> AgentSpec:
    """An agent program: `command` run in /agent, with `files` (paths relative to `base`; by default
    the command's words that name files there) copied in under their names. A file that is
    executable on the host is copied executable; the command's words that name a file are
    written as that file's name in /agent (`./bot` for the program itself). `confined`: its files
    must lie in `base`, as an agent file's must (its author, not the user running it, wrote the
    names); not for a command the user typed (--agent-cmd), whose words may name any file."""
    if not command or not all(isinstance(w, str) and w for w in command):
        raise AgentFileError(f"{where}: a command is a list of words, its program first (e.g. [\"node\", \"bot.js\"])")
    home = base.resolve() if confined else None
    if home is not None and home in (Path("/"), Path.home().resolve()):
        raise AgentFileError(f"{where}: the agent's folder is {home}, and an agent file may name any file of its "
                             "folder to be copied into its sandbox: put the agent in a folder of its own")
    named = files if files is not None else [w for w in command if _names_own_file(w, base, home, where)]
    copied: dict[str, tuple[Path, bool]] = {}
    for item in named:
        path = _own_file(item, base, home, where)
        if path.name in copied:
            raise AgentFileError(f"{where}: two files named {path.name!r}: files are copied into one folder, /agent")
        copied[path.name] = (path, os.access(path, os.X_OK))
    _check_program_files(copied, where)
    words = []
    for i, w in enumerate(command):
        path = (base / w).resolve()
        if path.name in copied and copied[path.name][0] == path and (base / w).is_file():
            w = f"./{path.name}" if i == 0 else path.name
        words.append(w)
    _interpreter(tuple(words), set(copied), where)
    if words[0].startswith("./") and not copied[words[0][2:]][1]:
        raise AgentFileError(f"{where}: {copied[words[0][2:]][0]} is not executable; chmod +x it, or name its "
                             "interpreter first")
    label = name or next((p.stem for p, _ in copied.values()), None) or Path(words[0]).name
    bad = unfit_character(label)
    if bad is not None:
        raise AgentFileError(f"{where}: the name {label!r} holds {bad}: a name is one line of visible text")
    return AgentSpec(label[:60], None, kind="program", command=tuple(words), files=tuple(copied.values()))


def agent_file(path: Path) -> AgentSpec:
    """An agent program described by an agent file (TOML): `command` (its words, run in /agent),
    `name` (default: the file's stem), `files` (default: the command's words that name files beside
    the agent file)."""
    try:
        held = tomllib.loads(read_agent_file(path, errors="strict"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise AgentFileError(f"agent file {path}: not TOML ({e}); write e.g. command = [\"node\", \"bot.js\"]") from None
    unknown = sorted(set(held) - {"command", "name", "files"})
    if unknown:
        raise AgentFileError(f"agent file {path}: unknown key {unknown[0]!r}; the keys are command, name and files")
    command = held.get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    if not isinstance(command, list):
        raise AgentFileError(f"agent file {path}: no command; write e.g. command = [\"node\", \"bot.js\"]")
    name, files = held.get("name", path.stem), held.get("files")
    if not isinstance(name, str) or not name.strip():
        raise AgentFileError(f"agent file {path}: name is a string of visible text")
    if files is not None and not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
        raise AgentFileError(f"agent file {path}: files is a list of file names, e.g. files = [\"bot.js\", \"book.txt\"]")
    return replace(program(command, path.parent, name.strip(), files, where=f"agent file {path}", confined=True), path=path)


def arena_system(path: Path) -> AgentSpec:
    """An Othello AI Arena intelligent system (`analyzeStage`), run by ludica's adapter under node."""
    source = read_agent_file(path, "Arena system")
    name = javascript_name(source) or path.stem
    spec = program(["node", path.name], path.parent, name, [path.name], where=f"Arena system {path}", confined=True)
    return replace(spec, path=path, kind="arena", command=("node", str(ARENA_ADAPTER), path.name))


def language_model(path: Path) -> AgentSpec:
    """A language model described by a `.model` file (runtime/models/config.py), read and checked now."""
    try:
        from .models import load_config
    except ImportError as e:  # the `openai` client is an optional extra
        raise AgentFileError(f"{path}: a language-model agent needs the openai client ({e}); install it with "
                             "pip install 'ludica[models]'") from None
    config = load_config(path)
    bad = unfit_character(config.name)
    if bad is not None:
        raise AgentFileError(f"{path}: its name {config.name!r} holds {bad}: a name is one line of visible text")
    return AgentSpec(config.name[:60], path, kind="model")


def resolve(spec: str) -> AgentSpec:
    """A built-in name (`random`, `mcts`…), `human` (a person), or a path to an agent file: a
    Python file, an agent program's `.agent` file, an Arena system's `.js` file or a language
    model's `.model` file."""
    if spec == HUMAN:
        return AgentSpec(HUMAN, None, kind=HUMAN)
    if spec in BUILTINS or spec in HIDDEN_BUILTINS:
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
    if path.suffix == ".agent":
        return agent_file(path)
    if path.suffix == ".model":
        read_agent_file(path, "model file")  # its size, before runtime/models reads it
        return language_model(path)
    if path.suffix in (".js", ".mjs", ".cjs"):
        return arena_system(path)
    source = read_agent_file(path)
    name = declared_name(source) or path.stem
    bad = unfit_character(name)
    if bad is not None:
        raise AgentFileError(f"agent file {path}: its NAME {name!r} holds {bad}: a name is one line of visible text "
                             "(it is shown in terminals, logs and reports); fix NAME")
    return AgentSpec(name, path)


def builtins(hidden: bool = False) -> list[AgentSpec]:
    """The built-in agents of a field: those for hidden information too where a stage hides it."""
    names = BUILTINS + (HIDDEN_BUILTINS if hidden else ())
    return [resolve(name) for name in names if (BUILTIN_DIR / f"{name}.py").is_file()]
