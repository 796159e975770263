"""Arena stages through `from_arena` and the reference interpreter: the Othello AI Arena's rules,
move for move (see /work/shared/ARENA.md).

Diagrams: `.` empty, `X` black, `O` white, `#` blocked; row 1 on top, column a on the left.
"""
from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from ludica.gdl.arena import from_arena
from ludica.gdl.ast import (
    ALL_DIRECTIONS, Alternate, Cell, End, FewerPieces, FlipCustodial, MostPieces, MoveRule, NoMoves,
    PassForced, PlaceEmpty, Players, RequireCapture, Setup, SquareBoard, Stage,
)
from ludica.gdl.game import PASS, Move, perft
from ludica.gdl.interpreter import State, reference

TRACES = Path(__file__).parent / "data" / "arena-traces.jsonl.gz"
_GAMES = [json.loads(line) for line in gzip.open(TRACES, "rt")]
_SYMBOLS = {".": 0, "X": 1, "O": 2, "#": -1}


def cfg(size=8, blocked=(), black=((3, 4), (4, 3)), white=((3, 3), (4, 4)), **flags) -> dict:
    """An Arena stage config; cells as (r, c)."""
    cells = lambda items: [{"r": r, "c": c} for r, c in items]  # noqa: E731
    return {"name": "test", "boardSize": size, "initialBlocked": cells(blocked),
            "initialPlayer1": cells(black), "initialPlayer2": cells(white), **flags}


def encode(game, state) -> str:
    """The board as the traces write it: 0 empty, 1 black, 2 white, 3 blocked, rows joined by '/'."""
    return "/".join("".join("3" if v < 0 else str(v) for v in row) for row in game.board(state))


def position(game, diagram: str, to_move: int) -> State:
    rows = [line.split() for line in diagram.strip().splitlines()]
    cells = tuple(_SYMBOLS[ch] for row in rows for ch in row)
    blocked = game.board(game.initial_state()) < 0
    assert np.array_equal(np.array(cells).reshape(game.rows, game.cols) < 0, blocked), "blocked cells differ"
    return State(cells, to_move=to_move, mover=1 - to_move)


# --- the recorded games ---------------------------------------------------------------------------


def test_the_traces_cover_every_rule():
    steps = [s for g in _GAMES for s in g["steps"]]
    assert len(_GAMES) == 280 and len({g["stage"] for g in _GAMES}) == 7
    assert sum(s["mv"] is None for s in steps) > 0  # forced passes
    assert sum(s["mv"] is not None and s["next"] == s["p"] for s in steps) > 0  # fewer-pieces continues
    assert {g["winner"] for g in _GAMES} == {0, 1, 2}


def replay(game, record) -> None:
    """Play a recorded Arena game on `game` (any Game implementation) and check every step."""
    state = game.initial_state()
    assert encode(game, state) == record["init"]
    for k, step in enumerate(record["steps"]):
        where = f"{record['stage']}, step {k}"
        assert game.to_move(state) == step["p"] - 1, where
        assert not game.is_terminal(state), where
        moves = game.legal_moves(state)
        if step["mv"] is None:
            assert step["legal"] == [] and moves == [PASS], where
            move = PASS
        else:
            assert moves == [Move(None, (r, c)) for r, c in step["legal"]], where
            move = Move(None, tuple(step["mv"]))
        state, taken = game.apply_counted(state, move)
        assert (taken > 0) == (step["mv"] is not None), where
        assert encode(game, state) == step["b"], where
        assert game.to_move(state) == step["next"] - 1, where
    board = game.board(state)
    assert game.is_terminal(state) and game.legal_moves(state) == []
    assert {"black": int((board == 1).sum()), "white": int((board == 2).sum())} == record["final"]
    winner = game.winner(state)
    assert (0 if winner is None else winner + 1) == record["winner"]
    assert game.returns(state) == {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}[record["winner"]]


@pytest.mark.parametrize("record", _GAMES, ids=[f"{g['stage']}#{i}" for i, g in enumerate(_GAMES)])
def test_replay_arena_game(record):
    replay(reference(from_arena(record["cfg"])), record)


# --- from_arena -----------------------------------------------------------------------------------


def test_from_arena_builds_the_othello_stage():
    stage = from_arena(cfg(blocked=((0, 1), (1, 7)), ignoreOcclusion=True, fewerPiecesContinue=True))
    assert stage == Stage(
        name="test",
        board=SquareBoard(8),
        blocked=(Cell(0, 1), Cell(1, 7)),
        players=Players(("black", "white")),
        setup=(Setup("black", (Cell(3, 4), Cell(4, 3))), Setup("white", (Cell(3, 3), Cell(4, 4)))),
        moves=(MoveRule(PlaceEmpty(), (FlipCustodial(ALL_DIRECTIONS, over_blocked=True), RequireCapture())),),
        turn=FewerPieces(),
        pass_rule=PassForced(),
        ends=(End(NoMoves(), MostPieces()),),
    )
    plain = from_arena(cfg())
    assert plain.turn == Alternate() and plain.moves[0].effects[0].over_blocked is False
    assert plain.blocked == ()


