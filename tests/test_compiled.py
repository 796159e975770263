"""The compiled game (compiler/) held to the reference interpreter (gdl.reference), move for move.

- the exported conformance check on every bundled stage;
- differential play: reference and compiled game stepped in lockstep with the same random
  choices, comparing legal move lists (order included), boards, side to move, mover, ply,
  capture counts, terminal flags and returns at every position;
- hypothesis: move sequences on bundled stages, and random stages (every board kind, move kind,
  effect, turn order and end) that pass the static checks;
- the 280 recorded Othello AI Arena games, the golden perft counts and playthroughs;
- the in-kernel playouts: reproducible, the same on any number of threads, the same games the
  reference plays with the kernel's generator, and the right statistics.

A mismatch is reported with the stage text and the moves that lead to it, so it can be replayed.
"""
from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import test_arena as arena  # the recorded games and their board encoding (a module: not re-collected)
from ludica import compiler, gdl, stages
from ludica.compiler import codes as K
from ludica.gdl import PASS, Move
from ludica.gdl.arena import from_arena
from ludica.gdl.checks import check_stage
from ludica.gdl.conformance import check_game
from ludica.gdl.interpreter import chance
from ludica.gdl.interpreter.game import ChanceNotPlayed
from ludica.sampler import cost
from bundled import PERFECT
from playthrough import replay
from strategies import othello_like_stages, placement_stages, playable_stages, stepping_stages

BUNDLED = PERFECT  # the hidden stages' kernels: tests/test_dark_kernels.py
GOLDEN = Path(__file__).parent / "golden"
PERFT = json.loads((GOLDEN / "perft.json").read_text())
# Perft depths whose leaf count is at most this run in the regular suite; the slow suite runs all.
FAST_PERFT_LEAVES = 2_000_000

# Random games per bundled stage in the differential test (regular run; the slow suite plays 5x).
# The reference interpreter costs 0.1-2 ms a ply, so long games on big boards get fewer.
GAMES = {
    "tic-tac-toe": 400, "misere-tic-tac-toe": 400, "connect-four": 300, "mnk-5-6-4": 300,
    "small-board-6x6": 200, "standard-8x8": 100, "reverse-othello": 80, "othello-split-setup": 80,
    "fewer-pieces-continue": 80, "partial-c-squares-cw": 80, "c-squares-occlusion-agnostic": 80, "othello-random-setup": 80,
    "othello-random-blocks": 80,
    "othello-10x10": 40, "breakthrough": 100, "custodian": 40, "ataxx": 12, "hex-11": 15, "gomoku": 6,
    "dice-race": 200,
}


@cache
def bundled_games(name: str):
    stage = gdl.load(BUNDLED[name])
    return gdl.reference(stage), compiler.compile(stage)


def test_every_bundled_stage_has_a_game_count():
    assert set(GAMES) == set(BUNDLED)


# --- lockstep comparison ---------------------------------------------------------------------------


def _extras(game, state) -> tuple[int, int, int]:
    """(mover, ply, roll) of a state of either implementation."""
    if isinstance(state, np.ndarray):
        n = game.rows * game.cols
        return int(state[n + K.MOVER]), int(state[n + K.PLY]), int(state[n + K.ROLL])
    return state.mover, state.ply, state.roll


class Lockstep:
    """A reference game and a compiled game of one stage, stepped together; every difference is
    an AssertionError naming the stage and the moves that lead to it."""

    def __init__(self, ref, comp, label: str, seed: int = 0):
        self.ref, self.comp, self.label, self.seed = ref, comp, label, seed
        self.rs, self.cs = ref.start(seed), comp.start(seed)
        self.moves: list[Move] = []

    def where(self) -> str:
        return f"{self.label}\nafter moves: {' '.join(map(str, self.moves)) or '(none)'}"

    def compare(self) -> list[Move]:
        """Compare the current positions; return the legal moves (empty at the end)."""
        ref, comp, rs, cs = self.ref, self.comp, self.rs, self.cs
        rb, cb = ref.board(rs), comp.board(cs)
        assert np.array_equal(rb, cb), f"boards differ: reference\n{rb}\ncompiled\n{cb}\n{self.where()}"
        assert comp.to_move(cs) == ref.to_move(rs), (
            f"to_move: reference {ref.to_move(rs)}, compiled {comp.to_move(cs)}\n{self.where()}")
        assert _extras(comp, cs) == _extras(ref, rs), (
            f"(mover, ply, roll): reference {_extras(ref, rs)}, compiled {_extras(comp, cs)}\n{self.where()}")
        rt, ct = ref.is_terminal(rs), comp.is_terminal(cs)
        assert ct == rt, f"is_terminal: reference {rt}, compiled {ct}\n{self.where()}"
        assert comp.returns(cs) == ref.returns(rs), (
            f"returns: reference {ref.returns(rs)}, compiled {comp.returns(cs)}\n{self.where()}")
        rm, cm = ref.legal_moves(rs), comp.legal_moves(cs)
        assert cm == rm, (f"legal moves: reference {' '.join(map(str, rm))}\n"
                          f"               compiled {' '.join(map(str, cm))}\n{self.where()}")
        return rm

    def play(self, move: Move) -> None:
        rs, rt = self.ref.apply_counted(self.rs, move)
        cs, ct = self.comp.apply_counted(self.cs, move)
        # the next roll, each engine's own (one definition: gdl/interpreter/chance.py), the referee's
        # of this seed; their own dice only on a stage without (thrown: the state itself)
        rs, cs = self.ref.thrown(rs, self.seed), self.comp.thrown(cs, self.seed)
        self.moves.append(move)
        assert not cs.flags.writeable, f"a compiled state must be read-only\n{self.where()}"
        assert ct == rt, f"capture count of {move}: reference {rt}, compiled {ct}\n{self.where()}"
        self.rs, self.cs = rs, cs

    def explore(self, depth: int) -> int:
        """Compare every position of the move tree to `depth` plies from here; returns how many."""
        legal = self.compare()
        if depth == 0 or not legal:
            return 1
        rs, cs, seen = self.rs, self.cs, 1
        for move in legal:
            self.play(move)
            seen += self.explore(depth - 1)
            self.rs, self.cs = rs, cs
            self.moves.pop()
        return seen

    def run(self, pick, max_plies: int = 100_000) -> int:
        """Play until the game ends or max_plies, `pick(legal) -> move`; returns the plies."""
        while True:
            legal = self.compare()
            if not legal or len(self.moves) >= max_plies:
                return len(self.moves)
            self.play(pick(legal))


