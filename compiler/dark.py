"""A stage with hidden information, compiled: random games of tries inside the kernel
(compiler/information.py), the same games as the reference (gdl/interpreter/information.py) for a
seed. The step-by-step game for agents (tries, views and observations one call at a time) is the
next part of issue 33; until then `gdl.reference(stage)` plays a hidden stage move by move.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..gdl.ast import Stage
from . import codes as K
from . import information as dark_kernels
from .game import CompiledGame, Playouts
from .program import information


class CompiledDarkGame:
    """A hidden stage's kernels: its true game compiled (the stage without its information lines),
    and the tries played on top of it."""

    def __init__(self, stage: Stage):
        if stage.hidden is None:
            raise ValueError(f"{stage.name!r} hides nothing: compile it with compiler.compile")
        self.stage = stage
        self.truth = CompiledGame(stage.without_information())  # checks the stage, lowers its base
        self.name, self.players = stage.name, self.truth.players
        self._information = information(stage)
        program = self.truth.program
        size = int(program.game[K.G_CELLS])
        # Room for each player's refused tries: one per cell where every move is a placement (a refused
        # cell is seen taken and never tried again), else one per move code.
        self._capacity = size if self.truth.placements_only else size * (size + 1)

    def initial_state(self) -> np.ndarray:
        """The true initial position (public: both views start as it)."""
        return self.truth.initial_state()

    def playouts(self, n: int, seed: int = 0, threads: int = 1, max_tries: int = 100_000,
                 first_game: int = 0, generic: bool = False) -> Playouts:
        """`n` random games of tries from the initial position, each try drawn uniformly among the
        tries of the player to move. `lengths` counts tries (refused ones included); the same seed
        gives the same games whatever the number of threads, as the reference plays them. A family
        of compiler/families/ with `dark_playouts` plays them faster; `generic` forces
        compiler/information.py's kernels (to compare the two)."""
        lengths, winners = np.zeros(n, np.int32), np.zeros(n, np.int32)
        starts = np.ascontiguousarray(self.initial_state()[None, :])
        flat, masks = self.truth._flat, self.truth._masks

        family = self.truth._family if self.truth._family is not None and not generic else None
        fast = getattr(family, "dark_playouts", None)

        def run(a: int, b: int) -> None:
            if fast is not None and fast(self.truth._tables, starts, first_game + a, seed, max_tries, self._information,
                                         lengths[a:b], winners[a:b]):
                return
            dark_kernels.dark_playouts(starts, first_game + a, seed, max_tries, flat, masks, self._information,
                                       self._capacity, lengths[a:b], winners[a:b])

        if threads <= 1 or n < 2 * threads:
            run(0, n)
        else:
            bounds = np.linspace(0, n, threads + 1).astype(int)
            with ThreadPoolExecutor(threads) as pool:  # the kernels release the GIL
                for job in [pool.submit(run, int(a), int(b)) for a, b in zip(bounds, bounds[1:])]:
                    job.result()
        if (winners == K.BAD_CODE).any():
            raise RuntimeError(f"the dark kernels met a code without a branch playing {self.name!r} "
                               "(compiler/information.py)")
        returns = np.zeros((n, 2))
        returns[winners == 0] = (1.0, -1.0)
        returns[winners == 1] = (-1.0, 1.0)
        return Playouts(lengths, returns, int((winners == K.CUT).sum()))
