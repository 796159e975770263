"""Everything an evaluation reports, computed from its results store alone (so `ludica report DIR`
works on any run folder, finished or still going): ratings overall and per stage, the standings
with failures, the secondary views, the Arena's metrics and the anytime estimate.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..runtime.stored import RULES_READABLE, SENT
from . import adaptation, anytime, failures, formats, metrics, views
from .ratings import Ratings, outcomes, rate
from .usage import ModelUsage, model_usage


@dataclass
class Summary:
    agents: list[str]
    baselines: list[str]
    stages: list[dict]  # the store's stages rows (hash, name, role, weight, position, analysis_time)
    games: list[dict]
    analyses: list[dict]
    overall: Ratings
    per_stage: dict[str, Ratings]  # by stage hash
    failures: dict[str, failures.Failures]
    warnings: list[str]
    scores: dict[str, dict[str, float]]  # stage hash → agent → score
    metrics: metrics.ArenaMetrics
    views: dict
    anytime: list[anytime.Point]
    settings: dict = field(default_factory=dict)
    stopped: str = ""  # why the run stopped before its planned stages were played, if it did
    standing: str = ""  # --until-separated's pairs when the run ended without telling them all apart
    adaptation_games: list[dict] = field(default_factory=list)  # name@f's games (metric A), kept apart
    reference_games: list[dict] = field(default_factory=list)  # baselines' games beyond the format's, kept apart
    store_path: str = "the results store"  # the file it was read from, for a message on what it holds
    # every analysis of the run, the adaptation copies' (name@f) too: `analyses` leaves those out,
    # as the metrics must, but what a model used counts every request it made
    every_analysis: list[dict] = field(default_factory=list)

    @property
    def played(self) -> int:
        return len(self.games) + len(self.adaptation_games) + len(self.reference_games)

    @property
    def models(self) -> list[ModelUsage]:
        """What each language-model agent used, each adaptation copy in a row of its own: every game and
        analysis of the run, the one source of the report's Language models section, its JSON, the
        live page and the terminal."""
        return model_usage(self.games + self.adaptation_games + self.reference_games, self.every_analysis)

    @property
    def planned(self) -> int:
        return sum(s["planned"] for s in self.stages)

    @property
    def finished(self) -> bool:
        """Every planned game is played: a run stopped by a rule (--max-stages, --max-time,
        --until-separated) or by Ctrl-C is not finished, and --resume plays the rest."""
        return self.played >= self.planned

    @property
    def begun(self) -> set[str]:
        """The hashes of the stages with a game played (of any kind): a run stopped early planned more."""
        return {g["stage_hash"] for g in self.games + self.adaptation_games + self.reference_games}

    def shown(self, stage: dict) -> bool:
        """Whether a stage of the run may be shown (its name, text, board, numbers): an unseen stage
        without a game stays secret until the run is finished, as the draw's seed does (a resumed
        run has still to meet it unseen)."""
        return stage["role"] != "unseen" or self.finished or stage["stage_hash"] in self.begun

    @property
    def shown_stages(self) -> list[dict]:
        return [st for st in self.stages if self.shown(st)]

    @property
    def stages_played(self) -> int:
        return sum(s["stage_hash"] in self.begun for s in self.stages)

    def stages_said(self) -> str:
        """`2 stages`, or `2 of 101 stages` while some planned stages have no game yet."""
        played, planned = self.stages_played, len(self.stages)
        return f"{played} stage{'' if planned == 1 else 's'}" if played == planned else f"{played} of {planned} stages"

    @property
    def draw(self) -> dict | None:
        """The seed the unseen stages were drawn with ({"seed", "secret"}), if the sampler drew them;
        a secret seed is withheld (its "seed" None) until the run is finished: whoever knew it
        would know the stages a resumed run has still to play."""
        if "draw" not in self.settings:
            return None
        draw = json.loads(self.settings["draw"])
        return draw if self.finished or not draw.get("secret") else {**draw, "seed": None}

    def stage_name(self, stage_hash: str) -> str:
        """The stage's title in the run (its name, with its hash's first digits when another stage of
        the run has the same name: tournament.title made it so when the stage was stored)."""
        return next((s["name"] for s in self.stages if s["stage_hash"] == stage_hash), stage_hash[:8])


def summarise(store, resamples: int = 1000, seed: int | None = None, stage_resamples: int = 200) -> Summary:
    """`seed` for the bootstrap: by default the run's own (its stored config), so a report redrawn
    from the store gives the numbers the run gave."""
    settings = store.settings()
    setup = json.loads(settings.get("evaluation", "{}"))
    if seed is None:
        seed = int(setup.get("config", {}).get("seed", 0))
    agents = json.loads(settings.get("agents", "[]"))
    baselines = setup.get("baselines", [])
    stages = store.stages()
    pseudo = {n: (a, f) for n, (a, f) in setup.get("adaptation", {}).items()}
    every_analysis = store.analyses()
    games, analyses, learning, among = split_games(store.games(), every_analysis, pseudo, setup, agents)
    played = {g["stage_hash"] for g in games}
    stages = [s for s in stages if s["stage_hash"] in played] + [s for s in stages if s["stage_hash"] not in played]
    everyone = agents or sorted({n for g in games for n in (g["black"], g["white"])})
    _check_players(store, games, everyone)
    overall = rate(outcomes(games), everyone, resamples=resamples, seed=seed, planned=_planned(setup, everyone, games))
    per_stage = {}
    for s in stages:
        here = [g for g in games if g["stage_hash"] == s["stage_hash"]]
        if here:
            per_stage[s["stage_hash"]] = rate(outcomes(here), everyone, resamples=stage_resamples, seed=seed)
    table = failures.tally(games, analyses, everyone)
    scores = metrics.stage_scores(games)
    roles = {s["stage_hash"]: s["role"] for s in stages}
    budgets = {s["stage_hash"]: s["analysis_time"] for s in stages}
    summary_metrics: metrics.ArenaMetrics = {
        "P": metrics.performance(games),
        "E": metrics.efficiency(games, analyses, budgets),
        "G": metrics.generalisation(scores, roles),
        "R": metrics.robustness(scores, roles),
        "A": adaptation.curves(games + learning, pseudo, baselines,
                               complete_stages(stages, games + learning + among, "unseen")),
    }
    sent = [f"the unseen set was sent to endpoint {name} ({url}), off this machine: treat it as public from now on"
            for name, url in sorted(json.loads(settings.get(SENT, "{}")).items())]
    readable = json.loads(settings.get(RULES_READABLE, "[]"))
    if isinstance(readable, list) and readable and all(isinstance(n, str) for n in readable):
        sent.append(f"{', '.join(readable)} played the unseen stages with their rules in their own memory (no "
                    "--isolate-rules), where a Python agent can read a stage's exact text: if untrusted, treat the "
                    "set as seen by them, and evaluate such agents with --isolate-rules")
    return Summary(everyone, baselines, stages, games, analyses, overall, per_stage, table,
                   sent + failures.warnings(table), scores, summary_metrics, _views(games, stages, everyone, among),
                   _anytime(stages, games + learning + among, everyone, baselines), settings,
                   adaptation_games=learning, reference_games=among,
                   store_path=str(getattr(store, "path", "the results store")), every_analysis=every_analysis)


def _planned(setup: dict, agents: list[str], games: list[dict]) -> dict[str, float] | None:
    """The format's games each stage plans (stage hash → count), so that a stage in progress weighs by
    its share of them; None for a store without an evaluation's format (a tournament's: every stage
    is then one stage, however many of its games are played)."""
    config = setup.get("config", {})
    if config.get("format") not in formats.FORMATS:
        return None
    count = formats.games_per_stage(agents, set(setup.get("baselines", [])), config["format"], config.get("games", 1))
    return {g["stage_hash"]: float(count) for g in games} if count else None


def _check_players(store, games: list[dict], agents: list[str]) -> None:
    """The run has agents, and every game rated is between them: a store whose games name others
    (its agents' setting edited, a game's seat renamed) cannot be rated, and says so."""
    from ..runtime.records import EDITED, StoreError

    where = getattr(store, "path", "the results store")
    if not agents:  # a run has two entrants at least: a store that names none was emptied by a hand
        raise StoreError(f"{where}: the run names no agent (its setting 'agents' is empty or missing, and no game "
                         f"names one); {EDITED}")
    known = set(agents)
    for g in games:
        for seat in ("black", "white"):
            if g[seat] not in known:
                raise StoreError(f"{where}: table games, row {g['id']}, column {seat}: {g[seat][:40]!r} is not "
                                 f"one of the run's agents ({', '.join(agents)[:200]}); {EDITED}")


def split_games(games: list[dict], analyses: list[dict], pseudo: dict, setup: dict, agents: list[str]
                ) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """(the evaluation's games, its analyses, the adaptation games, the reference games): the agents
    entered again with smaller budgets (name@f), and the baselines' games among themselves beyond
    the format's (formats.pairs: all of them in a gauntlet with a submitted agent, those past --games
    in a round robin), stay out of the ratings and the other metrics: the ratings see the format's
    design, each game once. `agents`: the run's entrants (its setting "agents")."""
    baselines = set(setup.get("baselines", []))
    config = setup.get("config", {})
    per_seating = config.get("games", 1)
    own = set(formats.pairs(agents, baselines, config.get("format", "round-robin")))

    def kind(g: dict) -> str:
        if g["black"] in pseudo or g["white"] in pseudo:
            return "adaptation"
        if g["black"] in baselines and g["white"] in baselines and \
                ((g["black"], g["white"]) not in own or g["game_index"] >= per_seating):
            return "reference"
        return "main"

    kinds = [kind(g) for g in games]
    main, learning, among = ([g for g, k in zip(games, kinds) if k == wanted]
                             for wanted in ("main", "adaptation", "reference"))
    return main, [a for a in analyses if a["agent"] not in pseudo], learning, among


