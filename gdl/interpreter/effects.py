"""Effects of a move, one function per effect, applied in the order written.

An effect changes the board (a list, already holding the arriving piece) around the arrival
cell and returns how many pieces it took, or None when it makes the move illegal
(`require capture` after effects that took nothing).
"""
from __future__ import annotations

from collections.abc import Callable

from ..ast import ConvertAdjacent, Effect, FlipCustodial, RemoveCustodial, RequireCapture
from .moves import EMPTY, enemy, piece
from .topology import Topology

BLOCKED = -1


def custodial_runs(topo: Topology, board: list[int], player: int, at: int, directions: tuple[int, ...],
                   over_blocked: bool) -> set[int]:
    """The enemy pieces enclosed between `at` and another mover's piece, over all directions.

    Reading outward from X (the arrival cell), O enemy, P mover, # blocked, . empty:
        X O O P   takes both O          X O . P   takes nothing (the empty cell ends the ray)
        X P       takes nothing         X O # P   takes O only with over-blocked (# is skipped)
    The edge ends a ray with nothing taken; so does coming back round to `at` on a wrapped board
    (the rays are cut there by the topology).
    """
    mine, foe = piece(player), enemy(player)
    taken: set[int] = set()
    for d in directions:
        run: list[int] = []
        for j in topo.rays[d][at]:
            v = board[j]
            if v == foe:
                run.append(j)
            elif v == mine:
                taken.update(run)
                break
            elif v == BLOCKED and over_blocked:
                continue
            else:  # empty, or blocked without over-blocked
                break
    return taken


def _flip_custodial(effect: FlipCustodial, topo: Topology, board: list[int], player: int, at: int,
                    taken_before: int) -> int:
    runs = custodial_runs(topo, board, player, at, topo.resolve(effect.directions, player), effect.over_blocked)
    for j in runs:
        board[j] = piece(player)
    return len(runs)


def _remove_custodial(effect: RemoveCustodial, topo: Topology, board: list[int], player: int, at: int,
                      taken_before: int) -> int:
    runs = custodial_runs(topo, board, player, at, topo.resolve(effect.directions, player), effect.over_blocked)
    for j in runs:
        board[j] = EMPTY
    return len(runs)


def _convert_adjacent(effect: ConvertAdjacent, topo: Topology, board: list[int], player: int, at: int,
                      taken_before: int) -> int:
    foe = enemy(player)
    # A set: on a tiny wrapped board two directions can reach the same neighbour.
    near = {topo.neighbours[d][at] for d in topo.resolve(effect.directions, player)}
    converted = [j for j in near if j >= 0 and board[j] == foe]
    for j in converted:
        board[j] = piece(player)
    return len(converted)


def _require_capture(effect: RequireCapture, topo: Topology, board: list[int], player: int, at: int,
                     taken_before: int) -> int | None:
    return 0 if taken_before > 0 else None


_EFFECTS: dict[type, Callable[..., int | None]] = {
    FlipCustodial: _flip_custodial,
    RemoveCustodial: _remove_custodial,
    ConvertAdjacent: _convert_adjacent,
    RequireCapture: _require_capture,
}


def apply_effects(effects: tuple[Effect, ...], topo: Topology, board: list[int], player: int, at: int,
                  taken: int) -> int | None:
    """Apply the effects in order to `board` (changed in place); `taken` counts what the move
    took before them (its arrival capture). Returns the move's capture count, or None if an
    effect makes the move illegal (the board is then left half-done: throw it away)."""
    for effect in effects:
        try:
            run = _EFFECTS[type(effect)]
        except KeyError:
            raise ValueError(f"unknown effect {type(effect).__name__}") from None
        took = run(effect, topo, board, player, at, taken)
        if took is None:
            return None
        taken += took
    return taken
