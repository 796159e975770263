"""End conditions and results: each concept's kernel meaning, written once (docs/language.md, "Ends").

A condition is read after every move, for "the mover" (who made the last move or pass) or the side
to move. It comes in up to three forms, one per way a kernel holds a position, each tested against
the others (tests/test_forms.py) and all against the reference interpreter:

- cells: the state array (the generic kernels);
- bits: the sides as bitboards (boards of ≤ 64 cells without wrap: the Othello and stepping-piece
  families);
- placed: a pure placement game, where a cell only ever goes from empty to a piece, so a line or a
  connection the mover has after its move goes through the cell just played (or was there at its
  previous move, when the same end would already have held): tested around that cell, and a
  connection kept in a union-find as pieces are placed.

The conditions decided by counts alone (no moves, a full board, no pieces, a ply cap) are read the
same in every form, by `counted`. Each form's dispatcher has one branch per condition code and
answers K.UNKNOWN for a code it has no branch for; `winner` does the same with K.BAD_CODE.
"""
import numpy as np

from . import codes as K
from .bitboards import popcount, shift
from .jit import inline, kernel, leaf

# --- conditions read from counts ------------------------------------------------------------------


@inline
def counted(cond, param, available, empties, to_move_pieces, ply):
    """A condition decided by counts: `available` moves of the side to move (a forced pass counts as
    one), empty cells, the side to move's pieces, plies played. K.UNKNOWN for a board condition."""
    if cond == K.NO_MOVES:
        return available == 0
    if cond == K.BOARD_FULL:
        return empties == 0
    if cond == K.NO_PIECES:
        return to_move_pieces == 0
    if cond == K.AFTER_PLIES:
        return ply >= param
    return K.UNKNOWN


@inline
def count(cells, size, v):
    """How many of the first `size` cells hold v.

    cells: int32[at least size] — a position (n_cells + 4) or a board
    """
    c = 0
    for i in range(size):
        if cells[i] == v:
            c += 1
    return c


# --- line K [exact] -------------------------------------------------------------------------------


@leaf
def line_cells(cells, mine, k, exact, lines, line_len, line_cyclic):
    """Whether `mine` has k in a row (a maximal run of exactly k with `exact`). A ring (a line of a
    wrapped board) is read from just after a cell that breaks the runs, so a run over the seam
    counts whole; a ring of nothing but the mover's pieces is one run of its length.

    cells: int32[n_cells + 4] — the position, read; mine: the mover's cell value
    lines: int32[n_lines, L] — every maximal line of the board
    line_len: int32[n_lines] — how many cells each holds
    line_cyclic: int32[n_lines] — 1 for a ring
    """
    for l in range(lines.shape[0]):
        length = line_len[l]
        start = 0
        if line_cyclic[l] != 0:
            start = -1
            for t in range(length):
                if cells[lines[l, t]] != mine:
                    start = t + 1
                    break
            if start < 0:  # the whole ring
                if length == k or (length > k and not exact):
                    return True
                continue
        run = 0
        for t in range(length + 1):
            if t < length and cells[lines[l, (start + t) % length]] == mine:
                run += 1
                continue
            if run == k or (run > k and not exact):
                return True
            run = 0
    return False


@leaf
def line_bits(me, k, exact, axes, bb_shift, bb_mask, opposite):
    """line_cells on a bitboard `me` (k ≥ 1, as the static checks require): from each run's first
    cell, k - 1 steps along each axis over the mover's pieces.

    me: a uint64 bitboard
    axes: int32[n_axes] — one direction per line axis
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction
    """
    for a in range(axes.shape[0]):
        d = axes[a]
        y = me & ~shift(me, d, bb_shift, bb_mask)  # first cells of runs
        for _ in range(k - 1):
            if y == 0:
                break
            y = shift(y, d, bb_shift, bb_mask) & me
        if exact:
            y &= ~shift(me, opposite[d], bb_shift, bb_mask)  # ... and the run stops there
        if y != 0:
            return True
    return False


