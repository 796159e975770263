"""The pure-Python reference interpreter: the semantics the compiled kernels must match."""
from .game import ReferenceGame, State, reference

__all__ = ["ReferenceGame", "State", "reference"]
