"""Othello AI Arena systems (JavaScript files defining `analyzeStage`) as ludica agents, hosted
unchanged by the adapter runtime/external/arena.js: they play sandboxed tournaments through the
line protocol; the JavaScript greedy plays exactly the moves of ludica's greedy; the API they are
given simulates the stage's true rules in the Arena's conventions; a stage or a system that cannot
take part fails its analysis, said why. And `gdl.to_arena`, the Arena config of a stage."""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ludica import gdl, stages
from ludica.compiler import compile as compile_stage
from ludica.gdl import ast as A
from ludica.runtime import entrants as agents, tournament
from ludica.runtime.api import RulesApi, stage_view
from ludica.runtime.program import Program, ProgramFailed
from ludica.runtime.records import ResultsStore
from test_seat_seeds import same_secret  # (a module: its tests are not collected again)

SYSTEMS = Path(__file__).parent / "arena_systems"
OPTIONS = dict(games=1, analysis_time=2.0, game_time=2.0, seed=11)
BUNDLED = sorted(p.stem for p in Path(stages.__file__).parent.glob("*.gdl"))

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def system(name: str) -> agents.AgentSpec:
    return agents.check_compiles(agents.resolve(str(SYSTEMS / f"{name}.js")))


def run(tmp_path: Path, stage_names: list[str], entrants: list[agents.AgentSpec], **options):
    """A sandboxed round robin: (games, analyses)."""
    out = tmp_path / "out"
    tournament.run([stages.path(n) for n in stage_names], entrants, out, tournament.Options(**{**OPTIONS, **options}))
    store = ResultsStore(out / "results.sqlite")
    games, analyses = store.games(), store.analyses()
    store.close()
    return games, analyses


def compiled(name: str):
    return compile_stage(gdl.load(stages.path(name)))


def greedy_choice(game, state: np.ndarray, legal) -> str:
    """The built-in greedy's move: the most captured, the first maximum in the legal order."""
    return str(max(legal, key=lambda m: game.apply_counted(state, m)[1]))


def replay(game, moves: list[str]):
    """(state, legal moves, move played) for every ply of a game's move list."""
    state = game.initial_state()
    for text in moves:
        legal = game.legal_moves(state)
        (move,) = [m for m in legal if str(m) == text]
        yield state, legal, text
        state = game.apply(state, move)


# --- whole games, sandboxed --------------------------------------------------------------------


@needs_node
def test_the_javascript_greedy_plays_the_moves_of_ludicas_greedy(tmp_path):
    played = {}
    for label, spec in (("js", system("greedy")), ("python", agents.resolve("greedy"))):
        assert spec.name == "greedy"  # one name, so the games have the same seeds (and random the same moves)
        if label == "python":  # and one game secret, so each seat is told the same seed in both runs
            (tmp_path / label).mkdir()
            same_secret(tmp_path / label / "out", tmp_path / "js" / "out")
        games, analyses = run(tmp_path / label, ["standard-8x8", "partial-c-squares-cw"],
                              [spec, agents.resolve("random")])
        assert len(games) == 4 and all(g["reason"] == "normal" for g in games)
        assert all(json.loads(g["illegal"]) == [0, 0] for g in games)
        played[label] = {(g["stage"], g["black"], g["white"], g["game_index"]): json.loads(g["moves"]) for g in games}
        if label == "js":
            (mine,) = [a for a in analyses if a["agent"] == "greedy" and a["stage"] == "Standard 8x8"]
            assert mine["ok"] and "Greedy analysing Standard 8x8: 8x8, 4 first moves" in mine["output"]
    assert played["js"] == played["python"]
    assert len({tuple(m) for m in played["js"].values()}) == 4  # four different games, not one repeated