@inline
def line_placed_bits(me, k, exact, axes, bb_shift, bb_mask, opposite):
    """line_bits in the placed form's ply loop: every axis shifted k - 1 times, with no exit that
    depends on the position (in a random game a run ends anywhere: line_bits' early exits and a
    walk from the cell played mispredict, and cost tic-tac-toe's plies more than half their
    time, measured). Inlined: the loop is a leaf, so its arrays cost no reference counts.

    me: a uint64 bitboard
    axes: int32[n_axes] — one direction per line axis
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction
    """
    found = np.uint64(0)
    for a in range(axes.shape[0]):
        d = axes[a]
        y = me & ~shift(me, d, bb_shift, bb_mask)  # first cells of runs
        for _ in range(k - 1):
            y = shift(y, d, bb_shift, bb_mask) & me
        if exact:
            y &= ~shift(me, opposite[d], bb_shift, bb_mask)  # ... and the run stops there
        found |= y
    return found != 0


@leaf
def _run_through(cells, at, d, e, mine, nbr, limit):
    """Length of the run of `mine` through `at` along directions d (forward) and e (back), capped
    at `limit` (a ring of a wrapped board would otherwise go round for ever).

    cells: int32[n_cells + 4] — the position, read
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way, -1 off the board
    """
    n = 1
    j = nbr[d, at]
    while j >= 0 and j != at and cells[j] == mine and n < limit:
        n += 1
        j = nbr[d, j]
    j = nbr[e, at]
    while j >= 0 and j != at and cells[j] == mine and n < limit:
        n += 1
        j = nbr[e, j]
    return n


@leaf
def line_through(cells, at, mine, k, exact, nbr, axes, opposite, ring):
    """line_cells for a line through `at` only (the placed form): `ring[a]` is the longest line
    along axis a (a ring's length on a wrapped board).

    cells: int32[n_cells + 4] — the position, read
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    axes: int32[n_axes] — one direction per line axis
    opposite: int32[n_dirs] — the opposite of each direction
    ring: int32[n_axes] — the longest line along each axis
    """
    for a in range(axes.shape[0]):
        d = axes[a]
        n = _run_through(cells, at, d, opposite[d], mine, nbr, ring[a])
        if n == k or (n > k and not exact):
            return True
    return False


# --- connect SIDES SIDES ----------------------------------------------------------------------------


@leaf
def connects_cells(cells, mine, start, goal, nbr, orth, size, stack, seen):
    """Whether the pieces `mine` join two sides (regions `start` and `goal`), stepping orthogonally.

    cells: int32[n_cells + 4] — the position, read; size: n_cells
    start, goal: int32[n_cells] — 1 for the cells of a side (rows of the program's regions)
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    orth: int32[n_dirs] — 1 for the orthogonal directions
    stack, seen: int32[at least n_cells] — scratch (new_work's: n_cells + 1)
    """
    top = 0
    for i in range(size):
        seen[i] = 0
    for i in range(size):
        if start[i] != 0 and cells[i] == mine:
            seen[i] = 1
            stack[top] = i
            top += 1
    while top > 0:
        top -= 1
        i = stack[top]
        if goal[i] != 0:
            return True
        for d in range(nbr.shape[0]):
            j = nbr[d, i]
            if orth[d] != 0 and j >= 0 and seen[j] == 0 and cells[j] == mine:
                seen[j] = 1
                stack[top] = j
                top += 1
    return False


@leaf
def connects_bits(me, start, goal, orth, bb_shift, bb_mask):
    """connects_cells on a bitboard: a flood fill of `me` from `start` until it meets `goal`.

    me, start, goal: uint64 bitboards
    orth: int32[n_dirs] — 1 for the orthogonal directions
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    """
    reach = me & start
    while reach != 0 and reach & goal == 0:
        grown = reach
        for d in range(orth.shape[0]):
            if orth[d] != 0:
                grown |= shift(reach, d, bb_shift, bb_mask)
        grown &= me
        if grown == reach:
            return False
        reach = grown
    return reach != 0


