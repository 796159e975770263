"""The ply protocol every form of the compiled game shares (the generic kernels on cells and each
family of families/), written once; a form hands in only what differs (Pgx's `Env.step`):

- the ends of a position: `ends.end_rule` (the first that holds decides, else no moves is a draw);
- `step_kernel(game_table, describe, play)`: calls.step's contract, its preamble (a state from
  outside the game checked once, the status of the position, an illegal move refused) and the move
  (`describe_bits`: how a bitboard family describes a state);
- `playout_kernel(begin, status, advance)`: random games inside the kernel, every form drawing the
  same moves for a seed (rng.py).

Each is a factory: it closes over the form's kernels and returns a kernel of its own, which numba
compiles once per form (and caches: jit.py keys a closure's cache on the names it closes over).
"""

from . import codes as K
from .bitboards import sides_of, turn_of
from .jit import inline, kernel, leaf
from .positions import misfit
from .program import table1
from .rng import draw, game_generator


@inline
def listing(ints, m):
    """The listing `out` at the end of a step's `ints` (m: max_moves).

    ints: int32[n_packed + scratch + 2 * m] — a step's tables, scratch, then the listing (calls.py)
    -> out: int32[2 * m] — a view: the moves' codes, then their rules
    """
    return ints[ints.shape[0] - 2 * m:]


@inline
def find(out, n, code):
    """Where `code` is among the n moves `out` lists, or -1.

    out: int32[at least n] — the listing's codes
    """
    for k in range(n):
        if out[k] == code:
            return k
    return -1


def describe_bits(game_table, list_position):
    """step_kernel's `describe` for a bitboard family: the state's sides and turn, then the family's
    `list_position(first, second, blocked, player, mover, ply, ints, bits, out) -> (moves, over,
    winner)`, which lists the moves into `out`."""

    @inline
    def describe(state, child, ints, bits):
        """step_kernel's `describe` for a bitboard family: the status of `state`, its moves listed.

        state: int32[n_cells + 4] — the position, read only
        child: int32[n_cells + 4] — a free row, not read
        ints: int32[n_packed + 2 * max_moves] — the family's tables, then the listing it fills
        bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards
        """
        game = table1(ints, game_table)
        size = game[K.G_CELLS]
        first, second, blocked = sides_of(state, size)
        player, mover, ply = turn_of(state, size)
        return list_position(first, second, blocked, player, mover, ply, ints, bits,
                             listing(ints, game[K.G_MAX_MOVES]))

    return describe


def step_kernel(game_table, describe, play):
    """calls.step for a form whose tables are packed in `ints` with the game row as table number
    `game_table`.

    `describe(state, child, ints, bits) -> (moves, over, winner)`: the status of `state` (read-only),
    its moves written into the listing (`listing`); `child` is a free row to use as scratch.
    `play(state, child, k, code, moves, ints, bits) -> (taken, moves, over, winner)`: write the
    position after the listed move k (its code `code`, one of `moves` listed) into `child`, list its
    moves and return the pieces taken and the child's status (K.BAD_CODE as taken for a code
    without a branch)."""

    @kernel
    def step(state, slab, row, code, known, ints, bits):
        """calls.step for one form (the contract and its scalars: calls.py), made by step_kernel.

        state: int32[n_cells + 4] — the position, read only
        slab: int32[rows, n_cells + 4] — the caller's rows: the child is written into slab[row]
        ints: int32[n_packed + scratch + 2 * max_moves] — the form's tables, its scratch, the listing
        bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards (the
            generic form's and the placement family's: uint64[n_dirs], the bit masks alone)
        -> (taken, moves, over, winner): scalars
        """
        if known < 0:  # a state from outside the game: checked once
            game = table1(ints, game_table)
            if misfit(state, slab.shape[1], game[K.G_DICE] * game[K.G_FACES]):
                return 0, 0, True, K.BAD_STATE
        child = slab[row]
        n = known
        if n < 0 or code == K.STATUS_ONLY:
            n, over, won = describe(state, child, ints, bits)
            if code == K.STATUS_ONLY or won == K.BAD_CODE:
                return 0, n, over, won
        k = find(listing(ints, table1(ints, game_table)[K.G_MAX_MOVES]), n, code)
        if k < 0:
            return 0, n, False, K.ILLEGAL
        return play(state, child, k, code, n, ints, bits)

    return step


@inline
def no_throw(x, position, tables, work):
    """playout_kernel's `throw` for a form that plays no dice: the generator as it was."""
    return x


def playout_kernel(begin, status, advance, throw=no_throw):
    """Random games inside the kernel for a form: game g (numbered from `first_game`, for
    reproducibility across threads) starts from starts[number % len(starts)] and draws its moves
    uniformly with its own generator, seeded from (seed, number) (rng.py), so every form plays the
    same games for a seed. Writes plies played and the winner (0, 1, K.NONE a draw, K.CUT cut at
    max_plies, K.BAD_CODE a code without a branch) per game.

    The form hands in, for a position of its own (a tuple of scalars) and its `tables` and scratch
    `work` (made once per batch by the caller):
    `begin(starts, number, tables, work) -> position`: game `number`'s first position;
    `status(position, tables, work) -> (moves, over, winner, listed)`: the moves of the side to move
    (a forced pass counting as one) and the outcome (ends.end_rule); `listed` is what `advance`
    needs to find the k-th move;
    `advance(position, listed, k, tables, work) -> (position, bad)`: the position after the k-th
    move (bad: a code without a branch);
    `throw(x, position, tables, work) -> x`: the next turn's roll thrown from the game's generator
    after the move is drawn (the generic form's, on a stage with dice; a form without: no_throw).
    The loop is a leaf (jit.py) and the three are inlined into it: one function without reference
    counts, as a hand-written loop would be. (As leaves called every ply, the families' playouts
    ran 1.2x to 3x slower, measured; so did Othello's by 5% with its status a leaf inside the
    inlined status.) `tables` and `work` are made by the caller, a kernel."""

    @leaf
    def playouts(starts, first_game, seed, max_plies, tables, work, lengths, winners):
        """The random games of playout_kernel for one form.

        starts: int32[n_starts, n_cells + 4] — the positions games begin from
        tables: Program or Tables — the form's tables, by name
        work: tuple — the form's scratch, made once per batch by the caller (Othello's: 0, none)
        lengths, winners: int32[games] — written: each game's plies and winner
        first_game, seed, max_plies: the first game's number, the batch's seed, the cap on plies
        """
        for g in range(lengths.shape[0]):
            number = first_game + g
            x = game_generator(seed, number)
            position = begin(starts, number, tables, work)
            plies = 0
            while True:
                moves, over, won, listed = status(position, tables, work)
                if over:
                    winners[g] = won
                    break
                if plies >= max_plies:
                    winners[g] = K.CUT
                    break
                x, k = draw(x, moves)
                position, bad = advance(position, listed, k, tables, work)
                if bad:
                    winners[g] = K.BAD_CODE
                    break
                x = throw(x, position, tables, work)
                plies += 1
            lengths[g] = plies

    return playouts