def stage_label(stage) -> str:
    return "stage:\n" + gdl.format(stage)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_compiled_conforms(name):
    _, comp = bundled_games(name)
    assert check_game(comp, games=3 if name in ("gomoku", "hex-11", "ataxx") else 10, seed=11) > 10


def _differential(name: str, games: int, first_seed: int = 0) -> None:
    ref, comp = bundled_games(name)
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        Lockstep(ref, comp, f"{name} (seed {seed})", seed).run(rng.choice)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_differential_random_games(name):
    _differential(name, GAMES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_differential_random_games_deep(name):
    _differential(name, 5 * GAMES[name], first_seed=10_000)


# --- hypothesis ------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(BUNDLED)), picks=st.lists(st.integers(0, 2**16), max_size=70))
def test_bundled_move_sequences(name, picks):
    ref, comp = bundled_games(name)
    game = Lockstep(ref, comp, name)
    for p in picks:
        legal = game.compare()
        if not legal:
            return
        game.play(legal[p % len(legal)])
    game.compare()
    # a random game from the position reached, in the kernel and in the reference
    label = f"{name}, from the position after {' '.join(map(str, game.moves)) or '(no move)'}"
    _same_playouts(ref, comp, label, n=1, seed=len(picks), max_plies=150, start=(game.rs, game.cs))


def _errors(stage) -> list:
    return [d for d in check_stage(stage) if d.is_error]


# Plies of a compared game on a random stage: ends like `after 120 plies` or `no-moves` on a
# stage where pieces only shuffle could otherwise run long.
RANDOM_STAGE_PLIES = 200


def known_bug(stage) -> str | None:
    """Why a stage falls in a known, not yet fixed disagreement of the compiler, or None.
    Random stages that hit one are skipped, so the properties keep looking for new ones; each
    entry goes with a reproducer below marked `xfail(strict=True)`, and leaves when that passes.
    (None at the moment. Found and fixed so far: moves listed twice on small wrapped boards,
    reproduced by the torus tests below; a writeable state refilled in place answered with its
    old content, reproduced by test_a_state_changed_in_place_is_read_again.)"""
    return None


def check_random_stage(stage, seed: int) -> None:
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    label = stage_label(stage)
    rng = random.Random(seed)
    for _ in range(2):
        Lockstep(ref, comp, label).run(rng.choice, RANDOM_STAGE_PLIES)
    # The in-kernel playouts play the games the reference plays with the kernel's generator.
    _same_playouts(ref, comp, label, n=2, seed=seed % 1000, max_plies=RANDOM_STAGE_PLIES)
    _same_fast_playouts(comp, label, seed % 1000, n=10)
    # And the in-kernel perft counts the reference's tree.
    for depth in (1, 2):
        assert comp.perft(depth) == gdl.perft(ref, depth), f"perft {depth}\n{label}"
    if ref.rows * ref.cols <= 9:  # a tiny board: every position of the first plies
        Lockstep(ref, comp, label).explore(3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(stage=playable_stages(), seed=st.integers(0, 2**32 - 1))
def test_random_stages(stage, seed):
    assume(not _errors(stage))
    assume(known_bug(stage) is None)
    check_random_stage(stage, seed)


def _fast_family_property(stages_of_the_family):
    """The property of check_fast_family on random stages of one family."""
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(stage=stages_of_the_family, seed=st.integers(0, 2**32 - 1))
    def test(stage, seed):
        assume(not _errors(stage))
        assume(known_bug(stage) is None)
        check_fast_family(stage, seed)
    return test


test_othello_family_stages = _fast_family_property(othello_like_stages())
test_placement_family_stages = _fast_family_property(placement_stages())
test_stepping_family_stages = _fast_family_property(stepping_stages())


def check_fast_family(stage, seed: int) -> None:
    """Families with their own code paths (the Othello family: bitboard legality tests and
    playouts; pure placement games: ends tested around the new cell; stepping pieces: bitboard
    playouts) held to the reference, and
    their fast playouts to the generic kernels' games, from the start and from later positions."""
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    label = stage_label(stage)
    game = Lockstep(ref, comp, label)
    game.run(random.Random(seed).choice, RANDOM_STAGE_PLIES)
    _same_fast_playouts(comp, label, seed % 997)
    _same_playouts(ref, comp, label, n=2, seed=seed % 997, max_plies=RANDOM_STAGE_PLIES)
    if len(game.moves) > 2:  # from a position on the way
        middle = Lockstep(ref, comp, label)
        middle.run(random.Random(seed).choice, len(game.moves) // 2)
        _same_fast_playouts(comp, label, seed % 997, state=middle.cs)
        _same_playouts(ref, comp, label, n=2, seed=seed % 997, max_plies=RANDOM_STAGE_PLIES,
                       start=(middle.rs, middle.cs))


def _same_fast_playouts(comp, label: str, seed: int, state=None, n: int = 60) -> None:
    for max_plies in (RANDOM_STAGE_PLIES, 7):
        fast = comp.playouts(n, seed=seed, state=state, max_plies=max_plies)
        generic = comp.playouts(n, seed=seed, state=state, max_plies=max_plies, generic=True)
        assert (np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)
                and fast.cut == generic.cut), (
            f"fast playouts ({comp.fast_playouts}) differ from the generic kernels' (seed {seed}, "
            f"max_plies {max_plies}{'' if state is None else ', from ' + str(state.tolist())})\n{label}")


# Reproducers of disagreements found by the properties above (see known_bug).

SMALL_TORUS_STEP = """\
game "step on a 2x2 torus"
board square 2 wrap
players black white
setup black a1
move step all to empty
end no-moves: mover wins
"""


def test_small_torus_moves_are_listed_once():
    # e and w (and n and s, and the four diagonals) reach the same cell: one move each
    stage = gdl.loads(SMALL_TORUS_STEP)
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    assert [str(m) for m in comp.legal_moves(comp.initial_state())] == ["a1-b1", "a1-a2", "a1-b2"]
    Lockstep(ref, comp, SMALL_TORUS_STEP).run(random.Random(0).choice, 50)
    assert comp.perft(3) == gdl.perft(ref, 3)


def test_slides_round_a_torus_are_listed_once():
    text = SMALL_TORUS_STEP.replace("board square 2 wrap", "board rect 1 4 wrap").replace("step all", "slide all")
    stage = gdl.loads(text)
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    assert [str(m) for m in comp.legal_moves(comp.initial_state())] == ["a1-b1", "a1-c1", "a1-d1"]
    Lockstep(ref, comp, text).run(random.Random(0).choice, 50)
    assert comp.perft(4) == gdl.perft(ref, 4)


# --- hand-written stages for combinations no bundled stage has ----------------------------------

DIRECTED = {
    "hex-torus-slides": """game "slides on a hex torus, removing"
board hex 5 wrap
players black white
forward black down, white up
setup black a1 c1 e1
setup white a5 c5 e5
move slide forward sideways to any
  remove custodial all
end no-pieces: mover wins
end after 60 plies: most-pieces
""",
    "again-after-capture-over-blocked": """game "custodian again, over blocked cells"
board square 6
blocked c3 d4
players black white
move place empty
  remove custodial orthogonal over-blocked
turn again-after-capture
end board-full: most-pieces
end after 60 plies: most-pieces
""",
    "torus-ataxx": """game "Ataxx on a torus"
board square 5 wrap
players red blue
setup red a1
setup blue c3
move clone 1 to empty
  convert adjacent all
move jump 2 to empty
  convert adjacent orthogonal
pass forced
end no-pieces: mover wins
end no-moves: most-pieces
end after 120 plies: most-pieces
""",
    "fewer-pieces-piece-moves": """game "fewer pieces moves, breakthrough-like"
board rect 5 6
players black white
forward black down, white up
setup black a1..f1
setup white a5..f5
move step forward forward-diagonal to empty
move step forward-diagonal to enemy
move jump 2 to enemy
turn fewer-pieces
end reach far-row: mover wins
end no-pieces: mover wins
end after 100 plies: draw
""",
    "line-exact-torus": """game "4 exactly on a 4x5 torus"
board rect 4 5 wrap
players x o
move place empty
end line 4 exact: mover wins
end board-full: draw
""",
    "whole-ring": """game "a whole ring of 5"
board rect 3 5 wrap
players x o
move place empty
end line 5 exact: mover wins
end line 3 exact: mover loses
end board-full: draw
""",
    "hex-torus-connect": """game "Hex on a torus"
board hex 5 wrap
players red blue
move place empty
end connect top-bottom left-right: mover wins
end board-full: draw
""",
    "connect-same-sides": """game "both connect left-right"
board square 5
blocked c3
players red blue
setup red a1 e1
setup blue a5 e5
move place adjacent
move place empty
  convert adjacent all
  require capture
end connect left-right left-right: mover wins
end board-full: fewest-pieces
""",
    "sideways-far-row": """game "racing sideways"
board square 6
players black white
forward black right, white left
setup black a1..a6
setup white f1..f6
move step forward sideways to empty
move step forward-diagonal to enemy
end reach far-row: mover wins
end no-moves: mover loses
""",
    "gravity-flips": """game "gravity with flips"
board rect 6 7
blocked d3 d4
players red yellow
setup red d6
setup yellow c6
move place gravity
  flip custodial all
move place adjacent
  flip custodial all over-blocked
  require capture
pass forced
end line 4: mover wins
end board-full: most-pieces
""",
    "torus-slides-flips": """game "slides and flips on a torus"
board square 4 wrap
players black white
setup black a1 c3
setup white b2 d4
move slide orthogonal to any
  flip custodial diagonal
move place adjacent
  convert adjacent orthogonal
  require capture
turn again-after-capture
end no-pieces: mover wins
end after 50 plies: fewest-pieces
""",
    "hex-headings": """game "hex with headings"
board hex 6
players black white
forward black down, white up
setup black a1..f1
setup white a6..f6
move step forward to empty
move step sideways to enemy
move slide backward to enemy
end reach far-row: mover wins
end no-pieces: mover wins
end no-moves: draw
""",
    "rect-torus-diagonal-rays": """game "diagonal rings longer than a side"
board rect 2 3 wrap
players black white
setup black a1
setup white c2
move slide diagonal to any
  remove custodial all over-blocked
move place empty
  flip custodial e w
  require capture
pass forced
end after 40 plies: most-pieces
end no-moves: most-pieces
""",
    "first-rule-refuses": """game "the first rule refuses, the second plays"
board square 5
players black white
setup black a1 c1 e1 b2 d2
setup white a5 c5 e5 b4 d4
move step all to any
  flip custodial all
  require capture
move step orthogonal to empty
move slide diagonal to enemy
  remove custodial orthogonal
end no-pieces: mover wins
end after 80 plies: most-pieces
""",
}


@pytest.mark.parametrize("name", sorted(DIRECTED))
def test_directed_stages(name):
    text = DIRECTED[name]
    stage = gdl.loads(text)
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    plies = [Lockstep(ref, comp, text).run(random.Random(seed).choice, 300) for seed in range(40)]
    assert max(plies) > 5, "the stage should give games worth comparing"
    _same_playouts(ref, comp, text, n=10, seed=5, max_plies=300)
    assert [comp.perft(d) for d in (1, 2, 3)] == [gdl.perft(ref, d) for d in (1, 2, 3)], text
    check_game(comp, games=3, seed=1, max_plies=1000)


RING = """\
game "a ring of six"
board rect 1 6 wrap
players x o
setup x b1 c1 d1 e1
setup o f1
move place empty
  remove custodial w
turn again-after-capture
end line LINE: mover wins
end board-full: draw
"""


@pytest.mark.parametrize("line", ["6", "6 exact", "5", "5 exact", "3 exact", "2"])
def test_whole_ring_lines(line):
    # x on a1 removes o's f1 across the seam and moves again: f1 closes a ring of six
    text = RING.replace("LINE", line)
    stage = gdl.loads(text)
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    assert Lockstep(ref, comp, text).explore(6) > 1
    assert comp.perft(6) == gdl.perft(ref, 6)
    after = comp.apply(comp.initial_state(), Move.parse("a1"))  # x: a run of 5 on a ring of 6
    if line in ("5", "5 exact", "2"):
        assert comp.is_terminal(after) and comp.returns(after) == (1.0, -1.0)
        return
    after = comp.apply(after, Move.parse("f1"))  # the whole ring
    assert comp.is_terminal(after) and comp.returns(after) == ((0.0, 0.0) if line == "3 exact" else (1.0, -1.0))


# Big boards (26 columns, 26 rows, a 64-cell rectangle at the bitboard limit): slow on the reference.
BIG = {
    "torus-3x26-slides-jumps": """game "big torus"
board rect 3 26 wrap
players a b
setup a a1..y1
setup b a3..y3
move slide all to any
  flip custodial all over-blocked
move jump 7 to enemy
end no-pieces: mover wins
end line 20 exact: mover loses
end after 150 plies: most-pieces
""",
    "square-26-remove-again": """game "26 square"
board square 26
blocked m13 n14
players a b
move place empty
  remove custodial orthogonal over-blocked
turn again-after-capture
end line 6 exact: mover wins
end after 120 plies: most-pieces
""",
    "hex-12-torus-clones": """game "hex 12 wrap clone"
board hex 12 wrap
players a b
setup a a1 f6
setup b l12 g7
move clone 4 to any
  convert adjacent all
end no-pieces: mover wins
end connect top-bottom left-right: mover wins
end after 100 plies: most-pieces
""",
    "rect-4x16-bitboard": """game "rect 4x16 othello bitboard 64"
board rect 4 16
blocked h2
players a b
setup a h3 i2
setup b h4 i3
move place empty
  flip custodial all over-blocked
  require capture
turn fewer-pieces
pass forced
end board-full: fewest-pieces
end no-moves: most-pieces
""",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BIG))
def test_big_boards(name):
    text = BIG[name]
    stage = gdl.loads(text)
    ref, comp = gdl.reference(stage), compiler.compile(stage)
    plies = [Lockstep(ref, comp, text).run(random.Random(seed).choice, 200) for seed in range(4)]
    assert max(plies) > 5
    _same_playouts(ref, comp, text, n=2, seed=3, max_plies=200)
    if name.endswith("bitboard"):
        check_fast_family(stage, 5)


# --- the Arena games -------------------------------------------------------------------------------

@cache
def _arena_game(config: str):
    return compiler.compile(from_arena(json.loads(config)))


@pytest.mark.parametrize("record", arena._GAMES, ids=[f"{g['stage']}#{i}" for i, g in enumerate(arena._GAMES)])
def test_replay_arena_game(record):
    arena.replay(_arena_game(json.dumps(record["cfg"], sort_keys=True)), record)


def test_arena_games_cover_seven_stages():
    assert len(arena._GAMES) == 280 and len({g["stage"] for g in arena._GAMES}) == 7


# --- golden files ----------------------------------------------------------------------------------


def _perft_depths(name: str, slow: bool):
    return [(d, n) for d, n in enumerate(PERFT[name], 1) if slow or n <= FAST_PERFT_LEAVES]


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_golden_perft(name):
    _, comp = bundled_games(name)
    if comp.stage.roll is not None:  # the kernels' move tree has no chance nodes: refused by name
        with pytest.raises(ChanceNotPlayed, match="perft.*dice"):
            comp.perft(1)
        return
    for depth, leaves in _perft_depths(name, slow=False):
        assert comp.perft(depth) == leaves, f"{name} depth {depth}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_golden_perft_deep(name):
    _, comp = bundled_games(name)
    if comp.stage.roll is not None:
        return  # refused, as test_golden_perft checks
    for depth, leaves in _perft_depths(name, slow=True):
        assert comp.perft(depth) == leaves, f"{name} depth {depth}"


def test_othello_perft_depths_7_and_8():
    _, comp = bundled_games("standard-8x8")
    assert comp.perft(7) == 55092
    assert comp.perft(8) == 390216


@pytest.mark.slow
def test_othello_perft_depth_10():
    _, comp = bundled_games("standard-8x8")
    assert comp.perft(10) == 24571284


def test_perft_from_a_state():
    ref, comp = bundled_games("standard-8x8")
    cs, rs = comp.initial_state(), ref.initial_state()
    for text in ("d3", "c5", "f6"):
        cs, rs = comp.apply(cs, Move.parse(text)), ref.apply(rs, Move.parse(text))
    assert [comp.perft(d, cs) for d in range(4)] == [gdl.perft(ref, d, rs) for d in range(4)]
    assert comp.perft(0) == 1
    _, ttt = bundled_games("tic-tac-toe")
    s = ttt.initial_state()
    for text in ("a1", "b1", "a2", "b2", "a3"):
        s = ttt.apply(s, Move.parse(text))
    assert ttt.is_terminal(s) and [ttt.perft(d, s) for d in range(3)] == [1, 1, 1]  # a finished game is a leaf


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_golden_playthrough(name):
    _, comp = bundled_games(name)
    expected = (GOLDEN / "playthroughs" / f"{name}.txt").read_text()
    assert replay(comp, expected) == expected


# --- playouts --------------------------------------------------------------------------------------

class KernelRng:
    """The generator of the playout kernels, in Python (sampler/cost.py writes it again for τ):
    game g of seed s draws its moves from a xorshift generator seeded by splitmix(s *
    0x2545F4914F6CDD1D + g), a move index by a multiply-high."""

    def __init__(self, seed: int, game: int):
        self.x = cost.game_generator(seed, game)

    def choice(self, legal: list):
        self.x, k = cost.draw(self.x, len(legal))
        return legal[k]

    def thrown(self, ref, state):
        """`state` with the next roll thrown as the kernels throw it, after the move (dice only)."""
        if ref.stage.roll is None:
            return state
        self.x, roll = chance.thrown(ref.stage.roll, self.x)
        return ref.with_roll(state, roll)


def _same_playouts(ref, comp, label: str, n: int, seed: int, max_plies: int = 100_000, start=None) -> None:
    """comp.playouts(n, seed) are the games the reference plays with the kernel's generator
    (from `start`, a (reference state, compiled state) pair of one position, if given)."""
    rs, cs = (ref.initial_state(), None) if start is None else start
    p = comp.playouts(n, seed=seed, max_plies=max_plies, state=cs)
    cut = 0
    for g in range(n):
        state, plies = rs, 0
        rng = KernelRng(seed, g)
        while not ref.is_terminal(state) and plies < max_plies:
            state = rng.thrown(ref, ref.apply(state, rng.choice(ref.legal_moves(state))))
            plies += 1
        over = ref.is_terminal(state)
        cut += not over
        expected = ref.returns(state) if over else (0.0, 0.0)
        assert (int(p.lengths[g]), tuple(p.returns[g])) == (plies, expected), (
            f"playout {g} of seed {seed}: kernel {p.lengths[g]} plies, returns {tuple(p.returns[g])}; "
            f"the reference with the kernel's generator: {plies} plies, returns {expected}\n{label}")
    assert p.cut == cut, f"cut: kernel {p.cut}, reference {cut}\n{label}"


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_playouts_are_the_reference_games(name):
    ref, comp = bundled_games(name)
    n = 2 if name in ("gomoku", "hex-11", "ataxx", "custodian", "othello-10x10") else 10
    _same_playouts(ref, comp, name, n=n, seed=7)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_fast_playouts_are_the_generic_kernels_games(name):
    _, comp = bundled_games(name)
    n = 20 if name in ("gomoku", "hex-11", "ataxx") else 300
    for max_plies in (100_000, 25):
        fast = comp.playouts(n, seed=13, max_plies=max_plies)
        generic = comp.playouts(n, seed=13, max_plies=max_plies, generic=True)
        assert np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)
        assert fast.cut == generic.cut


