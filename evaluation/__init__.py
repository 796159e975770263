"""The evaluation: ratings with intervals, the Arena's metrics and the anytime generalisation
score, computed from the runtime's results store.

The modules: ratings.py (Bradley–Terry with choix, bootstrap intervals, rank probabilities, the
pairwise matrix), views.py (online Elo, the unified cross-stage score, instant-runoff ranks and
their lexicographic order).
"""
from .ratings import Outcome, Rating, Ratings, outcomes, rate, shared_ranks
from .views import instant_runoff, lexicographic, online_elo, unified_score

__all__ = ["Outcome", "Rating", "Ratings", "outcomes", "rate", "shared_ranks", "instant_runoff", "lexicographic",
           "online_elo", "unified_score"]
