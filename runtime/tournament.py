"""Round robins: every entrant against every other on each stage, in both seats, N games per
seating; each agent analyses each stage once (in its sandboxed worker), then plays all its games
there from that strategy. The run itself (its folder, resume, the jobs that play it) is a
runtime.Run (run.py); what a run plays, its Options and StagePlans, is in plans.py.
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

from ..files import write_atomic
from ..gdl import load
from ..gdl.diagnostics import LudicaError
from . import guarded, leaderboard
from .entrants import HUMAN, AgentSpec
from .plans import Options, StagePlan, game_seed, round_robin, title, unique_stages
from .referee import stage_hash
from .run import Hooks, Run, RunMismatch, run_settings


def run(stage_paths: list[Path], agents: list[AgentSpec], out: Path, options: Options, resume: bool = False,
        on_game: Callable[[dict], None] | None = None, on_stage: Callable[[str, int], None] | None = None,
        on_wait: Callable[[str], None] | None = None, jobs: int = 1,
        on_start: Callable[[Run], None] | None = None) -> dict[str, list[leaderboard.Standing]]:
    """Play the round robins; returns the leaderboard of each stage (by stage name). `on_start` is
    called with the run once its settings are stored, before any game (to keep more beside them)."""
    names = check_entrants(agents)
    stages = unique_stages(load(p) for p in stage_paths)  # every stage checked before anything is played
    plans = [StagePlan(s, round_robin(names), options.games, title(s, stages), options.analysis_time)
             for s in stages]
    with Run.open(out, resume=resume) as played:
        played.start(stages, agents, options, secrets=guarded.of_run(out, stage_files=stage_paths))
        if on_start is not None:
            on_start(played)
        played.play(plans, agents, jobs=jobs, hooks=Hooks(on_stage=on_stage, on_game=on_game, on_wait=on_wait))
        boards = {}
        for plan in plans:
            boards[plan.title] = leaderboard.standings(played.store.games(stage_hash(plan.stage)), names)
        if len(stages) > 1:
            boards["all stages"] = leaderboard.standings(
                [g for s in stages for g in played.store.games(stage_hash(s))], names)
        write_atomic(out / "leaderboard.md", "\n".join(leaderboard.markdown(t, b) for t, b in boards.items()))
        return boards


class EntrantError(LudicaError, ValueError):
    """Entrants that cannot meet in a round robin: said before any game is played."""


def check_entrants(agents: list[AgentSpec]) -> list[str]:
    """The entrants' names: each agent once, no two with one NAME (results are kept by name), at
    least two of them."""
    by_name: dict[str, list[AgentSpec]] = {}
    for a in agents:
        by_name.setdefault(a.name, []).append(a)
    for name, same in by_name.items():
        if len(same) == 1:
            continue
        if all(a.human for a in same):
            raise EntrantError(f"{HUMAN} (a person, at this terminal) is given {len(same)} times: a round robin seats "
                               f"one person; for two people at one board: ludica play STAGE --black {HUMAN} "
                               f"--white {HUMAN}")
        if len({(a.path, a.command) for a in same}) == 1:
            raise EntrantError(f"{_shown(same[0])} is given {len(same)} times: give each agent once")
        raise EntrantError(f"{len(same)} agents are named {name!r}: {', '.join(_shown(a) for a in same)}; results "
                           "are kept by name: set another NAME in the file of all but one (an agent program's: its agent file's "
                           "name, a .js file's const NAME)")
    if len(agents) < 2:
        raise EntrantError("a round robin needs at least two entrants, and this one has "
                           + (f"only {_shown(agents[0])}" if agents else "none") + ": add another agent")
    return list(by_name)


def _shown(agent: AgentSpec) -> str:
    if agent.human:
        return f"{HUMAN} (a person)"
    if agent.builtin:
        return f"the built-in agent {agent.name}"
    if agent.kind == "arena":
        return f"the Arena system {agent.path}"
    if agent.program:
        return f"the agent program {' '.join(agent.command)!r}" + (f" ({agent.path})" if agent.path else "")
    return f"the agent file {agent.path}"


# what a round robin's callers also name through this module: its options, plans and settings
__all__ = ["run", "check_entrants", "EntrantError", "Options", "StagePlan", "RunMismatch", "game_seed",
           "run_settings"]
