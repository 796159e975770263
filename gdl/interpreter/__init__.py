"""The pure-Python reference interpreter: the semantics the compiled kernels must match."""
from .game import Outcome, ReferenceGame, State, reference
from .information import DarkGame, DarkState, Seen, Shown, Tried

__all__ = ["Outcome", "ReferenceGame", "State", "reference", "DarkGame", "DarkState", "Seen", "Shown", "Tried"]