def test_playouts_cut_at_max_plies():
    ref, comp = bundled_games("standard-8x8")
    p = comp.playouts(50, seed=3, max_plies=5)  # no Othello game ends within 5 plies
    assert p.cut == 50 and (p.lengths == 5).all() and (p.returns == 0).all()
    _same_playouts(ref, comp, "standard-8x8", n=5, seed=3, max_plies=30)


def test_playouts_reproducible():
    _, comp = bundled_games("standard-8x8")
    a, b = comp.playouts(500, seed=42), comp.playouts(500, seed=42)
    assert np.array_equal(a.lengths, b.lengths) and np.array_equal(a.returns, b.returns)
    c = comp.playouts(500, seed=43)
    assert not np.array_equal(a.lengths, c.lengths)
    assert a.lengths.dtype.kind == "i" and a.lengths.shape == (500,) and a.returns.shape == (500, 2)


@pytest.mark.parametrize("name", ["standard-8x8", "breakthrough", "connect-four"])
def test_playouts_threads_play_the_same_games(name):
    _, comp = bundled_games(name)
    one = comp.playouts(801, seed=5, threads=1)
    for threads in (2, 3):
        more = comp.playouts(801, seed=5, threads=threads)
        assert np.array_equal(one.lengths, more.lengths) and np.array_equal(one.returns, more.returns), threads
    assert one.cut == 0
    # The first games do not depend on how many are played.
    few = comp.playouts(10, seed=5)
    assert np.array_equal(few.lengths, one.lengths[:10]) and np.array_equal(few.returns, one.returns[:10])