def test_from_arena_drops_overlapping_and_off_board_cells_with_warnings():
    record = next(g for g in _GAMES if g["stage"] == "Odd setup, overlaps and an off-board cell")
    warnings: list[str] = []
    stage = from_arena(record["cfg"], warnings)
    assert warnings == [
        "initialPlayer1 (2,2) = c3 is already blocked: ignored, as the Arena does",
        "initialPlayer1 (9,1) is off the 8x8 board: ignored, as the Arena does",
        "initialPlayer2 (3,3) = d4 is already black: ignored, as the Arena does",
    ]
    assert stage.blocked == (Cell(2, 2), Cell(5, 5))
    assert stage.setup == (
        Setup("black", (Cell(3, 3), Cell(4, 4), Cell(2, 5))),
        Setup("white", (Cell(3, 4), Cell(4, 3), Cell(5, 2))),
    )
    assert from_arena(record["cfg"]) == stage  # warnings are optional


def test_from_arena_warns_about_unknown_keys_and_duplicates():
    warnings: list[str] = []
    from_arena({**cfg(blocked=((0, 0), (0, 0)), white=((3, 3), (4, 4), (3, 3))), "ignoreOclusion": True}, warnings)
    assert warnings[0].startswith("unknown key 'ignoreOclusion': ignored")
    assert warnings[1:] == [
        "initialBlocked (0,0) = a1 is already blocked: ignored, as the Arena does",
        "initialPlayer2 (3,3) = d4 is already white: ignored, as the Arena does",
    ]


@pytest.mark.parametrize("change, message", [
    (lambda c: c.pop("name"), "missing key 'name': expected a string"),
    (lambda c: c.pop("initialPlayer2"), "missing key 'initialPlayer2'"),
    (lambda c: c.update(name=8), "key 'name' must be a string"),
    (lambda c: c.update(boardSize="8"), "key 'boardSize' must be an integer from 1 to 26, not '8'"),
    (lambda c: c.update(boardSize=27), "key 'boardSize' must be an integer from 1 to 26, not 27"),
    (lambda c: c.update(boardSize=True), "key 'boardSize'"),
    (lambda c: c.update(initialBlocked={"r": 0, "c": 0}), "key 'initialBlocked' must be a list of cells"),
    (lambda c: c.update(initialPlayer1=[{"r": 3}]), r"key 'initialPlayer1', item 0: expected a cell"),
    (lambda c: c.update(initialPlayer1=[{"r": 3, "c": 1.5}]), r"key 'initialPlayer1', item 0"),
    (lambda c: c.update(ignoreOcclusion="yes"), "key 'ignoreOcclusion' must be true or false"),
    (lambda c: c.update(fewerPiecesContinue=1), "key 'fewerPiecesContinue' must be true or false"),
])
def test_from_arena_rejects_bad_configs(change, message):
    config = copy.deepcopy(cfg())
    change(config)
    with pytest.raises(ValueError, match=message):
        from_arena(config)
    with pytest.raises(ValueError, match="JSON object"):
        from_arena([config])


def test_from_arena_reports_every_bad_key_at_once():
    with pytest.raises(ValueError) as error:
        from_arena({"name": "x", "boardSize": "eight", "initialPlayer1": [], "ignoreOcclusion": 1})
    assert str(error.value) == "; ".join([
        "key 'boardSize' must be an integer from 1 to 26, not 'eight'",
        'missing key \'initialBlocked\': expected a list of cells like {"r": 0, "c": 1}',
        'missing key \'initialPlayer2\': expected a list of cells like {"r": 3, "c": 3}',
        "key 'ignoreOcclusion' must be true or false, not 1",
    ])


# --- scripted positions ---------------------------------------------------------------------------

# The four examples of ARENA.md, one per row, black to place on column a (reading outward east):
#   row 1: X O P   flips O          row 5: X P     flips nothing
#   row 3: O X O P flips both O     row 7: O X . P flips nothing
# (X blocked, O white, P black in ARENA.md's notation.)
OCCLUSION = """
    . # O X . . . .
    . . . . . . . .
    . O # O X . . .
    . . . . . . . .
    . # X . . . . .
    . . . . . . . .
    . O # . X . . .
    . . . . . . . .
"""
OCCLUSION_BLOCKED = ((0, 1), (2, 2), (4, 1), (6, 2))


def test_occlusion_skipping_with_ignore_occlusion():
    game = reference(from_arena(cfg(blocked=OCCLUSION_BLOCKED, ignoreOcclusion=True)))
    s = position(game, OCCLUSION, to_move=0)
    moves = game.legal_moves(s)
    assert Move.parse("a5") not in moves and Move.parse("a7") not in moves
    after, taken = game.apply_counted(s, Move.parse("a1"))
    assert taken == 1 and encode(game, after).split("/")[0] == "13110000"
    after, taken = game.apply_counted(s, Move.parse("a3"))
    assert taken == 2 and encode(game, after).split("/")[2] == "11311000"


