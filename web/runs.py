"""The Runs pages: for each run folder `ludica serve` was given, the report's views (leaderboard with
intervals, pairwise scores, metrics, anytime estimate, failures, secondary views) of its results
store as it stands, the progress (games played of those planned), every game a link to its replay,
and the replay page itself: the report's replay over the same games.

A run may be writing its store in another process meanwhile (SQLite allows it); the views are
recomputed only when the store's games change (live.py tells), and kept until then."""
from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import stages as bundled_stages
from ..evaluation import summarise
from ..evaluation.report import page_views
from ..gdl import format as stage_text
from ..gdl import load
from ..runtime import Run
from ..runtime.plans import round_robin
from ..runtime.referee import stage_hash
from .live import StoreState, store_state

__all__ = ["RunViews", "RunWatch"]


@dataclass(frozen=True)
class RunViews:
    """A run's views at one state of its store."""
    state: StoreState
    views: dict | None  # report.page_views: each view by the name its partial reads it under; None: no game yet
    played: int
    planned: int  # 0: the store does not say

    def context(self) -> dict:
        """What the templates read: the views, or before the first game the few names they need."""
        return self.views or {"title": "no game played yet", "unfinished": [], "replay": []}

    @property
    def finished(self) -> bool:
        return 0 < self.planned <= self.played


class RunWatch:
    """One run folder's views, recomputed when its store's games change (and only then); their
    links to games go to the run's replay page, `replay_page`."""

    def __init__(self, folder: Path, resamples: int, replay_page: str = ""):
        self.folder, self.resamples, self.replay_page = Path(folder), resamples, replay_page
        self._held: RunViews | None = None
        self._lock = threading.Lock()  # one recomputation at a time: the others wait for it and share it

    def views(self) -> RunViews:
        """The views of the store as it stands (blocking: call it from a worker thread)."""
        with self._lock:
            state = store_state(self.folder)
            if self._held is None or self._held.state != state:
                self._held = self._compute(state)
            return self._held

    def _compute(self, state: StoreState) -> RunViews:
        with Run.read(self.folder) as run:
            settings = run.settings
            kept = bool(run.store.stages())  # a tournament's store from before Run.play holds none
            planned = sum(s["planned"] for s in run.store.stages()) if kept else _planned_round_robin(settings)
            if not state.games:  # a run just begun: no view has anything to show yet
                return RunViews(state, None, 0, planned)
            store = run.store if kept else _TournamentStages(run.store, settings)
            summary = summarise(store, resamples=self.resamples)
        return RunViews(state, page_views(summary, self.replay_page, running=state.running), summary.played, planned)


class _TournamentStages:
    """A `ludica tournament` store made before every run kept its stages' text (Run.play), which
    has their hashes alone: the stages it played that are bundled ones, given as an evaluation's
    store gives its stages (so the views and the replay have the stage), the rest of the store as
    it is."""

    def __init__(self, store, settings: dict[str, str]):
        self._store = store
        options = json.loads(settings.get("options", "{}"))
        known = _bundled_by_hash()
        self._rows = [{"stage_hash": h, "name": known[h].name, "text": stage_text(known[h]), "role": "public",
                       "weight": 1.0, "position": i, "analysis_time": options.get("analysis_time", 0.0),
                       "planned": _games_a_stage(settings), "multiplicity": 1, "divergence": None,
                       "divergence_se": None}
                      for i, h in enumerate(json.loads(settings.get("stages", "[]"))) if h in known]

    def stages(self) -> list[dict]:
        return self._rows

    def __getattr__(self, name):
        return getattr(self._store, name)


@functools.cache
def _bundled_by_hash() -> dict:
    return {stage_hash(s): s for s in (load(p) for p in bundled_stages.bundled())}


def _games_a_stage(settings: dict[str, str]) -> int:
    """A tournament's games on each stage: every ordered pair of its agents plays `games` games."""
    agents = json.loads(settings.get("agents", "[]"))
    return len(round_robin(agents)) * json.loads(settings.get("options", "{}")).get("games", 1)


def _planned_round_robin(settings: dict[str, str]) -> int:
    """A tournament's games on all its stages (those not bundled too)."""
    return len(json.loads(settings.get("stages", "[]"))) * _games_a_stage(settings)