def test_playouts_outcomes_are_consistent():
    for name in sorted(BUNDLED):
        _, comp = bundled_games(name)
        p = comp.playouts(40 if name in ("gomoku", "hex-11", "ataxx") else 400, seed=1, threads=2)
        assert (p.lengths > 0).all(), name
        assert p.cut == 0, name
        outcomes = {tuple(r) for r in p.returns}
        assert outcomes <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}, (name, outcomes)


def test_playouts_from_states():
    ref, comp = bundled_games("standard-8x8")
    states = [comp.initial_state()]
    for text in ("d3", "c5", "f6"):
        states.append(comp.apply(states[-1], Move.parse(text)))
    batch = np.stack(states)
    m, n = len(states), 37
    p = comp.playouts_from(batch, n, seed=9)
    assert p.lengths.shape == (m, n) and p.returns.shape == (m, n, 2)
    for i, state in enumerate(states):
        # Game j from state i is game number j*m + i of the batch: the game playouts() numbers
        # the same way from that state alone.
        alone = comp.playouts(n * m, seed=9, state=state)
        assert np.array_equal(p.lengths[i], alone.lengths[i::m]), i
        assert np.array_equal(p.returns[i], alone.returns[i::m]), i
        assert (p.lengths[i] > 0).all() and {tuple(r) for r in p.returns[i]} <= {(1, -1), (-1, 1), (0, 0)}
    # Games from a later position are shorter (the plies already played are not counted).
    assert p.lengths[3].mean() < p.lengths[0].mean()
    two = comp.playouts_from(batch, n, seed=9, threads=2)
    assert np.array_equal(two.lengths, p.lengths) and np.array_equal(two.returns, p.returns)


