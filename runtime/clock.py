"""The clock an agent reads: the seconds left in its current budget (analysis, or the game).

The referee is the authority (it charges the CPU time of the agent's whole process tree, see
runtime/sandbox.py); this clock is the agent's own estimate of the same quantity, so an agent that
stops when `remaining()` nears zero stays inside its budget.
"""
from __future__ import annotations

import os
import time


def cpu_seconds() -> float:
    """CPU time of this process (all its threads, in nanoseconds) and of its children that have
    ended (in the kernel's 10 ms ticks)."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


class Clock:
    """`remaining()`: seconds left; `used()`: seconds spent since the clock was started."""

    def __init__(self, budget: float, now=cpu_seconds):
        self.budget = float(budget)
        self._now = now
        self._start = now()

    def used(self) -> float:
        return self._now() - self._start

    def remaining(self) -> float:
        return max(0.0, self.budget - self.used())

    def __repr__(self) -> str:
        return f"Clock(remaining={self.remaining():.3f}s of {self.budget:g}s)"