def complete_stages(stages: list[dict], games: list[dict], role: str) -> set[str]:
    """The stages of `role` whose planned games (adaptation games included) are all played: figures
    that compare stages or budgets use only those."""
    counts: dict[str, int] = {}
    for g in games:
        counts[g["stage_hash"]] = counts.get(g["stage_hash"], 0) + 1
    return {s["stage_hash"] for s in stages if s["role"] == role and counts.get(s["stage_hash"]) == s["planned"]}


def anytime_points(store, baselines: list[str]) -> list[anytime.Point]:
    """The anytime estimate after each finished unseen stage, straight from the store (cheap: no
    ratings), as a run goes."""
    settings = store.settings()
    setup = json.loads(settings.get("evaluation", "{}"))
    agents = json.loads(settings.get("agents", "[]"))
    games, _, learning, among = split_games(store.games(), [], setup.get("adaptation", {}), setup, agents)
    return _anytime(store.stages(), games + learning + among, agents, baselines)


def _views(games: list[dict], stages: list[dict], agents: list[str], among: list[dict]) -> dict:
    """The other arenas' views. The competition's order is a round robin's: on each stage it reads the
    baselines' games among themselves too (a gauntlet plays them apart, as reference games `among`),
    and a stage on which some pair never met is left out of it (counted: `unmet`)."""
    online, runoff, unmet = {}, {}, 0
    for s in stages:
        key = s["stage_hash"]
        here = outcomes([g for g in games if g["stage_hash"] == key])
        if here:  # in the order they were scheduled: the store's order within a stage
            online[key] = views.online_elo(here, agents)
            every = here + outcomes([g for g in among if g["stage_hash"] == key])
            if views.round_robin(every, agents):
                runoff[key] = views.instant_runoff(every, agents)
            else:
                unmet += 1
    return {"online_elo": online, "unified": views.unified_score(online, agents), "instant_runoff": runoff,
            "lexicographic": views.lexicographic(runoff, agents), "unmet": unmet}


def _anytime(stages: list[dict], games: list[dict], agents: list[str], baselines: list[str]) -> list[anytime.Point]:
    """The running estimate over the unseen stages whose games (all of them: the format's, the
    adaptation and the reference games) are all played, in the run's order; each stage's levels
    from its games against the baselines (anytime.levels)."""
    complete = complete_stages(stages, games, "unseen")
    here: dict[str, list[dict]] = {}
    for g in games:
        here.setdefault(g["stage_hash"], []).append(g)
    per_stage = [(s["stage_hash"], anytime.stage_leads(here[s["stage_hash"]], agents, baselines), s["weight"])
                 for s in sorted((s for s in stages if s["stage_hash"] in complete), key=lambda s: s["position"])]
    return anytime.running(per_stage, agents, anytime.reference(baselines))