# The placed form keeps, per connect end, a union-find of the cells and of one node per side per
# player: each piece is joined, when placed, with its owner's orthogonal neighbours and with the
# nodes of the sides it lies on, so "does the mover join its sides" is two finds a ply. Each connect
# end has its own union-find: side nodes of two ends in one would join groups that do not touch.


@inline
def _side_node(size, player, side):
    """The node of the player's `side` (0 the first, 1 the second) of a connect end, past the cells."""
    return size + 2 * player + side


@inline
def _find(parent, i):
    """The root of i's set, halving the path on the way (each node visited skips to its grandparent).

    parent: int32[n_cells + 4] — one connect end's union-find (start_sets), changed in place
    """
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@inline
def _union(parent, a, b):
    """Merge a's and b's sets. The larger root stays the root, so the side nodes (past the cells)
    stay roots and a side test is short.

    parent: int32[n_cells + 4] — one connect end's union-find, changed in place
    """
    a, b = _find(parent, a), _find(parent, b)
    if a < b:
        parent[a] = b
    elif b < a:
        parent[b] = a


@inline
def _join(parent, cells, at, nbr, orth, first, second, size):
    """Put the piece on `at` into one connect end's sets: with its owner's pieces one orthogonal
    step away (the adjacency connects_cells walks) and with its owner's side nodes of the sides
    (regions `first`, `second`) that hold `at`.

    parent: int32[n_cells + 4] — the end's union-find, changed in place
    cells: int32[n_cells + 4] — the position, read; size: n_cells
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    orth: int32[n_dirs] — 1 for the orthogonal directions
    first, second: int32[n_cells] — 1 for the cells of each of the owner's sides
    """
    mine = cells[at]
    for d in range(nbr.shape[0]):
        j = nbr[d, at]
        if orth[d] != 0 and j >= 0 and cells[j] == mine:
            _union(parent, at, j)
    if first[at] != 0:
        _union(parent, at, _side_node(size, mine - 1, 0))
    if second[at] != 0:
        _union(parent, at, _side_node(size, mine - 1, 1))


@inline
def join_placed(sets, cells, at, nbr, orth, ends, regions, size):
    """Put the piece on `at` into the union-find of every connect end (sets[e] for end e).

    sets: int32[n_ends, n_cells + 4] — the ends' union-finds (start_sets), changed in place
    cells: int32[n_cells + 4] — the position, read (the piece on `at` placed); size: n_cells
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    orth: int32[n_dirs] — 1 for the orthogonal directions
    ends: int32[n_ends, E_COLS] — the program's ends
    regions: int32[n_regions, n_cells] — the program's regions
    """
    player = cells[at] - 1
    for e in range(ends.shape[0]):
        if ends[e, K.E_CONDITION] == K.CONNECT:
            side = ends[e, K.E_PARAM] + 2 * player  # the owner's two regions
            _join(sets[e], cells, at, nbr, orth, regions[side], regions[side + 1], size)


@kernel
def start_sets(cells, nbr, orth, ends, regions, size):
    """The connect ends' union-finds of a position (`sets` below): every node alone, then every
    piece joined as if just placed (a join only looks at the cells: any order will do).

    cells: int32[n_cells + 4] — the position, writable (a copy: the union-find code compiles once)
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    orth: int32[n_dirs] — 1 for the orthogonal directions
    ends: int32[n_ends, E_COLS] — the program's ends
    regions: int32[n_regions, n_cells] — the program's regions
    -> sets: int32[n_ends, n_cells + 4] — a new array (an end that is no connection: never read)
    """
    sets = np.empty((ends.shape[0], size + 4), np.int32)
    for e in range(ends.shape[0]):
        sets[e] = np.arange(size + 4)
    for i in range(size):
        if cells[i] > 0:
            join_placed(sets, cells, i, nbr, orth, ends, regions, size)
    return sets


@inline
def sides_joined(parent, mover, size):
    """Whether some group of the mover's touches both its sides of a connect end (a path between
    the two side nodes leaves the first side for the last time through one group).

    parent: int32[n_cells + 4] — the end's union-find; mover: 0 or 1; size: n_cells
    """
    return _find(parent, _side_node(size, mover, 0)) == _find(parent, _side_node(size, mover, 1))


