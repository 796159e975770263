"""The compiler: stages become numba kernels with the Game contract of the reference interpreter.

    game = compiler.compile(stage)
    game.legal_moves(game.initial_state())           # same moves, same order as gdl.reference
    game.playouts(10_000, seed=1, threads=2)          # random games inside the kernel
    game.perft(8)                                     # move-tree leaves, inside the kernel
    game.solve(100_000)                               # exact value, for a game of ≤ 100,000 positions
"""
from .game import CompiledGame, Games, Playouts, Solution, compile

__all__ = ["compile", "CompiledGame", "Games", "Playouts", "Solution"]