@needs_node
def test_corners_async_and_makemove_systems_play_whole_games_by_their_rules(tmp_path):
    corners, later, named = system("corners"), system("async_greedy"), system("named")
    assert named.name == "Edge Hugger"  # its const NAME
    games, analyses = run(tmp_path, ["small-board-6x6"], [corners, later, named])
    assert len(games) == 6 and all(g["reason"] == "normal" for g in games)
    assert all(json.loads(g["illegal"]) == [0, 0] for g in games)
    assert {a["agent"] for a in analyses if a["ok"]} == {"corners", "async_greedy", "Edge Hugger"}
    game = compiled("small-board-6x6")
    n = game.info.rows
    checked = 0
    for g in games:
        for state, legal, text in replay(game, json.loads(g["moves"])):
            mover = (g["black"], g["white"])[int(state[n * n])]
            places = [m for m in legal if not m.is_pass]
            if not places:
                continue  # a forced pass, played by the referee
            if mover == "async_greedy":
                assert text == greedy_choice(game, state, legal)
            elif mover == "corners":
                on_corner = [m for m in places if m.dst[0] in (0, n - 1) and m.dst[1] in (0, n - 1)]
                on_edge = [str(m) for m in places if min(m.dst[0], m.dst[1], n - 1 - m.dst[0], n - 1 - m.dst[1]) == 0]
                if on_corner:
                    assert text == str(on_corner[0])
                elif on_edge:
                    assert text in on_edge  # one of them at random
                else:
                    assert text == greedy_choice(game, state, legal)
            elif mover == "Edge Hugger":  # the move it gave makeMove (its strategy returns nothing)
                margin = [min(r, c, n - 1 - r, n - 1 - c) for r, c in (m.dst for m in places)]
                assert text == str(places[margin.index(min(margin))])
            checked += 1
    assert checked > 100


@needs_node
def test_a_system_finds_out_the_true_rules_through_its_api_and_its_prints_are_kept(tmp_path):
    _, analyses = run(tmp_path, ["c-squares-occlusion-agnostic", "partial-c-squares-cw"],
                      [system("probe"), agents.resolve("random")])
    said = {a["stage"]: a["output"] for a in analyses if a["agent"] == "probe"}
    assert all(a["ok"] for a in analyses)
    assert "probe learned: captures run over blocked cells: yes (flipped 1)" in said["8x8 C-Squares, occlusion-agnostic"]
    assert "probe learned: captures run over blocked cells: no" in said["8x8 (Partial C-Squares-cw)"]
    for output in said.values():
        assert "probe learned: a move must flip a disc: yes" in output
        assert "probe learned: black's first moves: d3 c4 f5 e6" in output


@needs_node
def test_a_stage_the_arena_cannot_show_and_a_system_without_a_strategy_fail_their_analysis(tmp_path):
    games, analyses = run(tmp_path / "hex", ["hex-11"], [system("greedy"), agents.resolve("random")])
    (hex_,) = [a for a in analyses if a["agent"] == "greedy"]
    assert not hex_["ok"] and "exited with code 2" in hex_["detail"]
    why = "the stage Hex 11x11 cannot be shown to an Arena system: the board is hex"
    assert why in hex_["detail"] + hex_["output"]
    assert [g["reason"] for g in games] == ["no-strategy", "no-strategy"]
    assert all(g["result"] == ("white" if g["black"] == "greedy" else "black") for g in games)

    games, analyses = run(tmp_path / "none", ["small-board-6x6"], [system("no_function"), agents.resolve("random")])
    (none,) = [a for a in analyses if a["agent"] == "no_function"]
    assert not none["ok"] and "exited with code 3" in none["detail"]
    assert "I forgot to return my strategy" in none["output"]  # what it printed, kept
    assert "analyzeStage returned number, not a strategy function" in none["detail"] + none["output"]
    assert [g["reason"] for g in games] == ["no-strategy", "no-strategy"]


@needs_node
def test_a_system_with_a_syntax_error_is_refused_before_the_run():
    with pytest.raises(agents.AgentFileError, match="syntax_error.js does not parse as JavaScript"):
        agents.check_compiles(agents.resolve(str(SYSTEMS / "syntax_error.js")))