# --- the dispatchers, one per form --------------------------------------------------------------


@inline
def holds_cells(state, cond, param, exact, available, lines, line_len, line_cyclic, regions, nbr, orth, stack, seen):
    """Whether end condition `cond` holds on the state (cells form): K.HOLDS, K.HOLDS_NOT or
    K.UNKNOWN. The program's tables it reads are arguments (not the Program: a step reads just
    these).

    state: int32[n_cells + 4] — the position, read; cond, param, exact: the end's row of `ends`
    lines: int32[n_lines, L] — every maximal line of the board
    line_len: int32[n_lines] — how many cells each holds
    line_cyclic: int32[n_lines] — 1 for a ring
    regions: int32[n_regions, n_cells] — the far rows, then the connect ends' sides
    nbr: int32[n_dirs, n_cells] — the neighbour of each cell each way
    orth: int32[n_dirs] — 1 for the orthogonal directions
    stack, seen: int32[n_cells + 1] — scratch for a connection
    """
    size = nbr.shape[1]
    mover = state[size + K.MOVER]
    if cond == K.NO_MOVES or cond == K.AFTER_PLIES:  # decided without counting the cells
        return counted(cond, param, available, 1, 1, state[size + K.PLY])
    if cond == K.BOARD_FULL:
        return counted(cond, param, available, count(state, size, 0), 1, 0)
    if cond == K.NO_PIECES:
        return counted(cond, param, available, 1, count(state, size, state[size + K.TO_MOVE] + 1), 0)
    if cond == K.LINE:
        return line_cells(state, mover + 1, param, exact != 0, lines, line_len, line_cyclic)
    if cond == K.REACH_FAR_ROW:
        far = regions[mover]
        for i in range(size):
            if far[i] != 0 and state[i] == mover + 1:
                return K.HOLDS
        return K.HOLDS_NOT
    if cond == K.CONNECT:
        return connects_cells(state, mover + 1, regions[param + 2 * mover], regions[param + 2 * mover + 1], nbr, orth,
                              size, stack, seen)
    return K.UNKNOWN


@inline
def holds_bits(cond, param, available, empty, to_move_pieces, mover_pieces, mover_far_row, ply):
    """holds_cells on bitboards, for the conditions read from scalars (bitboards of the empty
    cells, the side to move's pieces, the mover's pieces and far row): K.HOLDS, K.HOLDS_NOT,
    K.NEEDS_BOARD for a line or a connection (then call board_bits), K.UNKNOWN for another code.

    Scalars only, on purpose: an inlined helper that takes arrays and calls a kernel inside costs
    every ply a reference count per array, read or not (a stepping-piece playout ran 5x slower)."""
    c = counted(cond, param, available, empty != 0, to_move_pieces != 0, ply)  # counted reads `== 0`
    if c != K.UNKNOWN:
        return c
    if cond == K.REACH_FAR_ROW:
        return (mover_pieces & mover_far_row) != 0
    if cond == K.LINE or cond == K.CONNECT:
        return K.NEEDS_BOARD
    return K.UNKNOWN


@leaf
def board_bits(cond, param, exact, mine, mover, region_bits, orth, axes, bb_shift, bb_mask, opposite):
    """The conditions of the bitboard form read with the board's tables (`mine`: the mover's
    pieces): a line, a connection; K.UNKNOWN for another code.

    mine: a uint64 bitboard; mover: 0 or 1; cond, param, exact: the end's row of `ends`
    region_bits: uint64[n_regions] — the program's regions as bitboards
    orth: int32[n_dirs] — 1 for the orthogonal directions
    axes: int32[n_axes] — one direction per line axis
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction
    """
    if cond == K.LINE:
        return line_bits(mine, param, exact != 0, axes, bb_shift, bb_mask, opposite)
    if cond == K.CONNECT:
        return connects_bits(mine, region_bits[param + 2 * mover], region_bits[param + 2 * mover + 1], orth,
                             bb_shift, bb_mask)
    return K.UNKNOWN