@pytest.mark.parametrize("name, plies", [("tic-tac-toe", 2), ("standard-8x8", 20), ("fewer-pieces-continue", 30),
                                         ("partial-c-squares-cw", 40), ("breakthrough", 15)])
def test_playouts_from_a_state_match_the_reference(name, plies):
    # The start state's side to move, mover and ply carry into the game (the Othello family's
    # bitboard playouts read them from the state too).
    ref, comp = bundled_games(name)
    game = Lockstep(ref, comp, name)
    game.run(random.Random(plies).choice, plies)
    assert not ref.is_terminal(game.rs)
    _same_playouts(ref, comp, f"{name} from {' '.join(map(str, game.moves))}", n=20, seed=4,
                   start=(game.rs, game.cs))


def test_playouts_from_a_forced_pass():
    ref, comp = bundled_games("standard-8x8")
    for seed in range(1000):  # a random game that reaches a forced pass
        rng, moves = random.Random(seed), []
        state = ref.initial_state()
        while not ref.is_terminal(state) and ref.legal_moves(state) != [PASS]:
            moves.append(rng.choice(ref.legal_moves(state)))
            state = ref.apply(state, moves[-1])
        if not ref.is_terminal(state):
            break
    else:
        pytest.fail("no forced pass in 1000 random games")
    cs = comp.initial_state()
    for m in moves:
        cs = comp.apply(cs, m)
    assert comp.legal_moves(cs) == [PASS]
    _same_playouts(ref, comp, f"standard-8x8 from {' '.join(map(str, moves))}", n=20, seed=8, start=(state, cs))


