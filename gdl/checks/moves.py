"""Moves: pieces to move, distances, `require capture`, rules that shadow others."""
from __future__ import annotations

from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from .context import (
    Check, Context, collector, span_of, where, show, compass,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


# The traits these checks read are declared on the concept classes (gdl/ast.py MoveKind and
# Effect); a node of no concept (an AST built in code) has none and is judged by no trait.


def _needs_piece(kind: object) -> bool | None:
    return getattr(kind, "needs_piece", None)


def _takes(effect: object) -> bool:
    return bool(getattr(effect, "takes", False))


def _either(words: list[str]) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


# The effects that take pieces, as a hint names them: "`flip custodial`, ... or `convert adjacent`".
_TAKING_EFFECTS = _either([f"`{kind.keyword}`" for kind in A.EFFECT_KINDS if kind.takes])


@check
def _missing_moves(ctx: Context) -> Iterator[Diagnostic]:
    if not ctx.stage.moves and "move" not in ctx.partial:
        yield diagnostic("stage.missing-statement", ctx.start, keyword="move",
                         why="a stage needs at least one way of moving, e.g. `move place empty`")


MAX_RULES = 64  # move rules, and ends: each is tried at every position, so a game's cost grows with them


@check
def _too_many_rules(ctx: Context) -> Iterator[Diagnostic]:
    for what, rules in (("move rules", ctx.stage.moves), ("ends", ctx.stage.ends)):
        if len(rules) > MAX_RULES:
            first = rules[MAX_RULES]
            yield diagnostic("check.too-many-rules", span_of(getattr(first, "kind", first), first),
                             "a rule written twice adds nothing: the first that allows a move plays it",
                             what=what, count=len(rules), limit=MAX_RULES)


@check
def _moves_without_pieces(ctx: Context) -> Iterator[Diagnostic]:
    """Moves that need a piece of the mover (piece moves, `place adjacent`) need one from
    `setup` or `setup NAME random`, or placed by a move that needs none (`place empty`, `place gravity`)."""
    if {"move", "setup"} & ctx.partial:
        return  # the missing line may be the one that provides pieces
    if any(cells for cells in ctx.set_up.values()) or ctx.dealt:
        return
    if any(_needs_piece(rule.kind) is False for rule in ctx.stage.moves):
        return
    first = ctx.players[0] if ctx.players else "black"
    for rule in ctx.stage.moves:
        if _needs_piece(rule.kind):
            yield diagnostic("check.move-never-applies", span_of(rule.kind, rule),
                             f"set up pieces, e.g. `setup {first} a1`, "
                             "or add a rule that places them, like `move place empty`",
                             move=show(rule.kind, "move "))


@check
def _distances(ctx: Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    for rule in ctx.stage.moves:
        kind = rule.kind
        distance = getattr(kind, "distance", None)
        if not isinstance(distance, int):  # `jump N`, `clone N`
            continue
        move, span = show(kind, "move "), span_of(kind, rule)
        if distance < 1:
            yield diagnostic("check.distance-zero", span,
                             "distance counts king steps between two cells: 1 is a neighbouring cell", move=move)
        elif g is not None and distance > g.max_distance:
            yield diagnostic("check.distance-too-far", span,
                             f"on this board the distance is 1 to {g.max_distance}",
                             move=move, dims=g.dims, distance=distance, most=g.max_distance)


@check
def _require_capture(ctx: Context) -> Iterator[Diagnostic]:
    """`require capture` counts what the move took before it: landing on an enemy and the
    effects written above it."""
    for rule in ctx.stage.moves:
        target = getattr(rule.kind, "target", "empty")
        if target not in A.TARGETS:
            continue  # reported by _closed_words
        taken = bool(getattr(rule.kind, "takes_on_arrival", False)) and target in ("enemy", "any")
        first: A.RequireCapture | None = None
        for i, effect in enumerate(rule.effects):
            if _takes(effect):
                taken = True
            if not isinstance(effect, A.RequireCapture):
                continue
            span = span_of(effect, rule)
            if first is not None:
                yield diagnostic("check.require-capture-twice", span, "remove this one",
                                 first=where(span_of(first), span))
                continue
            first = effect
            later = [e for e in rule.effects[i + 1:] if _takes(e)]
            if not taken:
                hint = (f"it only counts the effects written before it: move it below `{show(later[0])}`" if later
                        else "a move takes pieces by landing on an enemy (`to enemy` or `to any`), or with "
                             f"{_TAKING_EFFECTS} written before it")
                yield diagnostic("check.require-capture-never", span, hint)
            elif later:
                yield diagnostic("check.require-capture-early", span,
                                 f"it only counts the effects written before it: move it below `{show(later[0])}` "
                                 "if that should count too", effect=show(later[0]))


def _target_covers(a: str, b: str) -> bool:
    return a == b or (a == "any" and b in ("empty", "enemy"))


def _directions_cover(ctx: Context, a: A.Directions, b: A.Directions) -> bool:
    if set(b.words) <= set(a.words):
        return True
    g = ctx.geometry
    if g is None or not ctx.players:
        return False
    for p in ctx.players:
        ra, rb = compass(g, a.words, ctx.headings.get(p)), compass(g, b.words, ctx.headings.get(p))
        if ra is None or rb is None or not rb <= ra:
            return False
    return True


def _field_covers(ctx: Context, form: A.Form, a: object, b: object) -> bool:
    """Whether a field of an earlier rule gives every value the same field of a later rule gives,
    by the field's form (gdl/ast.py): a target `any` gives `empty` and `enemy`, directions give
    the directions they name for every player; other fields must agree."""
    if form == A.TARGET:
        return _target_covers(a, b)  # type: ignore[arg-type]
    if isinstance(form, A.DirectionList):
        return _directions_cover(ctx, a, b)  # type: ignore[arg-type]
    return a == b


def _covers(ctx: Context, a: object, b: object) -> bool:
    """Whether move kind `a` gives every (origin, destination) that `b` gives, with the same
    effect on the board (so with the same effects, an earlier `a` leaves nothing to `b`): `a` is
    of `b`'s kind or of a kind `b` is `covered_by` (a slide that stops on the first cell is a
    step; `place empty` places wherever another placement does), and their fields cover."""
    if not isinstance(b, A.MoveKind) or not (type(a) is type(b) or getattr(a, "keyword", None) in b.covered_by):
        return False
    return all(hasattr(a, name) and _field_covers(ctx, form, getattr(a, name), getattr(b, name))
               for name, form in A.forms(type(b)))


@check
def _shadowed_moves(ctx: Context) -> Iterator[Diagnostic]:
    """When two rules give the same move, the first one written applies: a rule whose every
    move an earlier rule (with the same effects) also gives never applies. Not said of a stage
    with too many rules: that error says it once (and this check is quadratic in the rules)."""
    rules = ctx.stage.moves
    if len(rules) > MAX_RULES:
        return
    for j, rule in enumerate(rules):
        for earlier in rules[:j]:
            if earlier.effects == rule.effects and _covers(ctx, earlier.kind, rule.kind):
                span = span_of(rule.kind, rule)
                yield diagnostic(
                    "check.move-shadowed", span,
                    "when two rules give the same move, the first one written applies: remove this rule",
                    move=show(rule.kind, "move "), first=show(earlier.kind, "move "),
                    where=where(span_of(earlier.kind, earlier), span).removeprefix("on "),
                )
                break
