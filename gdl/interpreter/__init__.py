"""The pure-Python reference interpreter: the semantics the compiled kernels must match."""
from .game import Outcome, ReferenceGame, State, reference

__all__ = ["Outcome", "ReferenceGame", "State", "reference"]
