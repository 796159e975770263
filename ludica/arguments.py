"""What the command line's arguments name: stage files (paths, bundled names, folders), agents
(built-ins or files, compiled before any run), the options of a run, and argparse's types for
counts and seconds, and the options several commands share. Shared by every command (ludica/commands/)."""
from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

from ludica import stages as bundled


def stage_path(arg: str) -> Path:
    """The stage file a STAGE argument names: a path to a .gdl file, or a bundled stage's name."""
    path = Path(arg)
    if path.exists():
        return path
    if path.suffix == ".gdl" or "/" in arg:
        raise FileNotFoundError(f"no such stage file: {arg}")
    return bundled.path(arg)

def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)

def stage_files(args: list[str]) -> list[Path]:
    """The stage files that `check` arguments name: files, bundled stages' names, and folders (the
    .gdl files in them)."""
    paths: list[Path] = []
    for arg in args:
        path = stage_path(arg)
        if path.is_dir():
            found = sorted(path.glob("*.gdl"))
            if not found:
                raise FileNotFoundError(f"no .gdl file in the folder {arg}")
            paths += found
        else:
            paths.append(path)
    return paths

def run_options(args):
    from ludica.runtime.endpoints import allowed
    from ludica.runtime.plans import Options
    # None: Options' default
    more = {key: value for key, value in (("human_time", args.human_time), ("model_time", args.model_time),
                                          ("model_analysis_time", args.model_analysis_time),
                                          ("model_rules", args.rules)) if value is not None}
    return Options(games=args.games, analysis_time=args.analysis_time, game_time=args.game_time, seed=args.seed,
                   reveal=args.reveal, limits={"memory_mb": args.memory_mb}, sandbox=not args.in_process,
                   isolate_rules=args.isolate_rules, endpoints=allowed(args.endpoint, args.endpoint_key, args.endpoint_param), **more)

def chosen_agents(specs: list[str], with_builtins: bool, data: Sequence[str] = (), commands: Sequence[str] = (),
                  hidden: bool = False):
    """The agents the arguments name (and the agent programs `--agent-cmd` gives), each with the
    data folder `--agent-data AGENT=DIR` gives it; the built-ins too (`with_builtins`: those for
    hidden information as well where a stage hides it, `hidden`)."""
    import shlex
    from dataclasses import replace

    from ludica import gdl
    from ludica.runtime import entrants as agents
    chosen = [agents.check_compiles(agents.resolve(s)) for s in specs]  # a syntax error is said before the run
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError as e:
            raise gdl.LudicaError(f"--agent-cmd {command!r}: {e}; quote it as a shell would") from None
        chosen.append(agents.program(words, Path.cwd(), where=f"--agent-cmd {command!r}"))
    if with_builtins:
        chosen += [b for b in agents.builtins(hidden) if b.path not in {c.path for c in chosen}]
    folders = {}
    for item in data:
        agent, sep, folder = item.partition("=")
        if not sep or not agent or not folder:
            raise gdl.LudicaError(f"--agent-data {item!r}: give AGENT=DIR (an agent's file, built-in name or NAME, "
                                  "and a folder)")
        if not Path(folder).is_dir():
            raise gdl.LudicaError(f"--agent-data {item!r}: {folder} is not a folder")
        folders[agent] = Path(folder).resolve()
    given = dict(zip(specs, chosen))
    for agent, path in folders.items():
        match = [c for c in chosen if agent in (c.name, str(c.path))
                 or (agent in given and given[agent] is c) or Path(agent).resolve() == c.path]
        if not match:
            raise gdl.LudicaError(f"--agent-data {agent}={path}: no agent {agent!r} in this run (the agents: "
                                  f"{', '.join(c.name for c in chosen)})")
        chosen = [replace(c, data=path) if c in match else c for c in chosen]
    return chosen

def agent_command_option(p) -> None:
    p.add_argument("--agent-cmd", action="append", default=[], metavar="COMMAND",
                   help="an agent program in any language, speaking the line protocol (docs/protocol.md), e.g. "
                        "\"node bot.js\" or ./bot: its words that name files here are copied into its sandbox; "
                        "repeat for more (an agent file NAME.agent says the same with a name)")


# How much work an option may ask for. Past these a run would take weeks or exhaust the machine's
# memory before it began (`--qualify 1000000000` grew to 22 GB planning its games and set off the
# OOM killer), so argparse refuses them, naming the bound.
MAX_GAMES = 1_000  # games per seating and stage: --games, --qualify, --reference-games
MAX_STAGES = 10_000  # stages drawn: sample -n, evaluate --variants, --max-stages
MAX_CANDIDATES = 10_000_000  # candidates the sampler judges: --max-candidates
MAX_RESAMPLES = 100_000  # bootstrap resamples: --resamples
MAX_JOBS = 256  # processes or stages side by side: --jobs
MAX_MEMORY_MB = 1_048_576  # an agent's address space: --memory-mb (a terabyte)
MAX_SECONDS = 7 * 86_400  # any time option: a week


def count(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def count_up_to(limit: int, what: str):
    """argparse type: an integer from 1 to `limit` (`what`: what the bound is, for its message)."""
    def bounded(text: str) -> int:
        n = count(text)
        if n > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:,} ({what}), not {n:,}")
        return n
    bounded.__name__ = "count"  # argparse names the type in its message for a value it cannot convert
    return bounded