def test_othello_random_game_length():
    _, comp = bundled_games("standard-8x8")
    p = comp.playouts(20_000, seed=1, threads=2)
    assert 58 <= p.lengths.mean() <= 61
    assert p.lengths.min() >= 9  # the shortest Othello game


def _exact_outcome(ref, state, memo) -> tuple[Fraction, Fraction, Fraction]:
    """P(first player wins), P(draw), P(second wins) of uniformly random play, from the reference."""
    if state in memo:
        return memo[state]
    if ref.is_terminal(state):
        r = ref.returns(state)
        out = (Fraction(r[0] > 0), Fraction(r == (0.0, 0.0)), Fraction(r[1] > 0))
    else:
        legal = ref.legal_moves(state)
        parts = [_exact_outcome(ref, ref.apply(state, m), memo) for m in legal]
        out = tuple(sum(p[k] for p in parts) / len(legal) for k in range(3))
    memo[state] = out
    return out


@pytest.mark.parametrize("name", ["tic-tac-toe", "misere-tic-tac-toe"])
def test_playout_statistics_agree_with_the_reference(name):
    ref, comp = bundled_games(name)
    exact = _exact_outcome(ref, ref.initial_state(), {})
    if name == "tic-tac-toe":
        assert abs(float(exact[0]) - 0.585) < 0.001  # the known figure
    n = 20_000
    p = comp.playouts(n, seed=2024, threads=2)
    seen = ((p.returns[:, 0] > 0).mean(), (p.returns[:, 0] == 0).mean(), (p.returns[:, 1] > 0).mean())
    for k, what in enumerate(("first wins", "draws", "second wins")):
        q = float(exact[k])
        sigma = math.sqrt(q * (1 - q) / n)
        assert abs(seen[k] - q) < 5 * sigma, f"{name} {what}: {seen[k]:.4f} in playouts, exactly {q:.4f}"


