"""Static checks of a stage: what the grammar cannot see.

`check_stage(stage)` runs the checks of `CHECKS` in turn. Each is a small function with one
concern that yields diagnostics (errors and warnings, see gdl/messages.py), each pointing at the
smallest node it is about. A problem is reported once, where it is made, and checks avoid
reporting the consequences of a problem another check reports (an unknown player's pieces still
count as pieces; a board whose size is out of range gets no cell checks).

The checks work on any AST: one parsed from text, or one built in code without spans (then the
diagnostics have no span, but the same codes). `partial` names the statements that did not parse,
so that a check does not call a statement missing, or draw conclusions from its absence.

One module per part of a stage, in the order the checks run: players.py (the name and the
players), board.py, position.py (`setup`, `forward`), words.py (directions and other closed
words), moves.py, ends.py, information.py (`hidden`, `refused`, `announce`), chance.py (`random` lines); context.py holds what
they all read. What a concept means to a check
(a move that needs a piece, an effect that takes, a condition that holds at the start...) is a
trait declared on the concept's class in gdl/ast.py, never a list of classes here.
"""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import Diagnostic
from ..recent import Recent
from . import board, chance, ends, information, moves, players, position, words
from .context import Check, Context
from .moves import MAX_RULES

__all__ = ["check_stage", "sound", "CHECKS", "MAX_RULES"]

CHECKS: list[Check] = [*players.CHECKS, *board.CHECKS, *position.CHECKS, *words.CHECKS, *moves.CHECKS,
                       *ends.CHECKS, *information.CHECKS,
                       *chance.CHECKS]  # run in this order; each one concern


def check_stage(stage: A.Stage, partial: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every problem the static checks find in a stage (errors and warnings), in check order.

    `partial`: keywords of the statements that failed to parse (their errors are already
    reported), so that e.g. a stage whose only `move` line is misspelt is not also told it has
    no `move`.
    """
    ctx = Context(stage, frozenset(partial))
    out: list[Diagnostic] = []
    for check in CHECKS:
        out.extend(check(ctx))
    if not partial and not any(d.is_error for d in out):
        _SOUND.put(stage, None)
    return out


# Stages the checks found no error in, by equality: a stage's hash and equality leave out source
# spans (gdl/ast.py), and spans only place a message, never decide one, so an equal stage is as
# sound. gdl.load checks a stage and the compiler trusts it; a sampler's candidates are checked once.
_SOUND: Recent[A.Stage, None] = Recent(4096)


def sound(stage: A.Stage) -> bool:
    """Whether the static checks find no error in `stage` (warnings allowed): run once per stage
    (and per equal stage) in a process, however many parts of a run ask."""
    return stage in _SOUND or not any(d.is_error for d in check_stage(stage))
