# Vendored from the project's shared reference programs (reference/othello_bitboard.py in the
# shared folder that sits beside the repository in the development setup, not inside it): the
# hand-written bitboard kernel that the performance reference points of the design document
# ("Performance": ≈ 120,000–160,000 games/s on one core) are measured with. It is copied here so
# that benchmarks/bench.py measures ludica against it, in the same run, from the repository alone.
# The code below is the original, unchanged: keep it so, or its figures stop being comparable
# with those reference points.
"""Hand-specialised reference: standard 8x8 Othello random playouts with 64-bit bitboards in numba.

A reference point: a straightforward kernel written for exactly this one game (not tuned to the
last cycle). A general engine compiled from a rule description is measured as a ratio against
it, in the same run: import it and call random_playouts(n_games, seed) -> (moves, black_wins).

usage: python othello_bitboard.py [seconds]
prints: games/s and moves/s on one core (single-threaded), and a perft check.
"""
import sys
import time

import numpy as np
from numba import njit

U = np.uint64
FULL = U(0xFFFFFFFFFFFFFFFF)
NOT_A = U(0xFEFEFEFEFEFEFEFE)  # clears file a (bit 0 of each byte) after shifting east
NOT_H = U(0x7F7F7F7F7F7F7F7F)


@njit(inline="always")
def _shift(b, d):
    # d in 0..7: N, S, E, W, NE, NW, SE, SW (bit i = row*8+col, col 0 = file a)
    if d == 0:
        return (b << U(8)) & FULL
    if d == 1:
        return b >> U(8)
    if d == 2:
        return (b << U(1)) & NOT_A
    if d == 3:
        return (b >> U(1)) & NOT_H
    if d == 4:
        return (b << U(9)) & NOT_A
    if d == 5:
        return (b << U(7)) & NOT_H
    if d == 6:
        return (b >> U(7)) & NOT_A
    return (b >> U(9)) & NOT_H


@njit
def legal(me, op):
    empty = ~(me | op)
    moves = U(0)
    for d in range(8):
        x = _shift(me, d) & op
        for _ in range(5):
            x |= _shift(x, d) & op
        moves |= _shift(x, d) & empty
    return moves


@njit
def flips(me, op, sq):
    m = U(1) << U(sq)
    f = U(0)
    for d in range(8):
        line = U(0)
        x = _shift(m, d)
        while x != U(0) and (x & op) != U(0):
            line |= x
            x = _shift(x, d)
        if (x & me) != U(0):
            f |= line
    return f


@njit
def popcount(x):
    c = 0
    while x != U(0):
        x &= x - U(1)
        c += 1
    return c


@njit
def nth_bit(x, n):
    for _ in range(n):
        x &= x - U(1)
    # index of lowest set bit
    i = 0
    while (x & U(1)) == U(0):
        x >>= U(1)
        i += 1
    return i


@njit
def random_playouts(n_games, seed):
    np.random.seed(seed)
    total_moves = 0
    black_wins = 0
    for _ in range(n_games):
        me = U(0x0000000810000000)  # black: d5 e4 in bit terms (rows 3/4)
        op = U(0x0000001008000000)
        black_to_move = True
        passes = 0
        while passes < 2:
            mv = legal(me, op)
            if mv == U(0):
                passes += 1
                me, op = op, me
                black_to_move = not black_to_move
                continue
            passes = 0
            k = np.random.randint(popcount(mv))
            sq = nth_bit(mv, k)
            f = flips(me, op, sq)
            me |= f | (U(1) << U(sq))
            op &= ~f
            total_moves += 1
            me, op = op, me
            black_to_move = not black_to_move
        b = popcount(me) if black_to_move else popcount(op)
        w = popcount(op) if black_to_move else popcount(me)
        if b > w:
            black_wins += 1
    return total_moves, black_wins


@njit
def perft(me, op, depth, passed):
    if depth == 0:
        return 1
    mv = legal(me, op)
    if mv == U(0):
        if passed:
            return 1  # game over: counts as a leaf
        return perft(op, me, depth - 1, True)
    n = 0
    while mv != U(0):
        sq = nth_bit(mv, 0)
        mv &= mv - U(1)
        f = flips(me, op, sq)
        n += perft(op & ~f, me | f | (U(1) << U(sq)), depth - 1, False)
    return n


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    random_playouts(10, 1)  # compile
    start = U(0x0000000810000000), U(0x0000001008000000)
    print("perft 1..8:", [perft(start[0], start[1], d, False) for d in range(1, 9)])
    games = 0
    moves = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < secs:
        m, _ = random_playouts(2000, games + 7)
        games += 2000
        moves += m
    dt = time.perf_counter() - t0
    print(f"othello-bitboard: {games / dt:,.0f} games/s  {moves / dt:,.0f} moves/s  ({moves / games:.1f} moves/game)")


if __name__ == "__main__":
    main()