@inline
def holds_placed(cond, param, available, empties, to_move_pieces, ply, last, last_on_far_row, sets, e, mover, size):
    """holds_cells in a pure placement game whose position changed only by the mover's piece on
    `last` since the board was last tested whole (-1: not at all, so no board condition holds):
    K.HOLDS, K.HOLDS_NOT, K.NEEDS_BOARD for a line (then line_through, around `last`), K.UNKNOWN
    for another code. `sets[e]` is end e's union-find (join_placed). It calls no kernel, so that
    the tables it is handed cost the ply loop nothing (see holds_bits).

    sets: int32[n_ends, n_cells + 4] — the connect ends' union-finds (placement's work)
    """
    c = counted(cond, param, available, empties, to_move_pieces, ply)
    if c != K.UNKNOWN:
        return c
    if cond == K.REACH_FAR_ROW:
        return last >= 0 and last_on_far_row
    if cond == K.CONNECT:
        # No connection at the start and each ply tested: a connection now is new, the mover's,
        # through `last`, as connects_cells would find it.
        return last >= 0 and sides_joined(sets[e], mover, size)
    if cond == K.LINE:
        return K.NEEDS_BOARD if last >= 0 else K.HOLDS_NOT
    return K.UNKNOWN


# --- the rule: the first end that holds decides ------------------------------------------------


def end_rule(holds, pieces):
    """The language's rule for a position, written once for every form: the ends are read in the
    stage's order and the first that holds decides; when none holds and the side to move has no
    move, the game is a draw (docs/language.md, "Ends").

    `holds(cond, param, exact, e, moves, mover, at, tables)`: whether end e (its condition, parameter
    and exact flag) holds in the position `at` (the form's own tuple) with `moves` moves for the side
    to move (a forced pass counting as one) and `mover` the player who moved last: K.HOLDS,
    K.HOLDS_NOT or K.UNKNOWN for a code the form has no branch for. `pieces(at, tables)`: the two
    players' piece counts (read only once an end holds: a result may need them).

    The returned helper, `(ends, moves, mover, at, tables) -> (over, winner)`, is inlined into the
    form's status: winner is 0, 1, K.NONE (a draw, or a game still going) or K.BAD_CODE (over: a
    code without a branch)."""

    @inline
    def decide(ends, moves, mover, at, tables):
        """The first end that holds decides (end_rule): (over, winner).

        ends: int32[n_ends, E_COLS] — the program's ends, in the stage's order
        at: tuple — the form's position (its `holds` says what it holds)
        tables: Program or Tables — the form's tables, read by name
        """
        for e in range(ends.shape[0]):
            holds_now = holds(ends[e, K.E_CONDITION], ends[e, K.E_PARAM], ends[e, K.E_EXACT], e, moves, mover, at,
                              tables)
            if holds_now == K.UNKNOWN:
                return True, K.BAD_CODE
            if holds_now:
                first, second = pieces(at, tables)
                return True, winner(ends[e, K.E_RESULT], mover, first, second)
        return moves == 0, K.NONE  # nobody decided, and the side to move cannot move: a draw

    return decide


# The forms' readings of one end for end_rule: `at` is the form's position, `tables` a record
# (namedtuple) of the board's tables, read by name.


@inline
def _holds_cells(cond, param, exact, e, moves, mover, at, tables):
    """end_rule's reading of an end in the cells form.

    at: tuple — (state int32[n_cells + 4], stack int32[n_cells + 1], seen int32[n_cells + 1])
    tables: Program or Tables — lines, line_len, line_cyclic, regions, nbr, orth read by name
    """
    state, stack, seen = at
    return holds_cells(state, cond, param, exact, moves, tables.lines, tables.line_len, tables.line_cyclic,
                       tables.regions, tables.nbr, tables.orth, stack, seen)


