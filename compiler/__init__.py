"""The compiler: stages become numba kernels with the Game contract of the reference interpreter.

    game = compiler.compile(stage)
    game.legal_moves(game.initial_state())           # same moves, same order as gdl.reference
    game.playouts(10_000, seed=1, threads=2)          # random games inside the kernel
    game.perft(8)                                     # move-tree leaves, inside the kernel
"""
from .game import CompiledGame, Games, Playouts, compile

__all__ = ["compile", "CompiledGame", "Games", "Playouts"]
