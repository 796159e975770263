"""What a run plays: its options, and a plan of games per stage with each game's seed.

Game g of the pairing (black, white) on a stage gets a seed derived from the run's seed, the
stage's hash, both names and g, so a resumed run plays the very games an uninterrupted one would
(with deterministic agents). Anyone can compute that seed, an agent too: it names the game and
seeds the referee's own draws, and no seat is told it. Each seat is told a seed of its own, derived
from it and the run's game secret (seatseeds.py).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

from ..budgets import BUDGETS
from ..gdl import ast as A
from ..gdl.diagnostics import LudicaError
from . import endpoints
from .human import HUMAN_TIME
from .referee import stage_hash

MODEL_TIME = 600.0  # a language model's default budget per game, wall seconds
MODEL_ANALYSIS_TIME = 600.0  # and its analysis budget on a stage (a conversation with tools), wall seconds
RULE_TIERS = ("text", "gdl", "none")  # what a language model is told of the rules (runtime/models/prompts.py)


@dataclass
class Options:
    """A run's settings for every stage it plays (stored with the run: a resumed run must match)."""

    games: int = 1  # per seating: each ordered pair plays this many games
    analysis_time: float = BUDGETS["tournament"].analysis_time  # each agent's budget on a stage whose plan sets none
    game_time: float = BUDGETS["tournament"].game_time
    seed: int = 0
    reveal: bool = False  # GGP mode: agents get the stage's text
    limits: dict = field(default_factory=dict)  # runtime/limits.py DEFAULTS, overridden
    sandbox: bool = True  # False: trusted agents in this process (tests, quick experiments)
    isolate_rules: bool = False  # each agent's rules in an oracle process of its own (runtime/oracle/)
    human_time: float = HUMAN_TIME  # a person's budget per game (`human`), wall seconds: a person has no CPU time
    # a language model's budget per game, wall seconds of its answered requests (runtime/models: a
    # remote model's CPU time cannot be measured), and how much of the rules it is told (--rules:
    # the evaluator's choice, never a .model file's)
    model_time: float = MODEL_TIME
    model_rules: str = "text"
    # its analysis budget, wall seconds, on a stage whose plan gives analysis_time (scaled as the plan
    # scales analysis_time: the doubling schedule's budgets double for a model too)
    model_analysis_time: float = MODEL_ANALYSIS_TIME
    # the model endpoints the run may contact, NAME -> {url, key_env, params} (runtime/endpoints.py:
    # the evaluator's --endpoint, --endpoint-key and --endpoint-param): the names of the key
    # variables, never a key
    endpoints: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.model_rules not in RULE_TIERS:
            raise LudicaError(f"--rules {self.model_rules!r}: give one of {', '.join(RULE_TIERS)}")
        endpoints.check(self.endpoints)
        if self.isolate_rules and not self.sandbox:
            raise LudicaError("--isolate-rules keeps the rules out of sandboxed agents' processes, and agents run "
                              "--in-process share this one: drop one of the two options")


# Options added after runs were made with their default: a run that leaves one at its default says
# nothing of it, so the runs made before it can still be resumed (and read back with the default).
LATER_OPTIONS = {"isolate_rules": False, "human_time": HUMAN_TIME, "model_time": MODEL_TIME, "model_rules": "text",
                 "model_analysis_time": MODEL_ANALYSIS_TIME, "endpoints": {}}


def game_seed(run_seed: int, stage_hash_: str, black: str, white: str, index: int) -> int:
    """The game's seed, from public data alone (seatseeds.seat_seeds makes the seats' from it)."""
    digest = hashlib.sha256(f"{run_seed}|{stage_hash_}|{black}|{white}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def round_robin(names: list[str]) -> tuple[tuple[str, str], ...]:
    """Every ordered pair (black, white) of distinct entrants, in a fixed order."""
    return tuple((b, w) for b in names for w in names if b != w)


@dataclass(frozen=True)
class StagePlan:
    """The games of one stage: ordered pairs (black, white), `games` games each, played in that
    order; `analysis_time` is each entrant's analysis budget on this stage, and `scale` gives some
    entrants a fraction (or a multiple) of it: ((name, factor), ...). An entrant in `same_seeds`
    ((name, other), ...) plays its games with the seeds `other` has in the same seat against the
    same opponent: an agent entered again with another budget meets the very same chances. With
    `more` ((black, white, n), ...), those pairs play n games in all, indices 0..n-1 (the first
    `games` of them the games of `pairs` if the pair is there too), after the others: the
    evaluation's reference games among the baselines."""

    stage: A.Stage
    pairs: tuple[tuple[str, str], ...]
    games: int
    title: str
    analysis_time: float
    scale: tuple[tuple[str, float], ...] = ()
    same_seeds: tuple[tuple[str, str], ...] = ()
    more: tuple[tuple[str, str, int], ...] = ()

    def seed(self, run_seed: int, black: str, white: str, index: int) -> int:
        alias = dict(self.same_seeds)
        return game_seed(run_seed, stage_hash(self.stage), alias.get(black, black), alias.get(white, white), index)

    def schedule(self) -> list[tuple[str, str, int]]:
        first = [(b, w, k) for b, w in self.pairs for k in range(self.games)]
        paired = set(self.pairs)
        return first + [(b, w, k) for b, w, n in self.more for k in range(self.games if (b, w) in paired else 0, n)]

    @property
    def entrants(self) -> list[str]:
        return list(dict.fromkeys([name for pair in self.pairs for name in pair] +
                                  [name for b, w, _ in self.more for name in (b, w)]))

    def budget(self, name: str) -> float:
        """The analysis budget of entrant `name` on this stage."""
        return self.analysis_time * dict(self.scale).get(name, 1.0)


def unique_stages(items: Iterable, stage_of: Callable = lambda item: item) -> list:
    """The stages (or items holding one, `stage_of(item)`), each once: two files with the same
    canonical text are one stage (its games would be counted twice, and the store holds them once)."""
    return list({stage_hash(stage_of(item)): item for item in items}.values())


def title(stage, stages) -> str:
    """The stage's name, with its hash's first digits when another stage of the run has the same."""
    twins = [s for s in stages if s.name == stage.name]
    return stage.name if len(twins) < 2 else f"{stage.name} ({stage_hash(stage)[:8]})"