@inline
def pieces_cells(at, tables):
    """The players' piece counts of a cells form's `at`.

    at: tuple — _holds_cells's (the state int32[n_cells + 4] first)
    tables: Program or Tables — nbr read (its width is n_cells)
    """
    size = tables.nbr.shape[1]
    return count(at[0], size, 1), count(at[0], size, 2)


first_end_cells = end_rule(_holds_cells, pieces_cells)


@inline
def _holds_bits(cond, param, exact, e, moves, mover, at, tables):
    """end_rule's reading of an end in the bitboard form.

    at: tuple — (empty cells, the side to move's pieces, first player's, second's: uint64
        bitboards; ply)
    tables: Tables — regions (uint64[n_regions], as bitboards), orth, axes, bb_shift, bb_mask,
        opposite read by name
    """
    empty, to_move, first, second, ply = at
    mine = first if mover == 0 else second
    holds = holds_bits(cond, param, moves, empty, to_move, mine, tables.regions[mover], ply)
    if holds == K.NEEDS_BOARD:  # a line, a connection: the kernel call stays out of holds_bits
        holds = board_bits(cond, param, exact, mine, mover, tables.regions, tables.orth, tables.axes,
                           tables.bb_shift, tables.bb_mask, tables.opposite)
    return holds


@inline
def pieces_bits(at, tables):
    """The players' piece counts of a bitboard form's `at`.

    at: tuple — _holds_bits's (uint64 bitboards, the players' pieces third and fourth)
    """
    return popcount(at[2]), popcount(at[3])


first_end_bits = end_rule(_holds_bits, pieces_bits)


@inline
def _holds_placed(cond, param, exact, e, moves, mover, at, tables):
    """end_rule's reading of an end in the placed form (holds_placed, then a line on bitboards, or
    line_through on a larger or wrapped board).

    at: tuple — (state int32[n_cells + 4], counts int64[2], empties, player, ply, last, last on
        the mover's far row, sets int32[n_ends, n_cells + 4]: the union-finds, the mover's pieces
        as a uint64 bitboard: kept on a board of at most 64 cells, game[G_BITBOARD])
    tables: Tables — game, nbr, axes, opposite, ring (the longest line per axis), bb_shift, bb_mask
        read by name
    """
    state, counts, empties, player, ply, last, on_far_row, sets, mine = at
    holds = holds_placed(cond, param, moves, empties, counts[player], ply, last, on_far_row, sets, e, mover,
                         tables.nbr.shape[1])
    if holds == K.NEEDS_BOARD:  # a line: the kernel call stays out of the inlined helper
        if tables.game[K.G_BITBOARD]:
            # shifts over the whole board, without the data-dependent exits of a walk from `last`
            # (mispredicted in a random game: a walk cost tic-tac-toe's plies more than half their
            # time, measured); no line was there before this ply, so one now is through `last`
            holds = line_placed_bits(mine, param, exact != 0, tables.axes, tables.bb_shift, tables.bb_mask,
                                     tables.opposite)
        else:
            holds = line_through(state, last, mover + 1, param, exact != 0, tables.nbr, tables.axes, tables.opposite,
                                 tables.ring)
    return holds


@inline
def _pieces_placed(at, tables):
    """The players' piece counts of a placed form's `at`, kept as it plays.

    at: tuple — _holds_placed's (counts int64[2] second)
    """
    return at[1][0], at[1][1]


first_end_placed = end_rule(_holds_placed, _pieces_placed)

# --- results ----------------------------------------------------------------------------------------


@inline
def winner(result, mover, first, second):
    """Who wins by `result` (0, 1, or K.NONE for a draw) when the mover made the last move and the
    players have `first` and `second` pieces; K.BAD_CODE for a result this has no branch for."""
    if result == K.MOVER_WINS:
        return mover
    if result == K.MOVER_LOSES:
        return 1 - mover
    if result == K.DRAW:
        return K.NONE
    if result == K.MOST_PIECES or result == K.FEWEST_PIECES:
        if first == second:
            return K.NONE
        more = 0 if first > second else 1
        return more if result == K.MOST_PIECES else 1 - more
    return K.BAD_CODE