# --- the adapter's conventions, against ludica's rules (no sandbox: the adapter run directly) ------


def seen(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("seen ")]


def arena_board(game, state) -> list[list[int]]:
    return np.where(game.board(state) < 0, 3, game.board(state)).tolist()


def hosted(game, file: str, calls: list[dict] | None = None, stage: dict | None = None) -> Program:
    """The adapter hosting tests/arena_systems/FILE, run directly (no sandbox), prepared; the API
    calls it makes appended to `calls`; the `stage` call's value updated with `stage`."""
    program = Program(["node", str(agents.ARENA_ADAPTER), str(SYSTEMS / file)], RulesApi(game), stage_view(game),
                      time.process_time)
    answer = program.calls.answer

    def recorded(line: str) -> str:
        call, said = json.loads(line), answer(line)
        if calls is not None:
            calls.append(call)
        if stage and call.get("call") == "stage":
            said = json.dumps({"ok": True, "value": {**json.loads(said)["value"], **stage}})
        return said

    program.calls.answer = recorded  # type: ignore[method-assign]
    program.prepare(10.0)
    return program


def finish(program: Program) -> None:
    program.quit()
    program.proc.wait(timeout=10)
    assert program.proc.returncode == 0


@needs_node
@pytest.mark.parametrize("name", ["c-squares-occlusion-agnostic", "fewer-pieces-continue", "othello-split-setup",
                                  "tic-tac-toe"])
def test_the_javascript_greedy_finds_greedys_move_in_every_position_of_other_rules(name):
    """Its API answers by the stage's true rules (captures over blocked cells, the fewer-pieces
    turn), and on any square placement game: the system plays both sides of a whole game."""
    game = compiled(name)
    program = hosted(game, "greedy.js")
    try:
        program.start(0, 10.0, 1)
        state, plies = game.initial_state(), 0
        while not game.is_terminal(state):
            legal = game.legal_moves(state)
            if not legal[0].is_pass:
                answer = program.move([int(v) for v in state], [str(m) for m in legal], 10.0)
                assert answer == greedy_choice(game, state, legal)
                plies += 1
            (move,) = [m for m in legal if str(m) == greedy_choice(game, state, legal)]
            state = game.apply(state, move)
        program.end(0)
    finally:
        finish(program)
    assert plies >= 5


