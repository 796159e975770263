"""Qualification (the OpenSpiel competition's rule): before an evaluation, each submitted agent
plays `n` games as black and `n` as white against random on the first public stage, and enters
only if it beats random in both seats (more than half the points in each). An agent that lost
more than TIMEOUT_SHARE of those games on time is flagged, qualified or not: its clock use is
likely to cost it games in the evaluation too.

The games are a tournament of their own in DIR/qualification (results.sqlite and logs), resumed
with the evaluation.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..gdl import ast as A
from ..runtime import runfolder, tournament
from ..runtime.entrants import AgentSpec
from ..runtime.guarded import Secret
from ..runtime.referee import stage_hash
from ..runtime.run import Run
from .metrics import SCORE

TIMEOUT_SHARE = 0.10
OPPONENT = "random"


@dataclass(frozen=True)
class Verdict:
    agent: str
    as_black: float  # score as black against random
    as_white: float
    games: int
    timeouts: int  # games lost on time

    @property
    def qualified(self) -> bool:
        return self.as_black > 0.5 and self.as_white > 0.5

    @property
    def flagged(self) -> bool:
        return self.games > 0 and self.timeouts / self.games > TIMEOUT_SHARE

    def line(self) -> str:
        verdict = "qualified" if self.qualified else "not qualified (it must beat random in both seats)"
        flag = (f"; flagged: lost {self.timeouts} of {self.games} games on time (over {100 * TIMEOUT_SHARE:.0f}%)"
                if self.flagged else "")
        return (f"{self.agent}: {100 * self.as_black:.0f}% as black, {100 * self.as_white:.0f}% as white against "
                f"random — {verdict}{flag}")


def qualify(candidates: list[AgentSpec], random_agent: AgentSpec, stage: A.Stage, folder: Path,
            options: tournament.Options, n: int, jobs: int = 1, secrets: Sequence[Secret] = ()) -> list[Verdict]:
    """Play (or finish playing) the qualification games in `folder`; a verdict per candidate.
    `secrets`: what no agent may see beside `folder` (the evaluation's folder that holds it, its
    stages)."""
    names = [c.name for c in candidates]
    pairs = tuple(pair for name in names for pair in ((name, OPPONENT), (OPPONENT, name)))
    plan = tournament.StagePlan(stage, pairs, n, f"qualification: {stage.name}", options.analysis_time)
    agents = candidates + [random_agent]
    # a finished (or interrupted) qualification is kept: resumed if the folder holds one
    with Run.open(folder, resume=(folder / runfolder.STORE).is_file()) as run:
        run.start([stage], agents, options, secrets=secrets, qualification=str(n))
        run.play([plan], agents, jobs=jobs)
        games = run.store.games(stage_hash(stage))
    verdicts = []
    for name in names:
        black = [g for g in games if g["black"] == name]
        white = [g for g in games if g["white"] == name]
        timeouts = sum(1 for g in black if g["reason"] == "time" and g["winner"] == 1)
        timeouts += sum(1 for g in white if g["reason"] == "time" and g["winner"] == 0)
        verdicts.append(Verdict(name, _score(black, 0), _score(white, 1), len(black) + len(white), timeouts))
    return verdicts


def _score(games: list[dict], seat: int) -> float:
    return sum(SCORE[g["result"]][seat] for g in games) / len(games) if games else 0.0