# --- values and errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard-8x8", "breakthrough", "ataxx", "custodian"])
def test_apply_never_changes_its_input(name):
    _, comp = bundled_games(name)
    rng = random.Random(1)
    state = comp.initial_state()
    assert not state.flags.writeable
    with pytest.raises(ValueError):
        state[0] = 1
    for _ in range(40):
        if comp.is_terminal(state):
            break
        before = state.copy()
        legal = comp.legal_moves(state)
        for move in legal[:5]:
            after = comp.apply(state, move)
            assert not after.flags.writeable
            assert np.array_equal(state, before) and after is not state
            assert not np.shares_memory(after, state)
        state = comp.apply(state, rng.choice(legal))
    assert np.array_equal(comp.initial_state(), bundled_games(name)[1].initial_state())


def test_states_from_a_copy_work_the_same():
    # Agents may keep states as bytes or copies and pass them back.
    _, comp = bundled_games("standard-8x8")
    state = comp.apply(comp.initial_state(), Move.parse("d3"))
    copy = np.frombuffer(state.tobytes(), dtype=state.dtype).copy()
    assert comp.legal_moves(copy) == comp.legal_moves(state)
    assert np.array_equal(comp.apply(copy, Move.parse("c3")), comp.apply(state, Move.parse("c3")))


def test_a_state_changed_in_place_is_read_again():
    # An agent may hold positions in a buffer of its own (writeable) and refill it.
    comp = compiler.compile(gdl.load(BUNDLED["standard-8x8"]))
    s0 = comp.initial_state()
    s1 = comp.apply(s0, Move.parse("d3"))
    first, second = comp.legal_moves(s0), comp.legal_moves(s1)
    buf = s0.copy()
    assert comp.legal_moves(buf) == first
    buf[:] = s1  # the next call looks at the same array, refilled
    assert comp.legal_moves(buf) == second == [Move.parse(m) for m in ("c3", "e3", "c5")]
    buf[:] = s0
    assert comp.apply(buf, Move.parse("c4")).tolist() == comp.apply(s0, Move.parse("c4")).tolist()


def test_illegal_moves_raise_naming_the_move():
    _, comp = bundled_games("standard-8x8")
    s = comp.initial_state()
    for text in ("a1", "d4", "pass", "c4-d3"):
        with pytest.raises(ValueError, match=f"illegal move '{text}'"):
            comp.apply(s, Move.parse(text))
        with pytest.raises(ValueError, match=f"illegal move '{text}'"):
            comp.apply_counted(s, Move.parse(text))
    _, ttt = bundled_games("tic-tac-toe")
    s = ttt.initial_state()
    for text in ("a1", "b1", "a2", "b2", "a3"):  # x fills column a
        s = ttt.apply(s, Move.parse(text))
    assert ttt.is_terminal(s) and ttt.legal_moves(s) == []
    with pytest.raises(ValueError, match="illegal move 'c3'.*game is over"):
        ttt.apply(s, Move.parse("c3"))
    _, bt = bundled_games("breakthrough")
    with pytest.raises(ValueError, match="illegal move 'a2-a4'"):
        bt.apply(bt.initial_state(), Move.parse("a2-a4"))