@needs_node
def test_the_adapter_gives_a_system_the_arenas_arguments_and_reads_every_form_of_answer(capfd):
    name = "c-squares-occlusion-agnostic"
    game = compiled(name)
    api, view = RulesApi(game), stage_view(game)
    calls: list[dict] = []
    program = hosted(game, "conventions.js", calls)
    try:
        program.start(0, 10.0, 1)
        start, n = game.initial_state(), game.info.rows
        state, answers, turns = start, [], []
        while not game.is_terminal(state) and len(answers) < 12:
            legal = game.legal_moves(state)
            if int(state[n * n]) == 0 and not legal[0].is_pass:  # the system plays black
                turns.append((state, legal))
                answers.append(program.move([int(v) for v in state], [str(m) for m in legal], 10.0))
            state = game.apply(state, legal[-1])  # its answer is always the last move, or none
        program.end(0)
    finally:
        finish(program)
    err = capfd.readouterr().err
    analysis, *per_turn = seen(err)

    def moves(actions):
        return [{"row": a // n, "col": a % n} for a in actions if a >= 0]

    def cells(items):
        return [{"r": r, "c": c} for r, c in items]

    board = game.board(start)
    assert analysis["stageConfig"] == {  # row-major, and no rule flag: the rules are not revealed
        "name": view.name, "boardSize": n, "initialBlocked": cells(zip(*np.nonzero(board < 0))),
        "initialPlayer1": cells(zip(*np.nonzero(board == 1))), "initialPlayer2": cells(zip(*np.nonzero(board == 2)))}
    assert analysis["initialBoard"] == arena_board(game, start)
    assert analysis["validMoves"] == analysis["black"] == moves(game.legal_actions(start))
    as_white = start.copy()
    as_white[n * n:] = [1, 0, 0, 0]  # to_move white, the last mover black, ply 0, no roll
    assert analysis["white"] == moves(game.legal_actions(as_white)) and analysis["white"]
    assert analysis["bad"] == []
    first = game.legal_actions(start)[0]
    child, taken = game.apply_action_counted(start, first)
    assert analysis["simulated"] == {"valid": True, "resultingBoard": arena_board(game, child), "capturedCount": taken}
    assert analysis["occupied"] == analysis["outside"] == analysis["fractional"] == {"valid": False}
    child_black = [*child[:n * n].tolist(), 0, 1, 1, 0]  # black to move after it (no roll)
    assert analysis["afterFirst"] == [moves(game.legal_actions(child)), moves(game.legal_actions(np.array(child_black)))]
    assert len(analysis["evaluated"]) == 4
    for k, scores in enumerate(analysis["evaluated"]):
        ours = api.evaluate((start, child)[k // 2], k % 2)
        assert scores == {"pieceScore": ours["piece"], "mobilityScore": ours["mobility"],
                          "cornerScore": ours["corner"], "edgeScore": ours["edge"], "totalScore": ours["total"]}

    assert len(per_turn) == len(turns) == 12
    for k, ((state, legal), shown, answer) in enumerate(zip(turns, per_turn, answers)):
        assert shown["turn"] == k + 1 and shown["player"] == 1
        assert shown["board"] == arena_board(game, state)
        assert shown["validMoves"] == shown["again"] == moves(game.legal_actions(state))
        # a move returned, makeMove(row, col), makeMove({row, col}), a Promise: the last legal move;
        # an exception, or no move: none (the referee's illegal-move rule)
        assert answer == (str(legal[-1]) if k % 6 < 4 else "none")
    assert err.count("the strategy threw: Error: on purpose") == 2
    assert 'the strategy answered "e4", not a move {row, col} on the 8x8 board' in err

    # a board and a player as a state: the cells (3 → -1), to_move = player - 1, mover the other
    # side, ply = the pieces added since the start (the referee's own state until someone passes)
    sent = [c["state"] for c in calls if c["call"] == "legal_actions"]
    # black and white at the start, black after the first move (white to move there came with the
    # move's answer), then once a turn but the first, whose board and player are the start's: both
    # answered from the adapter's cache
    assert len(sent) == 2 + len(turns) and turns[0][0] is start
    assert sent[1] == [*start[:n * n].tolist(), 1, 0, 0, 0] and sent[2] == child_black
    exact = 0
    for state, got in zip([start, *(s for s, _ in turns[1:])], [sent[0], *sent[3:]]):
        added = int((state[:n * n] > 0).sum() - (board > 0).sum())
        assert got == [*state[:n * n].tolist(), 0, 1, added, 0]
        exact += got == state.tolist()
    assert exact >= 5


@needs_node
def test_with_the_rules_revealed_the_system_gets_the_arenas_own_config_flags_and_all(capfd):
    game = compiled("c-squares-occlusion-agnostic")
    config = gdl.to_arena(gdl.load(stages.path("c-squares-occlusion-agnostic")))
    assert config is not None and config["ignoreOcclusion"] is True
    finish(hosted(game, "conventions.js", stage={"arena": config}))
    assert seen(capfd.readouterr().err)[0]["stageConfig"] == config


@needs_node
@pytest.mark.parametrize("name", ["ataxx", "breakthrough"])
def test_a_stage_whose_moves_are_not_all_placements_is_refused(capfd, name):
    """By the moves it may have (its action bound), not only by its first ones."""
    game = compiled(name)
    with pytest.raises(ProgramFailed):
        hosted(game, "greedy.js")
    assert "cannot be shown to an Arena system: its moves are not all placements" in capfd.readouterr().err


# --- gdl.to_arena -----------------------------------------------------------------------------------


EXPRESSIBLE = {"standard-8x8", "small-board-6x6", "partial-c-squares-cw", "c-squares-occlusion-agnostic",
               "fewer-pieces-continue", "othello-10x10", "othello-split-setup"}


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_stage_goes_to_the_arena_and_back_or_gives_none(name):
    stage = gdl.load(stages.path(name))
    config = gdl.to_arena(stage)
    assert (config is not None) == (name in EXPRESSIBLE)
    if config is not None:
        assert gdl.from_arena(config) == stage
        assert config.get("ignoreOcclusion", False) == (name == "c-squares-occlusion-agnostic")
        assert config.get("fewerPiecesContinue", False) == (name == "fewer-pieces-continue")
        assert False not in config.values()  # a flag is a key only when it is true


def test_the_arena_configs_of_its_public_stages_are_its_own():
    assert gdl.to_arena(gdl.load(stages.path("small-board-6x6"))) == {
        "name": "Small Board (6x6)", "boardSize": 6, "initialBlocked": [],
        "initialPlayer1": [{"r": 2, "c": 3}, {"r": 3, "c": 2}], "initialPlayer2": [{"r": 2, "c": 2}, {"r": 3, "c": 3}]}
    assert gdl.to_arena(gdl.load(stages.path("partial-c-squares-cw")))["initialBlocked"] == [
        {"r": 0, "c": 1}, {"r": 1, "c": 7}, {"r": 7, "c": 6}, {"r": 6, "c": 0}]


def test_a_stage_one_rule_away_from_the_arenas_gives_none():
    stage = gdl.load(stages.path("standard-8x8"))
    move = stage.moves[0]
    changed = [
        replace(stage, board=A.SquareBoard(8, wrap=True)),
        replace(stage, board=A.RectBoard(8, 8)),
        replace(stage, ends=(A.End(A.NoMoves(), A.FewestPieces()),)),
        replace(stage, pass_rule=None),
        replace(stage, turn=A.AgainAfterCapture()),
        replace(stage, moves=(replace(move, effects=move.effects[:1]),)),
        replace(stage, moves=(replace(move, effects=(A.FlipCustodial(A.Directions(("orthogonal",))),
                                                     move.effects[1])),)),
        replace(stage, players=A.Players(("red", "blue")), setup=tuple(replace(s, player={"black": "red", "white": "blue"}[s.player]) for s in stage.setup)),
        replace(stage, blocked=(A.CellRange(A.Cell(0, 0), A.Cell(0, 1)),)),  # a range: written cell by cell in a config
    ]
    for other in changed:
        assert gdl.to_arena(other) is None, other
    assert gdl.to_arena(replace(stage, blocked=(A.Cell(0, 0), A.Cell(0, 1)))) is not None


cells = st.lists(st.fixed_dictionaries({"r": st.integers(-2, 12), "c": st.integers(-2, 12)}), max_size=12)
configs = st.fixed_dictionaries(
    {"name": st.text(max_size=20), "boardSize": st.integers(1, 10), "initialBlocked": cells,
     "initialPlayer1": cells, "initialPlayer2": cells},
    optional={"ignoreOcclusion": st.booleans(), "fewerPiecesContinue": st.booleans()})


@settings(max_examples=200, deadline=None)
@given(configs)
def test_every_stage_of_an_arena_config_goes_back_to_a_config_of_the_same_stage(config):
    stage = gdl.from_arena(config)
    back = gdl.to_arena(stage)
    assert back is not None and gdl.from_arena(back) == stage
    for flag in ("ignoreOcclusion", "fewerPiecesContinue"):
        assert back.get(flag, "absent") == (True if config.get(flag) else "absent")
    # the cells that landed, in the Arena's order: a config of the same stage fills the same board
    assert gdl.to_arena(gdl.from_arena(back)) == back