def test_blocked_cell_ends_the_ray_under_standard_rules():
    # The same position without ignoreOcclusion: b1 and c3 end the rays of a1 and a3.
    game = reference(from_arena(cfg(blocked=OCCLUSION_BLOCKED)))
    s = position(game, OCCLUSION, to_move=0)
    assert not {Move.parse(c) for c in ("a1", "a3", "a5", "a7")} & set(game.legal_moves(s))
    with pytest.raises(ValueError, match="illegal move 'a3'"):
        game.apply(s, Move.parse("a3"))


FEWER = cfg(size=6, black=((2, 3), (3, 2)), white=((2, 2), (3, 3)), fewerPiecesContinue=True)


def test_fewer_pieces_the_side_with_fewer_moves_again():
    # White on a1 flips b2: white 3, black 7. White still has fewer, so white moves again.
    game = reference(from_arena(FEWER))
    s = position(game, """
        . . . . . .
        . X X X . .
        . X O X . .
        . X X X . .
        . . . . . .
        . . . . . .
    """, to_move=1)
    after = game.apply(s, Move.parse("a1"))
    assert encode(game, after).split("/")[:2] == ["200000", "021100"]
    assert (after.to_move, after.mover) == (1, 1)
    # The same move under standard rules hands the turn over.
    standard = reference(from_arena({**FEWER, "fewerPiecesContinue": False}))
    assert standard.apply(s, Move.parse("a1")).to_move == 0


def test_fewer_pieces_equal_counts_alternate():
    # White on a1 flips b2: 3 against 3, so black moves next.
    game = reference(from_arena(FEWER))
    s = position(game, """
        . . . . . .
        . X . . . .
        . . O . . .
        . . . . . .
        . . . . X .
        . . . . X X
    """, to_move=1)
    after = game.apply(s, Move.parse("a1"))
    assert (encode(game, after).count("1"), encode(game, after).count("2")) == (3, 3)
    assert after.to_move == 0


def test_fewer_pieces_from_the_start():
    game = reference(from_arena(FEWER))
    after = game.apply(game.initial_state(), Move.parse("c2"))  # flips c3: black 4, white 1
    assert after.to_move == 1  # the side with more hands over
    after = game.apply(after, Move.parse("b2"))  # flips c3 back over to d4: 3 each
    assert (encode(game, after).count("1"), encode(game, after).count("2")) == (3, 3)
    assert after.to_move == 0  # equal counts alternate


# White (O) on c2 cannot move (black's column c3..c6 runs into the edge); black can take c2 from c1.
#   a b c d e f
# 1 . . . . . .
# 2 . . O . . .
# 3 . . X . . .
# 4 . . X . . .
# 5 . . X . . .
# 6 . . X . . .
PASSING = """
    . . . . . .
    . . O . . .
    . . X . . .
    . . X . . .
    . . X . . .
    . . X . . .
"""


def test_forced_pass_without_the_fewer_pieces_rule():
    game = reference(from_arena(FEWER))
    s = position(game, PASSING, to_move=1)
    assert game.legal_moves(s) == [PASS] and not game.is_terminal(s)
    after, taken = game.apply_counted(s, PASS)
    # White has fewer pieces, but a pass always hands the turn to the other side.
    assert after == State(s.cells, to_move=0, mover=1, ply=1) and taken == 0
    assert game.legal_moves(after) == [Move.parse("c1")]


def test_the_game_ends_when_neither_side_can_move():
    game = reference(from_arena(cfg(size=6)))
    s = position(game, """
        O . . . . .
        . . . . . .
        . . X X . .
        . . X X . .
        . . . . . .
        . . . . . .
    """, to_move=0)
    assert game.is_terminal(s) and game.legal_moves(s) == []
    assert game.winner(s) == 0 and game.returns(s) == (1.0, -1.0)  # 4 discs to 1, board not full
    s = State(s.cells, to_move=1, mover=0)
    assert game.is_terminal(s) and game.winner(s) == 0


def test_a_full_board_ends_the_game_and_counts_decide():
    game = reference(from_arena(cfg(size=2, black=((0, 0), (1, 1)), white=((0, 1), (1, 0)))))
    s = game.initial_state()
    assert game.is_terminal(s) and game.winner(s) is None and game.returns(s) == (0.0, 0.0)


@pytest.mark.parametrize("depth, leaves", [(1, 4), (2, 12), (3, 56), (4, 244), (5, 1396), (6, 8200)])
def test_standard_othello_perft(depth, leaves):
    record = next(g for g in _GAMES if g["stage"] == "Standard 8x8")
    assert perft(reference(from_arena(record["cfg"])), depth) == leaves


def test_configs_from_json_takes_one_config_or_a_list_and_names_the_source_when_not_json():
    from ludica.gdl.arena import configs_from_json
    from ludica.gdl.diagnostics import LudicaError

    assert configs_from_json('{"name": "a"}', "one.json") == [{"name": "a"}]
    assert configs_from_json('[{"name": "a"}, 3]', "two.json") == [{"name": "a"}, 3]
    with pytest.raises(LudicaError, match=r"^bad\.json:1:2: not JSON: "):
        configs_from_json("{,", "bad.json")
    with pytest.raises(LudicaError, match="nested too deeply"):
        configs_from_json("[" * 100_000, "deep.json")