# --- actions: the legal moves as integers -------------------------------------------------------


@pytest.mark.parametrize("name", ["standard-8x8", "tic-tac-toe", "breakthrough", "ataxx", "connect-four"])
def test_actions_are_the_legal_moves_as_integers(name):
    """legal_actions lists legal_moves' moves as their actions, and apply_action plays them: the same
    positions, along random games of every family and of the generic kernels."""
    game = compiler.compile(gdl.load(stages.path(name)))
    rng = random.Random(7)
    for _ in range(3):
        state = game.initial_state()
        while not game.is_terminal(state):
            moves, actions = game.legal_moves(state), game.legal_actions(state)
            assert actions == [game.action_of(m) for m in moves]
            assert [game.move_of(a) for a in actions] == moves
            k = rng.randrange(len(moves))
            by_move, taken = game.apply_counted(state, moves[k])
            by_action, taken_too = game.apply_action_counted(state, np.int64(actions[k]))
            assert np.array_equal(by_move, by_action) and taken == taken_too
            state = by_action


def test_an_action_that_is_not_legal_is_refused_with_the_legal_moves():
    game = compiler.compile(gdl.load(stages.path("tic-tac-toe")))
    start = game.initial_state()
    after = game.apply_action(start, 4)  # b2
    for bad in (4, 9, 10**12, -2, -7):  # taken, off the board, far off, the kernels' instructions
        with pytest.raises(ValueError, match=rf"illegal action {bad}: legal moves are a1 b1 c1 a2 c2"):
            game.apply_action(after, bad)
    with pytest.raises(TypeError):
        game.apply_action(after, 1.5)
    with pytest.raises(ValueError, match="not an action"):
        game.move_of(9)
    with pytest.raises(ValueError, match="not a move"):
        game.action_of(Move.parse("d4"))
    assert game.move_of(-1) == PASS and game.action_of(PASS) == -1


@pytest.mark.parametrize("name", ["standard-8x8", "tic-tac-toe", "breakthrough", "ataxx"])  # every kind of kernels
def test_an_array_that_is_not_a_state_is_refused_with_a_message_not_a_crash(name):
    """The kernels index tables by a state's values without bounds checks: an agent's mangled
    state (wrong length, a cell out of range, a side to move of 7) once crashed the process."""
    game = bundled_games(name)[1]
    start = game.initial_state()
    calls = [game.legal_moves, game.legal_actions, game.is_terminal, game.returns,
             lambda s: game.apply_action(s, game.legal_actions(start)[0]), lambda s: game.playouts(2, state=s),
             lambda s: game.perft(1, s), lambda s: game.playouts_from(np.stack([start, s]), 1)]
    size = game.rows * game.cols
    for where, value, said in ((0, 3, "cell 0 holds 3"), (0, -2, "cell 0 holds -2"),
                               (size + K.TO_MOVE, 7, "side to move 7"), (size + K.MOVER, -1, "mover -1"),
                               (size + K.PLY, -5, "ply -5"), (size + K.ROLL, 7, "roll 7")):
        bad = start.copy()
        bad[where] = value
        for call in calls:
            with pytest.raises(ValueError, match=f"not a state of this game: {said}"):
                call(bad)
    for call in calls[:4]:
        with pytest.raises(ValueError, match="not a state of this game: 3 values"):
            call(np.zeros(3, np.int32))
        with pytest.raises(ValueError, match=r"not a state: an array of shape \(2, 3\)"):
            call(np.zeros((2, 3), np.int32))
    # a state as a list, or of another integer type, is the same state
    assert game.legal_moves(start.tolist()) == game.legal_moves(start.astype(np.int64)) == game.legal_moves(start)


def test_a_game_plays_on_once_its_stage_is_let_go():
    """A sandboxed worker lets go of the stage's AST before its agent runs (runtime/worker.py):
    every call an agent's API makes, and the built-in policies' games, still work without it."""
    stage = gdl.load(stages.path("reverse-othello"))
    kept, game = compiler.CompiledGame(stage), compiler.CompiledGame(stage)
    game.forget_stage()
    assert not hasattr(game, "stage") and game.name == stage.name
    start = game.initial_state()
    assert game.legal_moves(start) == kept.legal_moves(start)
    assert np.array_equal(game.apply(start, game.legal_moves(start)[0]), kept.apply(start, kept.legal_moves(start)[0]))
    assert np.array_equal(game.playouts(20, seed=3).lengths, kept.playouts(20, seed=3).lengths)
    played = game.games(4, seed=1, policies=("greedy", "greedy"))
    assert np.array_equal(played.winners, kept.games(4, seed=1, policies=("greedy", "greedy")).winners)  # greedy counts fewest pieces here, as with the stage
