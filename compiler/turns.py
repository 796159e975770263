"""Turn order: who moves after a move, one branch per `turn` concept (docs/language.md, "Turn
order"). Every form of the game (cells, bitboards, the families) calls `next_player`."""
from . import codes as K
from .bitboards import popcount
from .jit import inline


@inline
def uses_counts(turn):
    """Whether next_player reads the piece counts (a caller that counts cells may skip it if not)."""
    return turn == K.FEWER_PIECES


@inline
def next_player(turn, player, mine, theirs, taken):
    """Who moves after `player` made a move that took `taken` pieces and left it `mine` pieces
    against `theirs`; K.BAD_CODE for a turn order this has no branch for."""
    if turn == K.ALTERNATE:
        return 1 - player
    if turn == K.FEWER_PIECES:  # strictly fewer moves again; equal counts alternate
        return player if mine < theirs else 1 - player
    if turn == K.AGAIN_AFTER_CAPTURE:
        return player if taken > 0 else 1 - player
    return K.BAD_CODE


@inline
def next_player_bits(turn, player, me, op, taken):
    """next_player with the sides as bitboards (`me` the player's pieces after its move, `op` the
    other's), counted only when the turn order reads the counts."""
    mine = theirs = 0
    if uses_counts(turn):
        mine, theirs = popcount(me), popcount(op)
    return next_player(turn, player, mine, theirs, taken)
