"""The pure-Python reference interpreter: the semantics the compiled kernels must match."""
from .game import Outcome, ReferenceGame, State, reference
from .information import DarkGame, DarkState, Seen, Shown, Tried
from .worlds import NoWorldFound, sample_world, worlds

__all__ = ["Outcome", "ReferenceGame", "State", "reference", "DarkGame", "DarkState", "Seen", "Shown", "Tried",
           "NoWorldFound", "sample_world", "worlds"]