def seconds(text: str) -> float:
    """argparse type: a finite number of seconds above 0, at most MAX_SECONDS."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text}")
    if x > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS:,} seconds (a week), not {text}")
    return x


games_count = count_up_to(MAX_GAMES, "games per seating and stage")
stage_count = count_up_to(MAX_STAGES, "stages in a set")
resamples_count = count_up_to(MAX_RESAMPLES, "bootstrap resamples")
jobs_count = count_up_to(MAX_JOBS, "processes side by side")


def budget_options(p, command: str) -> None:
    """--analysis-time and --game-time, with `ludica COMMAND`'s defaults (ludica/budgets.py)."""
    from ludica.budgets import BUDGETS, budget_help
    analysis, game = budget_help(command)
    p.add_argument("--analysis-time", type=seconds, default=BUDGETS[command].analysis_time, metavar="S", help=analysis)
    p.add_argument("--game-time", type=seconds, default=BUDGETS[command].game_time, metavar="S", help=game)


# What --isolate-rules costs an agent, as the README says it too (tests/test_docs.py): figures of one
# run of `python benchmarks/isolation.py` on a 2-core machine, the README's table under Benchmarks
ISOLATION_COST = ("each API call a round trip: 9 to 31 times an in-process call; playouts of many games a call "
                  "cost about the same, measured by benchmarks/isolation.py")


# The options of the commands that play games (play, tournament, evaluate), said once.
def episode_options(p, command: str) -> None:
    budget_options(p, command)
    p.add_argument("--human-time", type=seconds, default=None, metavar="S",
                   help="a person's time per game (the entrant `human`), wall-clock seconds (default 1800: a "
                        "person has no CPU time, and takes longer than an agent)")
    p.add_argument("--model-time", type=seconds, default=None, metavar="S",
                   help="a language model's time per game (a .model agent), wall-clock seconds of its answered "
                        "requests (default 600: a remote model's CPU time cannot be measured)")
    p.add_argument("--model-analysis-time", type=seconds, default=None, metavar="S",
                   help="a language model's analysis budget per stage, wall-clock seconds (default 600; scaled "
                        "with --analysis-time where a schedule scales it)")
    p.add_argument("--rules", choices=("text", "gdl", "none"), default=None,
                   help="what language-model agents are told of the rules: text (plain English, the default), gdl "
                        "(the .gdl text) or none (they learn them only through the API's tools); the evaluator's "
                        "choice: a .model file cannot say it")
    p.add_argument("--endpoint", action="append", default=[], metavar="NAME=URL",
                   help="a model endpoint the run may contact (an OpenAI-compatible URL ending in /v1); a .model "
                        "file names it with endpoint = \"NAME\"; repeat for more. No other endpoint is contacted")
    p.add_argument("--endpoint-key", action="append", default=[], metavar="NAME=ENVVAR",
                   help="the environment variable holding endpoint NAME's key (sent to that endpoint alone, over "
                        "https or to this machine; default: no key). Its name is kept in the run folder, never "
                        "its value")
    p.add_argument("--endpoint-param", action="append", nargs=2, default=[], metavar=("NAME", "KEY=VALUE"),
                   # runtime/endpoints.PARAMS, said here without importing the runtime (test_model_agents checks it)
                   help="a provider parameter of every request to endpoint NAME, the evaluator's (kept with the run; "
                        "--resume needs the same): temperature, 0 to 2; top_p, 0 to 1; reasoning_effort, one of "
                        "none, minimal, low, medium, high; max_completion_tokens, 1 to 128000, the most tokens of "
                        "one answer, reasoning included. temperature and max_completion_tokens replace the .model "
                        "file's temperature and max_tokens; repeat for more")
    p.add_argument("--seed", type=int, default=0,
                   help="the run's seed (game seeds derive from it; each seat's own seed from its game's seed and "
                        "a secret kept in the run folder)")
    p.add_argument("--reveal", action="store_true", help="GGP mode: hand agents the stage's .gdl text")
    p.add_argument("--memory-mb", type=count_up_to(MAX_MEMORY_MB, "megabytes: a terabyte"), default=2048, help="address-space limit per agent (default 2048)")
    p.add_argument("--in-process", action="store_true",
                   help="run trusted agents inside this process, without the sandbox (faster; for tests)")
    p.add_argument("--isolate-rules", action="store_true",
                   help="for untrusted agents on unseen stages: each agent's rules in a process of their own "
                        f"that it can ask but not read ({ISOLATION_COST})")
    p.add_argument("--agent-data", action="append", default=[], metavar="AGENT=DIR",
                   help="a folder AGENT may read (read-only, at /agent/data in its sandbox; AGENT: its file, "
                        "built-in name or NAME; repeat for more agents); agents see no other file of yours")


def jobs_option(p) -> None:
    p.add_argument("--jobs", type=jobs_count, default=None, metavar="N",
                   help="stages played side by side (default: every core this process may use; clocks are CPU "
                        "time and waiting for a CPU is never charged, so budgets depend neither on it nor on "
                        "the machine's load)")
