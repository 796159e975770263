"""The evaluation: agents on public and unseen stages through the runtime's episodes, then
ratings with intervals, the Arena's metrics and the anytime generalisation score, and a report.

    from ludica.evaluation import evaluate, stageset
    from ludica.runtime import Options
    stages = stageset.public([path]) + stageset.sampled(Path("out/unseen"), base=stage, n=4, seed=0)
    config = evaluate.Config(Options(games=1, analysis_time=2, game_time=2), format="gauntlet")
    summary = evaluate.run(stages, agents, Path("out"), config)
    summary.overall.ratings          # best first: elo, low, high, rank, rank_probabilities
    write_report(summary, Path("out"))

The modules: stageset.py (public and unseen stages, with weights), evaluate.py (the run: formats,
schedules, stopping rules), stopping.py (`--until-separated`'s sequential test), ratings.py
(Bradley–Terry with Jeffreys' prior, profile-likelihood intervals, bootstrap rank probabilities, the
pairwise matrix), views.py (online Elo, the unified cross-stage score, the OpenSpiel competition's
instant-runoff ranks and worst-first lexicographic order), failures.py (games lost other than by
play), metrics.py (P, E, G, R), anytime.py (the anytime estimate), summary.py (all of it from a
store), report.py (the report's views; HTML, JSON, CSV), plots.py (its matplotlib plots), page.py
(the Jinja templates of templates/ and the CSS and script of static/ that pages are laid out with).
"""
from .ratings import Outcome, Rating, Ratings, outcomes, rate, shared_ranks
from .report import write_report
from .summary import Summary, summarise
from .views import instant_runoff, lexicographic, online_elo, unified_score

__all__ = ["Outcome", "Rating", "Ratings", "outcomes", "rate", "shared_ranks", "write_report", "Summary", "summarise",
           "instant_runoff", "lexicographic", "online_elo", "unified_score"]
