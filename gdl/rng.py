"""The kernels' random generator (compiler/rng.py) in plain Python: the same numbers for a seed,
so that what the reference interpreter draws (a random start, sampler/cost.py's random games) is
what the kernels draw."""
from __future__ import annotations

MASK = (1 << 64) - 1


def _splitmix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def game_generator(seed: int, number: int) -> int:
    """compiler/rng.py's game_generator: game `number`'s generator for `seed`."""
    return _splitmix((seed * 0x2545F4914F6CDD1D + number) & MASK)


def draw(x: int, n: int) -> tuple[int, int]:
    """compiler/rng.py's draw: (next state, an index below n)."""
    x ^= x >> 12
    x ^= (x << 25) & MASK
    x ^= x >> 27
    return x, ((((x * 2685821657736338717) & MASK) >> 32) * n) >> 32
