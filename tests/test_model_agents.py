"""Language-model agents (runtime/models): a ModelSeat plays through the real `openai` client against
tests/llm_standin.py, a real HTTP server on 127.0.0.1 answering from a script: whole games through
the referee, the analysis with tools and its notes, feedback and the forfeit after 4 bad answers,
retries that are never charged, the clock, the accounting, the rules tiers, a down endpoint, and
the `.model` file's errors. Nothing here leaves the loopback."""
from __future__ import annotations

import dataclasses
import gzip
import json
import secrets
import re
import socket
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludica import compiler, gdl, stages
from ludica.cli import main
from ludica.evaluation import report, summarise
from ludica.evaluation.usage import model_usage
from ludica.runtime import play_game, resolve, tournament
from ludica.runtime import RunMismatch
from ludica.runtime.endpoints import EndpointOptionError, is_loopback
from ludica.runtime.endpoints import allowed as allowed_endpoints
from ludica.runtime.plans import Options
from ludica.runtime.records import ResultsStore
from ludica.runtime.local import LocalSeat
from ludica.runtime.models import (ATTEMPTS, Endpoint, EndpointDown, EndpointError, ModelConfig, ModelConfigError,
                                   ModelSeat, Prices, check, load_config)
from ludica.runtime.models import prompts
from ludica.runtime.models.endpoint import MAX_ANSWER_BYTES, MAX_TOOL_CALLS, SENT_BACK
from ludica.runtime.models.parsing import found_move, hint

from llm_standin import REFUSED_MAX_TOKENS, Scripted, Standin, counted

GAMES: dict[str, compiler.CompiledGame] = {}


def game_of(name: str) -> compiler.CompiledGame:
    if name not in GAMES:
        GAMES[name] = compiler.compile(gdl.load(stages.path(name)))
    return GAMES[name]


def allowed(server: Standin, key_env: str = "") -> dict:
    """The evaluator's endpoint table (Options.endpoints) naming the stand-in `standin`."""
    return {"standin": {"url": server.url, "key_env": key_env}}


def config_for(server: Standin, **changes) -> ModelConfig:
    return ModelConfig(**{"model": server.model, "base_url": server.url, "api_key_env": "", "name": "standin",
                          **changes})


def seat_for(server: Standin, game, rules="text", **changes) -> ModelSeat:
    """A seat on the stand-in; its endpoint backs off for milliseconds, not seconds."""
    config = config_for(server, **changes)
    return ModelSeat("standin", game, config, gdl.format(game.stage), rules=rules,
                     endpoint=Endpoint(config, backoff=0.01))


def random_seat(game) -> LocalSeat:
    seat = LocalSeat("random", str(resolve("random").path), game)
    assert seat.analyze(5.0).failure is None
    return seat


def board_cells(prompt: str) -> dict[str, str]:
    """The cells of the board drawn in a prompt (gdl.render's lines), by name: '.', 'X', 'O', '#'."""
    cells = {}
    for row, marks in re.findall(r"^\s*(\d+) +((?:[.XO#] ?)+)$", prompt, re.MULTILINE):
        for column, mark in zip("abcdefghijklmnopqrstuvwxyz", marks.split()):
            cells[f"{column}{row}"] = mark
    return cells


def first_empty(body: dict) -> Scripted:
    """A 'model' that reads the board in the prompt it is sent and takes its first empty cell."""
    cells = board_cells(body["messages"][-1]["content"])
    empty = [name for name, mark in cells.items() if mark == "."]
    return Scripted(f"The board has {len(empty)} empty cells; I take one.\n**Move:** `{empty[0].upper()}`")


def start(seat: ModelSeat, game, budget: float = 10.0, side: int = 0):
    assert seat.start_game(1, budget, side).reply == {"op": "game-ready"}
    return game.initial_state()


# --- whole games -----------------------------------------------------------------------------------


def test_a_model_plays_a_whole_game_against_a_local_random_agent_through_the_referee():
    game = game_of("tic-tac-toe")
    with Standin(default=first_empty) as server:
        model = seat_for(server, game)
        record = play_game(game, (model, random_seat(game)), seed=4, game_time=20.0)
    assert record.reason == "normal" and record.forfeited == (False, False)
    mine = [p for p in record.plies if p.player == 0]
    assert len(server.chats) == len(mine) >= 3  # one request a move: every answer was legal
    for body, ply in zip(server.chats, mine):
        cells = board_cells(body["messages"][-1]["content"])
        assert ply.move == min((c for c, m in cells.items() if m == "."), key=lambda c: (c[1:], c[0]))
    # the game's accounting is what the server reported, summed
    usage = model.game_usage
    assert usage["moves"] == len(mine) and usage["calls"] == len(mine) and usage["attempts"] == len(mine)
    assert usage["tokens_in"] == sum(counted(json.dumps(b["messages"])) for b in server.chats)
    assert usage["score"] == (1 if record.winner == 0 else -1 if record.winner == 1 else 0)
    assert record.time_used[0] == pytest.approx(usage["latency"], abs=0.01)
    # its transcript is the seat's output in the record: every prompt and every answer
    output = record.output[0]
    text = output["text"]
    assert output["bytes"] == len(text.encode())
    assert text.count("Your move ") == len(mine) and text.count("**Move:**") == len(mine)
    assert gdl.rules_text(game.stage).strip() in text and "game over" in text


def test_a_model_on_a_hidden_stage_is_shown_only_its_view_and_its_refusals():
    """The stand-in 'model' takes the first cell its prompt shows empty: on phantom tic-tac-toe some of
    those hold the opponent's marks, and are refused. Every board a prompt draws is the model's view
    at that turn (recomputed from the game's record), never the truth; a refusal is told."""
    game = compiler.playable(gdl.load(stages.path("phantom-tic-tac-toe")))
    refusals = 0
    for seed in range(4):
        with Standin(default=first_empty) as server:
            model = seat_for(server, game)
            record = play_game(game, (random_seat(game), model), seed=seed, game_time=20.0,
                               seat_seeds=(seed, seed + 100))  # the same games every run
        assert record.reason == "normal", record.log
        views, state = [], game.initial_state()
        for ply in record.plies:
            if ply.player == 1 and game.legal_moves(state) != [gdl.PASS]:
                views.append(game.view_board(state, 1))
            state = game.apply(state, game.parse_move(ply.move))
        prompts_sent = [body["messages"][-1]["content"] for body in server.chats]
        assert len(prompts_sent) == len(views)
        for prompt, view in zip(prompts_sent, views):
            marks = {f"{'abc'[c]}{r + 1}": ".XO"[v] for r in range(3) for c in range(3) for v in [view[r, c]]}
            assert board_cells(prompt) == marks and "The position as you know it" in prompt
        told = [p for p in prompts_sent if "Refused this turn" in p]
        refusals += len(told)
        assert "You do not see the whole board" in server.chats[0]["messages"][0]["content"]
    assert refusals > 0


def test_the_model_seat_plays_white_too_and_is_told_its_side_and_mark():
    game = game_of("tic-tac-toe")
    with Standin(default=first_empty) as server:
        record = play_game(game, (random_seat(game), seat_for(server, game)), seed=2, game_time=20.0)
    assert record.forfeited == (False, False) and record.reason == "normal"
    user = server.chats[0]["messages"][-1]["content"]
    assert "You play o, the second player (white): your pieces are O, your opponent x's are X." in user
    assert "It is your turn: o (O) to move." in user and sum(m == "X" for m in board_cells(user).values()) == 1


# --- the analysis ----------------------------------------------------------------------------------


def test_the_analysis_calls_tools_on_the_true_rules_and_its_notes_are_in_every_move_prompt():
    game = game_of("tic-tac-toe")
    notes = "Take the centre, then a corner; block any two in a row."
    script = [Scripted(tool_calls=[("legal_moves", {"position": "p0"}), ("apply", {"position": "p0", "move": "B2"})]),
              Scripted(tool_calls=[("playouts", {"position": "p1", "n": 40}), ("evaluate", {"position": "p1"}),
                                   ("apply", {"position": "p1", "move": "b2"}), ("apply", {"position": "p9"})]),
              Scripted(notes)]
    with Standin(script, default=first_empty) as server:
        model = seat_for(server, game)
        answer = model.analyze(10.0)
        assert answer.failure is None and answer.reply["op"] == "analysed" and model.notes == notes
        record = play_game(game, (model, random_seat(game)), seed=1, game_time=20.0)
    analysis, games = server.chats[:3], server.chats[3:]
    assert all(body["tools"] == prompts.TOOLS for body in analysis)  # offered at every turn of the analysis
    results = [json.loads(m["content"]) for m in analysis[2]["messages"] if m["role"] == "tool"]
    assert results[0] == {"position": "p0", "to_move": "x", "moves": ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3",
                                                                       "c3"]}
    assert results[1]["position"] == "p1" and results[1]["board"] == "  a b c\n1 . . .\n2 . X .\n3 . . ."
    assert results[1]["to_move"] == "o" and results[1]["over"] is False
    playouts = results[2]
    assert playouts["for"] == "o" and playouts["wins"] + playouts["draws"] + playouts["losses"] == 40
    assert set(results[3]) == {"position", "player", "piece", "mobility", "corner", "edge", "total"}
    assert results[3]["player"] == "o" and results[3]["piece"] == -1
    assert "not a legal move in p1" in results[4]["error"] and "no position p9" in results[5]["error"]
    assert [m["tool_call_id"] for m in analysis[2]["messages"] if m["role"] == "tool"][-4:] == \
        ["call_0", "call_1", "call_2", "call_3"]
    usage = model.analysis_usage
    assert usage["tool_calls"] == 6 and usage["calls"] == 3 and answer.reply["usage"] == usage
    assert usage["tokens_in"] == sum(counted(json.dumps(b["messages"])) for b in analysis)
    assert games and all(notes in body["messages"][0]["content"] for body in games)
    assert all("tools" not in body for body in games)  # no tools while playing
    assert notes in record.output[0]["text"]
    assert "[tool call] apply(" in model.analysis_transcript and '"wins":' in model.analysis_transcript


def test_a_second_seat_given_the_notes_plays_with_them_without_analysing():
    game = game_of("tic-tac-toe")
    with Standin(default=first_empty) as server:
        first, second = seat_for(server, game), seat_for(server, game)
        second.notes = "  Corners first.  "
        record = play_game(game, (second, first), seed=1, game_time=20.0)
    assert record.forfeited == (False, False) and second.notes == "Corners first."
    told = [body["messages"][0]["content"] for body in server.chats]
    assert sum("YOUR NOTES" in t and t.rstrip().count("Corners first.") == 1 for t in told) == len(
        [p for p in record.plies if p.player == 0])
    assert sum("YOUR NOTES" not in t for t in told) == len([p for p in record.plies if p.player == 1])


def test_when_the_tool_calls_run_out_the_model_is_asked_for_its_notes_without_tools():
    game = game_of("tic-tac-toe")
    script = [Scripted(tool_calls=[("legal_moves", {"position": "p0"}), ("legal_moves", {"position": "p0"})]),
              Scripted("My notes: corners.")]
    with Standin(script) as server:
        model = seat_for(server, game, analysis_calls=1)
        answer = model.analyze(10.0)
    assert answer.failure is None and model.notes == "My notes: corners."
    tools = [json.loads(m["content"]) for m in server.chats[1]["messages"] if m["role"] == "tool"]
    assert "moves" in tools[0] and tools[1] == {"error": "no tool calls left: write your notes"}
    assert "tools" not in server.chats[1] and server.chats[1]["messages"][-1]["content"] == prompts.FINISH
    assert model.analysis_usage["tool_calls"] == 1


def test_when_the_tokens_run_low_the_model_is_asked_for_its_notes_without_tools():
    game = game_of("tic-tac-toe")
    system, user = prompts.analysis_prompts(game, "text", 20)
    first = len(json.dumps([{"role": "system", "content": system}, {"role": "user", "content": user}])) // 4
    script = [Scripted(tool_calls=[("legal_moves", {"position": "p0"})]), Scripted("short notes")]
    with Standin(script) as server:
        model = seat_for(server, game, analysis_tokens=2 * (first + 400) + 1)  # one round of tools, then notes
        assert model.analyze(10.0).failure is None and model.notes == "short notes"
    assert "tools" in server.chats[0] and "tools" not in server.chats[1]
    assert server.chats[1]["messages"][-1]["content"] == prompts.FINISH


def test_an_analysis_that_overruns_its_budget_times_out():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("slow notes", delay=1.0)]) as server:
        model = seat_for(server, game)
        answer = model.analyze(0.3)
    assert answer.failure == "timeout" and answer.seconds >= 0.3 and model.notes == ""


def test_a_failed_analysis_keeps_what_it_used():
    game = game_of("tic-tac-toe")
    script = [Scripted(tool_calls=[("legal_moves", {"position": "p0"})], usage=(500, 20)),
              Scripted("slow notes", delay=1.0)]
    with Standin(script) as server:
        answer = seat_for(server, game).analyze(0.5)
    assert answer.failure == "timeout"
    usage = answer.reply["usage"]  # the store's analyses.usage: the tokens of a failed analysis were paid for
    assert usage["tokens_in"] == 500 and usage["tokens_out"] == 20 and usage["tool_calls"] == 1


def model_run(tmp_path: Path, server: Standin, more: str = "", **options) -> tuple[list[dict], list[dict]]:
    """A run of the stand-in's model (its .model file ends with `more`; the endpoints allowed: the
    stand-in alone unless `endpoints` says otherwise) against random on tic-tac-toe (in-process, one
    game a seating, a CPU analysis budget of 0.2 s for random): the store's games and analyses."""
    (tmp_path / "standin.model").write_text(f'model = "{server.model}"\n' + more)
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
    options.setdefault("endpoints", allowed(server))
    tournament.run([stages.path("tic-tac-toe")], [resolve(str(tmp_path / "standin.model")), resolve("random")], out,
                   tournament.Options(sandbox=False, analysis_time=0.2, game_time=1.0, model_time=30.0, **options))
    store = ResultsStore(out / "results.sqlite")
    games, analyses = store.games(), store.analyses()
    store.close()
    return games, analyses


def test_a_runs_model_usage_is_what_the_endpoint_counted_in_its_analysis_and_its_games(tmp_path: Path):
    """evaluation/usage.py's totals (the report's Language models section) from the store's rows:
    the tokens are the stand-in's own counts, request by request, and the cost is priced from them."""
    with Standin(default=first_empty) as server:
        games, analyses = model_run(tmp_path, server, "[prices]\ninput = 2.0\noutput = 8.0\n")
        chats = server.chats
    (mine,) = model_usage(games, analyses)
    assert (mine.agent, mine.analyses, mine.games) == ("standin", 1, 2)
    asked = [counted(json.dumps(body["messages"])) for body in chats]
    analysis, played = asked[:1], asked[1:]  # the notes at once: one request, then one per move
    assert mine.analysis["tokens_in"] == sum(analysis) and mine.game["tokens_in"] == sum(played)
    assert mine.moves == mine.game["calls"] == len(played) == sum(len(json.loads(g["ply_usage"])) for g in games)
    tokens_in = mine.analysis["tokens_in"] + mine.game["tokens_in"]
    tokens_out = mine.analysis["tokens_out"] + mine.game["tokens_out"]
    assert mine.cost == pytest.approx((2.0 * tokens_in + 8.0 * tokens_out) / 1e6)
    # the report's row: the cost in all, and per analysis, per game and per move
    table = report.language_models(SimpleNamespace(models=model_usage(games, analyses)))
    assert table is not None
    row = dict(zip(table.header, table.rows[0]))
    game_cost = (2.0 * mine.game["tokens_in"] + 8.0 * mine.game["tokens_out"]) / 1e6
    assert row["Cost"] == f"{mine.cost:.4f}" and row["Moves answered"] == mine.moves
    assert row["Cost per analysis / game / move"] == (f"{mine.cost - game_cost:.4f} / {game_cost / 2:.4f} / "
                                                      f"{game_cost / mine.moves:.6f}")


def test_every_request_of_an_evaluation_is_in_the_language_models_section_the_copies_in_their_rows(
        tmp_path: Path, capsys):
    """A real `ludica evaluate` of a model with the default adaptation copies (NAME@0.25, NAME@0.5,
    which analyse each unseen stage again): the requests the stand-in counted are the sum of the
    Requests column over the model's rows, and its tokens the sum of theirs; each copy's row shows
    its analysis and its tokens. The report's JSON, its page (the live page's views: report.page_views)
    and the terminal show the same numbers."""
    unseen = tmp_path / "unseen"
    unseen.mkdir()
    (unseen / "mine.gdl").write_text(stages.path("tic-tac-toe").read_text().replace('game "', 'game "Mine: ', 1))
    (tmp_path / "m.model").write_text('model = "standin-model"\n[prices]\ninput = 2.0\noutput = 8.0\n')
    with Standin(default=first_empty) as server:
        code = main(["evaluate", str(tmp_path / "m.model"), "random", "--no-builtins", "--stage", "tic-tac-toe",
                     "--unseen", str(unseen), "--games", "1", "--resamples", "20", "--analysis-time", "2",
                     "--game-time", "2", "--endpoint", f"standin={server.url}", "--out", str(tmp_path / "run")])
        chats = server.chats
    printed = capsys.readouterr().out
    assert code == 0
    store = ResultsStore(tmp_path / "run" / "results.sqlite")
    summary = summarise(store, resamples=20)
    store.close()
    table = report.language_models(summary)
    assert table is not None
    rows = {row[0]: dict(zip(table.header, row)) for row in table.rows}
    assert set(rows) == {"m", "m@0.25", "m@0.5"}
    for copy in ("m@0.25", "m@0.5"):  # one unseen stage: one analysis, its two games against random
        assert rows[copy]["Analyses"] == 1 and rows[copy]["Games"] == 2
        assert rows[copy]["Analysis tokens in / out"] != "0 / 0"
    assert sum(row["Requests"] for row in rows.values()) == len(chats)
    models = {m.agent: m for m in summary.models}
    tokens_in = sum(m.analysis["tokens_in"] + m.game["tokens_in"] for m in models.values())
    assert tokens_in == sum(counted(json.dumps(body["messages"])) for body in chats)
    assert json.loads((tmp_path / "run" / "report.json").read_text())["models"] == \
        [json.loads(json.dumps(dataclasses.asdict(m) | {"cost": m.cost})) for m in summary.models]
    assert report.page_views(summary)["models"] == table  # the report's page and a run's live page
    for name, row in rows.items():  # the terminal's table: the same numbers
        assert re.search(rf"│ {re.escape(name)} +│ +{row['Analyses']} │ +{row['Games']} │ +{row['Requests']} │", printed)


def test_a_models_analysis_has_its_own_budget_in_wall_seconds_not_the_agents_cpu_budget(tmp_path: Path):
    """The agents' analysis budget is CPU seconds (2 s by default in an evaluation): no time for a
    conversation with a remote model. A model's is --model-analysis-time, wall seconds."""
    with Standin([Scripted("notes, slowly", delay=0.6)], default=first_empty) as server:
        (analysis,) = [a for a in model_run(tmp_path, server)[1] if a["agent"] == "standin"]
    assert analysis["ok"] and analysis["wall"] >= 0.6
    with Standin([Scripted("notes, slowly", delay=0.6)], default=first_empty) as server:
        (analysis,) = [a for a in model_run(tmp_path, server, model_analysis_time=0.3)[1] if a["agent"] == "standin"]
    assert not analysis["ok"] and analysis["failure"] == "timeout" and "over 0.3 s" in analysis["detail"]
    assert json.loads(analysis["usage"])["calls"] == 0  # no answer came within it


def test_a_server_asking_for_a_long_wait_gets_the_longest_wait_not_a_quick_retry():
    waits: list[float] = []
    script = [Scripted(status=429, headers={"retry-after": "120"}), Scripted(status=429, headers={"retry-after-ms": "250"}),
              Scripted(status=503, headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}), Scripted("move: a1")]
    with Standin(script) as server:
        endpoint = Endpoint(config_for(server, retries=3), backoff=0.01, sleep=waits.append)
        reply = endpoint.chat([{"role": "user", "content": "your move"}])
        endpoint.close()
    assert reply.text == "move: a1" and waits == [30.0, 0.25, 0.04]  # MAX_WAIT; the header in ms; a date: back-off


# --- bad answers, feedback and the forfeit ------------------------------------------------------


def test_bad_answers_get_feedback_and_another_try():
    game = game_of("tic-tac-toe")
    state = game.apply(game.initial_state(), game.parse_move("b2"))  # o to move, b2 is x's
    legal = [str(m) for m in game.legal_moves(state)]
    script = [Scripted("I will think about it."), Scripted("move: d4"), Scripted("Move: B2"), Scripted("move: a3")]
    with Standin(script) as server:
        model = seat_for(server, game)
        start(model, game, side=1)
        answer = model.think(state.tolist(), legal, 10.0)
    assert answer.failure is None and answer.reply["move"] == "a3"
    assert answer.reply["usage"]["attempts"] == 4 and answer.reply["usage"]["calls"] == 4
    feedback = [body["messages"][-1]["content"] for body in server.chats[1:]]
    assert feedback[0].startswith("I found no move in your answer ('I will think about it.'). Moves are written so: "
                                  "a new piece put on a cell is written as that cell, such as c3;")
    assert feedback[1].startswith("d4 is off the board: d4 is not a cell; columns run a to c and rows 1 to 3.")
    assert feedback[2].startswith("b2 cannot take a new piece: b2 holds an opposing piece (X).")
    assert all("There are 8 legal moves in this position." in f for f in feedback)
    assert all("a1 b1" not in f for f in feedback)  # the moves are not listed: the model is not told them
    # the conversation of the move goes on: each try sees its earlier answers and their feedback
    assert [m["role"] for m in server.chats[3]["messages"]] == ["system", "user"] + ["assistant", "user"] * 3


def test_the_fourth_bad_answer_forfeits_the_game():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("move: z9")] * ATTEMPTS) as server:
        model = seat_for(server, game)
        record = play_game(game, (model, random_seat(game)), seed=1, game_time=10.0)
    assert len(server.chats) == ATTEMPTS and record.winner == 1 and record.forfeited == (True, False)
    assert not record.plies  # the referee never saw a move of it
    text = record.output[0]["text"]
    assert "z9 is off the board" in text and "failed (illegal)" in text
    assert text.count("user (feedback)") == ATTEMPTS - 1  # the transcript shows what was sent: no 4th feedback
    assert model.game_usage["attempts"] == ATTEMPTS and model.game_usage["moves"] == 1


def test_the_fourth_bad_answer_is_an_illegal_failure_with_the_last_feedback():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("pass")] * ATTEMPTS) as server:
        model = seat_for(server, game, list_legal=True)
        state = start(model, game)
        answer = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0)
    assert answer.failure == "illegal" and answer.reply == {"usage": answer.reply["usage"]}  # its usage alone
    assert answer.reply["usage"]["attempts"] == ATTEMPTS
    assert "4 answers without a legal move" in answer.detail and "pass is not allowed now" in answer.detail
    assert "The legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3." in server.chats[-1]["messages"][-1]["content"]
    assert "Your legal moves: a1 b1 c1" in server.chats[0]["messages"][1]["content"]  # list_legal: listed


def test_tool_calls_during_a_game_are_a_bad_answer_and_are_not_sent_back():
    game = game_of("tic-tac-toe")
    with Standin([Scripted(tool_calls=[("apply", {"position": "p0", "move": "a1"})]), Scripted("move: a1")]) as server:
        model = seat_for(server, game)
        state = start(model, game)
        assert model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0).reply["move"] == "a1"
    assistant, feedback = server.chats[1]["messages"][2:]
    assert assistant == {"role": "assistant", "content": ""} and "(it was empty)" in feedback["content"]


def test_a_fault_in_the_seat_loses_the_game_and_does_not_stop_the_referee():
    game = game_of("tic-tac-toe")
    with Standin() as server:
        model = seat_for(server, game)

        def broken(*args, **kwargs):
            raise RuntimeError("something no one foresaw")

        model.endpoint.chat = broken  # type: ignore[method-assign]
        record = play_game(game, (model, random_seat(game)), seed=1, game_time=10.0)
        assert model.analyze(1.0).failure == "crash"
    assert record.winner == 1 and record.reason == "crash" and "something no one foresaw" in record.detail
    assert "RuntimeError" in record.output[0]["text"]


# --- transport: retries, the clock -------------------------------------------------------------------


def test_429_and_500_then_an_answer_is_neither_a_bad_move_nor_charged():
    game = game_of("tic-tac-toe")
    script = [Scripted(status=429, delay=0.3, headers={"retry-after": "0"}), Scripted(status=500, delay=0.3),
              Scripted("move: c3", usage=(120, 5))]
    with Standin(script) as server:
        model = seat_for(server, game, prices=Prices(1.0, 2.0))
        state = start(model, game)
        answer = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0)
        text, _ = model.end_game(0)
    assert answer.failure is None and answer.reply["move"] == "c3"
    usage = answer.reply["usage"]
    assert usage["retries"] == 2 and usage["attempts"] == 1 and usage["calls"] == 1
    assert (usage["tokens_in"], usage["tokens_out"]) == (120, 5) and usage["cost"] == pytest.approx(130e-6)
    assert answer.seconds < 0.25 and answer.wall >= 0.6  # the failed attempts cost wall time, not the clock
    assert usage["latency"] == pytest.approx(answer.seconds, abs=1e-4) and usage["waited"] >= 0.01
    assert len(server.chats) == 3 and "feedback" not in text and "2 transport retries" in text


def test_a_request_timeout_is_retried_when_the_clock_has_time():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("move: a1", delay=1.0), Scripted("move: b1")]) as server:
        model = seat_for(server, game, request_timeout=0.3)
        state = start(model, game)
        answer = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0)
    assert answer.reply["move"] == "b1" and answer.reply["usage"]["retries"] == 1 and answer.seconds < 0.3


def test_a_transport_failure_that_outlasts_the_retries_loses_the_game_not_the_run():
    game = game_of("tic-tac-toe")
    with Standin([Scripted(status=503)] * 3, default=first_empty) as server:
        model = seat_for(server, game, retries=2)
        record = play_game(game, (model, random_seat(game)), seed=1, game_time=10.0)
        assert record.winner == 1 and record.reason == "crash" and "HTTP 503" in record.log[-2]
        assert len(server.chats) == 3  # 1 + 2 retries
        again = play_game(game, (model, random_seat(game)), seed=2, game_time=10.0)  # the next game plays
    assert again.forfeited == (False, False)


def test_an_endpoint_that_wants_max_completion_tokens_and_no_temperature_is_asked_so_at_once():
    game = game_of("tic-tac-toe")
    script = [Scripted(status=400, message="Unsupported parameter: 'max_tokens' is not supported with this model. "
                                           "Use 'max_completion_tokens' instead."),
              Scripted(status=400, message="Unsupported value: 'temperature' does not support 0.0 with this model. "
                                           "Only the default (1) value is supported."),
              Scripted("move: b2"), Scripted("move: a1")]
    with Standin(script) as server:
        model = seat_for(server, game)
        state = start(model, game)
        legal = [str(m) for m in game.legal_moves(state)]
        answer = model.think(state.tolist(), legal, 10.0)
        assert model.think(state.tolist(), legal, 10.0).reply["move"] == "a1"
    assert answer.reply["move"] == "b2" and answer.reply["usage"]["retries"] == 0
    first, second, third, fourth = server.chats
    assert "max_tokens" in first and "temperature" in first
    assert "max_completion_tokens" in second and "max_tokens" not in second and "temperature" in second
    assert third["max_completion_tokens"] == 400 and "temperature" not in third
    assert fourth.keys() == third.keys()  # learnt once, for good


@pytest.mark.parametrize("lists_models", [True, False])
def test_a_reasoning_model_is_asked_in_max_completion_tokens_and_refuses_max_tokens_once_in_a_run(
        tmp_path: Path, lists_models: bool):
    """The stand-in as a reasoning model refuses `max_tokens` with OpenAI's 400: the run asks again
    with `max_completion_tokens` and remembers it for the endpoint, so one request of the whole run
    is refused (the check's one-token chat, where the endpoint lists no models; else the first
    analysis's), not one per seat (a stage, an adaptation copy), and every game is played. A model
    that takes `max_tokens` is asked so, every time."""
    variant = tmp_path / "variant.gdl"
    variant.write_text(stages.path("tic-tac-toe").read_text().replace('game "', 'game "Mine: ', 1))
    (tmp_path / "m.model").write_text('model = "standin-model"\n')
    agents = [resolve(str(tmp_path / "m.model")), resolve("random")]

    def played(server: Standin, out: str) -> list[dict]:
        tournament.run([stages.path("tic-tac-toe"), variant], agents, tmp_path / out, tournament.Options(
            sandbox=False, analysis_time=0.2, game_time=1.0, model_time=30.0, endpoints=allowed(server)))
        store = ResultsStore(tmp_path / out / "results.sqlite")
        games = store.games()
        store.close()
        return games

    def answer(body: dict) -> Scripted:  # the check's one-token chat, or a move
        return Scripted("pong") if body["messages"][-1]["content"] == "ping" else first_empty(body)

    with Standin(default=answer, lists_models=lists_models, reasoning=True) as server:
        games = played(server, "reasoning")
        chats = server.chats
    assert len(games) == 4 and not any(g["reason"] in ("crash", "illegal") for g in games)
    refused = [c for c in chats if "max_tokens" in c]
    assert len(refused) == 1 and len(chats) > 10
    assert all(c["max_completion_tokens"] in (1, 400) for c in chats if c not in refused)
    with Standin(default=answer, lists_models=lists_models) as server:
        played(server, "plain")
        assert all("max_tokens" in c and "max_completion_tokens" not in c for c in server.chats)


def test_what_an_endpoint_takes_is_learnt_for_one_run_not_for_the_process(tmp_path: Path):
    """Two runs in one process (as `ludica serve` plays them) at the same endpoint and model: the
    first learns that it wants `max_completion_tokens`; the endpoint changes (another server, or the
    same with other parameters); the second asks as a run of its own, in `max_tokens`. Within a run,
    the seats share what its check learnt (one refusal in all)."""
    (tmp_path / "m.model").write_text('model = "standin-model"\n')
    agents = [resolve(str(tmp_path / "m.model")), resolve("random")]

    def answer(body: dict) -> Scripted:
        return Scripted("pong") if body["messages"][-1]["content"] == "ping" else first_empty(body)

    with Standin(default=answer, lists_models=False, reasoning=True) as server:
        def played(out: str) -> list[dict]:
            before = len(server.chats)
            tournament.run([stages.path("tic-tac-toe")], agents, tmp_path / out, tournament.Options(
                sandbox=False, analysis_time=0.2, game_time=1.0, model_time=30.0, endpoints=allowed(server)))
            return server.chats[before:]

        first = played("first")
        assert sum("max_tokens" in c for c in first) == 1 and len(first) > 3
        server.reasoning = False
        second = played("second")
    assert second and all("max_tokens" in c and "max_completion_tokens" not in c for c in second)
    # in one run, what an endpoint takes is its own with the evaluator's parameters there, not its URL's
    config, learnt = ModelConfig(model="m", base_url="http://127.0.0.1:9/v1", api_key_env=""), {}
    one, same = Endpoint(config, learnt=learnt), Endpoint(config, learnt=learnt)
    other = Endpoint(replace(config, params={"top_p": 0.9}), learnt=learnt)
    assert one.accepts is same.accepts and other.accepts is not one.accepts
    for e in (one, same, other):
        e.close()


def test_the_evaluators_parameters_are_in_every_request_kept_with_the_run_and_shown_in_its_report(
        tmp_path: Path, capsys):
    """`--endpoint-param` (the evaluator's): every request to the endpoint carries them, in place of the
    .model file's temperature and max_tokens; the endpoint check tries them before anything is
    played; the run keeps them, and a --resume with others is refused; the report's options show
    them."""
    (tmp_path / "m.model").write_text('model = "standin-model"\ntemperature = 0.2\nmax_tokens = 100\n')
    out = tmp_path / "run"
    given = ["--endpoint-param", "standin", "temperature=0.7", "--endpoint-param", "standin", "reasoning_effort=low",
             "--endpoint-param", "standin", "top_p=0.9", "--endpoint-param", "standin", "max_completion_tokens=300"]
    def answer(body: dict) -> Scripted:  # the check's one-token chat, or a move
        return Scripted("pong") if body["messages"][-1]["content"] == "ping" else first_empty(body)

    with Standin(default=answer) as server:
        def tournament_(*more: str) -> int:
            return main(["tournament", "tic-tac-toe", "--agent", str(tmp_path / "m.model"), "--agent", "random",
                         "--in-process",
                         "--analysis-time", "0.2", "--game-time", "1", "--endpoint", f"standin={server.url}",
                         "--out", str(out), *more])

        assert tournament_(*given) == 0
        chats = server.chats
        assert tournament_("--resume", *given[:-3]) == 2  # max_completion_tokens left out
    said = " ".join("".join(capsys.readouterr()).split())
    assert "--resume: the run in" in said and "endpoints" in said and "max_completion_tokens" in said
    pings = [body for body in chats if body["messages"][-1]["content"] == "ping"]  # the check's one-token chats
    rest = [body for body in chats if body not in pings]
    assert pings and all(body["max_completion_tokens"] == 1 and body["reasoning_effort"] == "low" for body in pings)
    for body in chats:
        assert (body["temperature"], body["reasoning_effort"], body["top_p"]) == (0.7, "low", 0.9)
        assert "max_tokens" not in body
    assert rest and all(body["max_completion_tokens"] == 300 for body in rest)
    store = ResultsStore(out / "results.sqlite")
    options = dict(report.run_info(summarise(store, resamples=20)))["Options"]
    store.close()
    assert "'params': {'max_completion_tokens': 300, 'reasoning_effort': 'low', 'temperature': 0.7, 'top_p': 0.9}" \
        in options


def test_a_parameter_the_endpoint_refuses_fails_the_check_before_anything_is_played():
    script = [Scripted(status=400, message="Unrecognized request argument supplied: reasoning_effort")]
    with Standin(script) as server:
        table = allowed_endpoints([f"standin={server.url}"], [], [("standin", "reasoning_effort=high")])
        config = ModelConfig(model=server.model, name="m", source="m.model").resolved(table)
        with pytest.raises(EndpointDown, match=r"a one-token chat with 'standin-model' failed \(HTTP 400: .*"
                                               r"Unrecognized request argument supplied: reasoning_effort\): check "
                                               r"`model` in m.model, and the evaluator's --endpoint-param standin "
                                               r"\(reasoning_effort=high\)"):
            check(config)


@pytest.mark.parametrize("param, message", [
    (("a", "temperature=2.5"), "--endpoint-param a temperature=2.5: temperature must be a number from 0 to 2"),
    (("a", "temperature=nan"), "--endpoint-param a temperature=nan: temperature must be a number from 0 to 2"),
    (("a", "top_p=-0.1"), "--endpoint-param a top_p=-0.1: top_p must be a number from 0 to 1"),
    (("a", "reasoning_effort=extreme"), "--endpoint-param a reasoning_effort=extreme: reasoning_effort must be one "
                                        "of none, minimal, low, medium, high"),
    (("a", "max_completion_tokens=0"), "--endpoint-param a max_completion_tokens=0: max_completion_tokens must be "
                                       "an integer from 1 to 128000"),
    (("a", "max_completion_tokens=1e9"), "max_completion_tokens must be an integer from 1 to 128000"),
    (("a", "max_completion_tokens=200000"), "max_completion_tokens must be an integer from 1 to 128000"),
    (("a", "seed=3"), "--endpoint-param a seed=3: unknown parameter 'seed': the parameters are temperature, top_p, "
                      "reasoning_effort, max_completion_tokens"),
    (("a", "max_tokens=10"), "unknown parameter 'max_tokens'"),
    (("a", "temperature"), "--endpoint-param a temperature: give KEY=VALUE, KEY one of temperature"),
    (("b", "temperature=1"), "--endpoint-param b temperature=...: no --endpoint b=URL is given"),
])
def test_a_bad_endpoint_parameter_names_the_option_the_value_and_what_it_may_be(param, message):
    with pytest.raises(EndpointOptionError, match=re.escape(message)):
        allowed_endpoints(["a=https://a.example/v1"], [], [param])


def test_an_endpoint_parameter_given_twice_or_stored_out_of_bounds_is_refused():
    with pytest.raises(EndpointOptionError, match=r"--endpoint-param a top_p=\.\.\.: top_p is given twice"):
        allowed_endpoints(["a=https://a.example/v1"], [], [("a", "top_p=0.5"), ("a", "top_p=0.6")])
    with pytest.raises(EndpointOptionError, match="temperature must be a number from 0 to 2"):  # a run folder edited
        Options(endpoints={"a": {"url": "https://a.example/v1", "key_env": "", "params": {"temperature": 9}}})


def test_the_help_says_every_endpoint_parameter_and_its_bounds(capsys):
    from ludica.runtime.endpoints import MAX_ANSWER_TOKENS, PARAMS, REASONING_EFFORTS

    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    for key, (kind, bounds, _) in PARAMS.items():
        assert key in said
        if kind is not str:
            low, high = bounds
            assert f"{key}, {low:g} to {high:g}" in said
    assert ", ".join(REASONING_EFFORTS) in said and str(MAX_ANSWER_TOKENS) in said


def test_a_refused_request_is_not_retried():
    with Standin([Scripted(status=400)]) as server:
        endpoint = Endpoint(config_for(server), backoff=0.01)
        with pytest.raises(EndpointError, match="refused the request") as caught:
            endpoint.chat([{"role": "user", "content": "hello"}])
    assert caught.value.status == 400 and len(server.chats) == 1


def test_a_slow_answer_loses_on_time():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("move: a1", delay=1.5)]) as server:
        model = seat_for(server, game)
        t0 = time.monotonic()
        record = play_game(game, (model, random_seat(game)), seed=1, game_time=(0.4, 10.0))
        waited = time.monotonic() - t0
    assert record.reason == "time" and record.winner == 1 and record.time_used[0] >= 0.4
    assert waited < 1.2  # the request was given up when the clock ran out, not waited for
    assert "no answer within the 0.40 s left" in record.output[0]["text"]


def test_an_answer_that_comes_after_the_clock_ran_out_is_not_played():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("move: a1", delay=0.3)]) as server:
        model = seat_for(server, game)
        state = start(model, game)
        answer = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 0.28)
    assert answer.failure == "timeout" and answer.seconds > 0.28


def test_an_endpoint_that_drips_its_answer_is_cut_at_the_requests_deadline_in_wall_time():
    """One byte every 2 s once passed request_timeout = 8 (httpx's timeout is per read) and held the
    run for ever: each request now has a total deadline, and the clocks hold in wall time."""
    game = game_of("tic-tac-toe")
    drip = Scripted("move: a1", drip=0.1)  # some 300 bytes: half a minute
    with Standin([drip] * 3) as server:
        endpoint = Endpoint(config_for(server, request_timeout=0.5, retries=0))
        t0 = time.monotonic()
        with pytest.raises(EndpointError, match=r"no answer within 0.5 s \(request_timeout\), after 1 attempt"):
            endpoint.chat([{"role": "user", "content": "your move"}])
        assert time.monotonic() - t0 < 1.5
        model = seat_for(server, game)  # request_timeout 60 s: the clock is the bound
        state = start(model, game)
        t0 = time.monotonic()
        answer = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 0.5)
        assert answer.failure == "timeout" and time.monotonic() - t0 < 1.5
        t0 = time.monotonic()
        analysed = seat_for(server, game).analyze(0.5)
        assert analysed.failure == "timeout" and time.monotonic() - t0 < 1.5


def test_failures_of_the_line_are_not_charged_but_may_not_hold_a_request_past_the_clock_and_forgiven():
    """An endpoint that fails slowly (a 500 after most of the clock, again and again) costs the
    model nothing, and each attempt is within the clock; the retries stop once another attempt could
    take the request past the clock left and `forgiven` seconds more."""
    with Standin([Scripted(status=500, delay=0.3)] * 10) as server:
        endpoint = Endpoint(config_for(server, retries=9), backoff=0.01, forgiven=0.5)
        t0 = time.monotonic()
        with pytest.raises(EndpointError, match=r"HTTP 500.*, after 2 attempts in 0\.\d s: another would take the "
                                                r"request past the 0\.5 s left on the clock and 0\.5 s more") as caught:
            endpoint.chat([{"role": "user", "content": "your move"}], limit=0.5)
    assert caught.value.attempts == 2 and len(server.chats) == 2 and time.monotonic() - t0 < 1.0


def test_an_answer_over_the_size_bound_fails_at_once_and_names_the_bound():
    """A 300 MB answer took the referee to 4.6 GB: an answer is read MAX_ANSWER_BYTES at most."""
    with Standin([Scripted("x" * (MAX_ANSWER_BYTES + 1))] * 2) as server:
        endpoint = Endpoint(config_for(server, retries=1), backoff=0.01)
        with pytest.raises(EndpointError, match=rf"the answer is over {MAX_ANSWER_BYTES} bytes \(the most one "
                                                r"answer may take\): lower max_tokens"):
            endpoint.chat([{"role": "user", "content": "your move"}])
    assert len(server.chats) == 1  # not asked again: the same answer would come


def test_a_compressed_answer_is_not_asked_for_and_refused_when_sent():
    """MAX_ANSWER_BYTES counts bytes on the wire: 20 kB of gzip decoded to 20 MB of text (a bomb of
    1 MiB would be a gigabyte in the referee). No encoding is asked for; one sent anyway is refused."""
    bomb = gzip.compress(json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                     "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                         "role": "assistant", "content": "x" * 20_000_000}}]}).encode())
    assert len(bomb) < MAX_ANSWER_BYTES
    with Standin([Scripted(raw=bomb, headers={"Content-Encoding": "gzip"})] * 2) as server:
        endpoint = Endpoint(config_for(server, retries=1), backoff=0.01)
        with pytest.raises(EndpointError, match=r"the answer is compressed \('gzip'\), which ludica does not ask for"):
            endpoint.chat([{"role": "user", "content": "your move"}])
    assert len(server.chats) == 1
    assert {k.lower(): v for k, v in server.requests[0].headers.items()}["accept-encoding"] == "identity"


def test_what_is_sent_back_of_a_long_answer_is_cut():
    game = game_of("tic-tac-toe")
    long = "I think " + "very " * 20_000 + "hard."
    calls = [("legal_moves", {"position": "p0"})] * (MAX_TOOL_CALLS + 10)
    with Standin([Scripted(long), Scripted("move: a1"), Scripted(long, tool_calls=calls), Scripted("notes")]) as server:
        model = seat_for(server, game)
        state = start(model, game)
        assert model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0).reply["move"] == "a1"
        assert model.analyze(10.0).failure is None
    sent_back = server.chats[1]["messages"][2]["content"]
    assert sent_back.startswith("I think very") and len(sent_back) < SENT_BACK + 100
    assert sent_back.endswith(f"[... {len(long) - SENT_BACK} more characters cut]")
    assistant = server.chats[3]["messages"][2]
    assert len(assistant["content"]) < SENT_BACK + 100 and len(assistant["tool_calls"]) == MAX_TOOL_CALLS
    assert sum(m["role"] == "tool" for m in server.chats[3]["messages"]) == MAX_TOOL_CALLS


@pytest.mark.parametrize("content_type", ["application/json", "text/html"])
def test_an_answer_that_is_not_json_is_a_clear_reason_not_a_json_error(content_type):
    game = game_of("tic-tac-toe")
    with Standin(default=Scripted(raw=b"<html>Bad gateway</html>", content_type=content_type)) as server:
        answer = seat_for(server, game, retries=1).analyze(5.0)
    assert answer.failure == "crash" and "Traceback" not in answer.detail and "JSONDecodeError" not in answer.detail
    assert "an answer that is not an OpenAI chat completion (its body is not" in answer.detail
    assert "after 2 attempts" in answer.detail


def test_tokens_are_counted_per_move_and_per_game_and_a_game_over_its_token_budget_fails():
    game = game_of("tic-tac-toe")
    script = [Scripted("move: a1", usage=(300, 10)), Scripted("zzz", usage=(310, 20)), Scripted("move: b1")]
    with Standin(script) as server:
        model = seat_for(server, game, game_tokens=600)
        state = start(model, game)
        first = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0)
        state = game.apply(game.apply(state, game.parse_move("a1")), game.parse_move("a2"))
        second = model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0)
        model.end_game(None)
    assert first.reply["usage"]["tokens_in"] == 300 and first.reply["usage"]["tokens_out"] == 10
    assert second.failure == "tokens" and "token budget (600)" in second.detail  # 310 + 330 spent: no 2nd try
    assert model.game_usage["tokens_in"] == 610 and model.game_usage["tokens_out"] == 30
    assert model.game_usage["moves"] == 2 and model.game_usage["score"] is None and model.game_usage["cost"] is None
    assert len(server.chats) == 2


# --- what the model is told -----------------------------------------------------------------------


def test_a_game_past_its_token_budget_is_lost_as_on_time():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("move: a1", usage=(300, 10))], default=first_empty) as server:
        record = play_game(game, (seat_for(server, game, game_tokens=300), random_seat(game)), seed=1, game_time=20.0)
    assert record.forfeited == (True, False) and record.reason == "time"
    assert any("spent its token budget: the game's token budget (300) is spent" in line for line in record.log)


@pytest.mark.parametrize("tier", ["text", "gdl", "none"])
def test_the_rules_tier_changes_the_prompt(tier):
    game = game_of("breakthrough")
    english, source = gdl.rules_text(game.stage).strip(), gdl.format(game.stage).strip()
    with Standin([Scripted("notes"), Scripted("move: a2-a3")]) as server:
        model = seat_for(server, game, rules=tier)
        model.analyze(5.0)
        state = start(model, game)
        assert model.think(state.tolist(), [str(m) for m in game.legal_moves(state)], 10.0).reply["move"] == "a2-a3"
    assert "You play white, the first player: your pieces are X" in server.chats[-1]["messages"][1]["content"]
    for body in server.chats:
        system = body["messages"][0]["content"]
        assert (english in system) == (tier == "text") and (source in system) == (tier == "gdl")
        assert "b2-b3" in system and "Columns are lettered a to h" in system  # the notation, every tier
    if tier == "none":
        assert "You are not told the rules. Find them out with the tools" in server.chats[0]["messages"][0]["content"]


def test_the_rules_tier_is_the_evaluators_and_a_model_file_cannot_ask_for_the_gdl_text(tmp_path: Path):
    """`rules = "gdl"` in a .model file once sent every unseen stage's exact text to the file's
    endpoint: the tier is now the run's (--rules, default text), and the key is refused."""
    game = game_of("tic-tac-toe")
    source = gdl.format(game.stage).strip()
    with Standin(default=first_empty) as server:
        assert ModelSeat("m", game, config_for(server), "").rules == "text"
        with pytest.raises(ModelConfigError, match="rules 'english'"):
            seat_for(server, game, rules="english")
        with pytest.raises(ModelConfigError, match=r"`rules`: how much of the rules a model is told is now the "
                                                    r"evaluator's choice \(--rules text\|gdl\|none, default text\)"):
            model_run(tmp_path, server, 'rules = "gdl"\n')
        model_run(tmp_path, server)
        assert server.chats and not any(source in json.dumps(body) for body in server.chats)
        told = len(server.chats)
        model_run(tmp_path, server, model_rules="gdl")  # the evaluator's --rules gdl
        assert all(source in body["messages"][0]["content"] for body in server.chats[told:])


def sampled_stages() -> list:
    from ludica.sampler.prior import draw, generator
    found = []
    for number in range(400):
        drawn = draw(generator(7, number))
        if drawn.rejected is None:
            found.append(drawn.stage)
        if len(found) == 3:
            break
    return found


@pytest.mark.parametrize("stage", [gdl.load(p) for p in stages.bundled()] + sampled_stages(),
                         ids=lambda s: s.name or "sampled")
def test_every_stage_gets_its_prompts_from_its_rules(stage):
    played = compiler.playable(stage)  # a hidden stage's prompts draw its true game's boards
    game = getattr(played, "truth", played)
    state = played.information(played.initial_state(), 0)
    legal = [str(m) for m in played.legal_moves(played.initial_state())]
    user = prompts.move_prompt(game, state, legal, list_legal=False, number=1,
                               refused=None if stage.hidden is None else [])
    assert gdl.render(game, state) in user and "It is your turn" in user
    assert not any(re.search(rf"(?<![a-z0-9-]){re.escape(m)}(?![a-z0-9-])", user) for m in legal)  # not listed
    assert ("The position as you know it" in user) == (stage.hidden is not None)
    roll = played.position(played.initial_state())[game.n_cells + compiler.codes.ROLL]
    assert (f"Your roll this turn: {roll}." in user) == (stage.roll is not None)
    listed = prompts.move_prompt(game, state, legal, list_legal=True, number=1)
    assert "Your legal moves: " + " ".join(legal) + "." in listed
    for tier in ("text", "gdl", "none"):
        system = prompts.game_prompt(game, tier, "my notes", stage)
        assert "my notes" in system and "move: " in system
        assert ("WHAT YOU SEE\nYou do not see the whole board" in system) == (stage.hidden is not None)
        assert ("The cells are hexagons" in system) == isinstance(stage.board, gdl.ast.HexBoard)
        assert f"rows are numbered 1 to {game.rows} from top to bottom" in system
        assert (prompts.stage_rules(stage, tier) in system) if tier != "none" else "THE RULES" in system
    # every legal move, written as the prompts say, is read back by the parser
    assert all(found_move(f"I play {m}.") == m for m in legal)


# --- reading moves --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, move", [
    ("I'll take the corner.\n**Move:** `D3`", "d3"),
    ("move: b2 – b3", "b2-b3"),
    ("Moving b2->b3 is best", "b2-b3"),
    ("b2 to b3", "b2-b3"),
    ("Capture: c4xd5", "c4-d5"),
    ("Move: pass", "pass"),
    ("I considered a1 and c3.\nmove: b2\nThen a1 later.", "b2"),
    ("moves like a1 are good, so c3", "c3"),
    ("## Final move: E10", "e10"),
    ("The best move: d3, since c4 is weak.", "d3"),
    ("My move is: b1 (a1 was taken)", "b1"),
    ("Remove: a1; move: c2 then move on", "c2"),
    ("I have no idea.", None),
    ("", None),
])
def test_the_parser_reads_the_move_meant(text, move):
    assert found_move(text) == move


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_parser_never_raises(text):
    found = found_move(text)
    assert found is None or re.fullmatch(r"[a-z]\d+(-[a-z]\d+)?|pass", found)


@pytest.mark.parametrize("text", ["move:" * 200_000, " " * 1_000_000, " \n" * 500_000, "move" + "\t" * 1_000_000, "!" * 1_000_000,
                                  "a1 " * 300_000, ("#" * 50_000 + "\n") * 20])
def test_the_parser_takes_linear_time_on_a_huge_answer(text):
    t0 = time.monotonic()
    found_move(text + "\nmove: b2")
    found_move(text)
    assert time.monotonic() - t0 < 1.0  # blanks once made `\s*` rescan their runs: minutes for these


@settings(max_examples=200, deadline=None)
@given(st.text(), st.sampled_from(["tic-tac-toe", "breakthrough", "standard-8x8", "hex-11"]), st.data())
def test_a_legal_move_written_plainly_after_any_text_is_found(prose, name, data):
    game = game_of(name)
    move = data.draw(st.sampled_from([str(m) for m in game.legal_moves(game.initial_state())]))
    assert found_move(f"{prose}\nmove: {move}") == move
    assert found_move(move) == move and found_move(f"{move.upper()}.") == move


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.sampled_from(["tic-tac-toe", "breakthrough", "c-squares-occlusion-agnostic"]))
def test_hints_never_raise_and_say_something(text, name):
    game = game_of(name)
    state = game.initial_state()
    legal = [str(m) for m in game.legal_moves(state)]
    move = found_move(text)
    said = hint(game, state, legal, move, answer=text)
    assert (said == "") == (move in legal)


def test_hints_for_piece_moves_say_what_was_wrong_without_listing_the_moves():
    game = game_of("breakthrough")
    state = game.initial_state()
    legal = [str(m) for m in game.legal_moves(state)]
    said = {text: hint(game, state, legal, found_move(text)) for text in ("a3-a4", "a7-a6", "b2", "a1-a2", "a2-a4",
                                                                         "c5", "a2-i9")}
    assert said["a3-a4"].startswith("a3-a4 starts at a3, which holds no piece of yours: a3 is empty.")
    assert said["a7-a6"].startswith("a7-a6 starts at a7, which holds no piece of yours: a7 holds an opposing piece (O).")
    assert said["b2"].startswith("b2 names only a cell, but it is the start of 3 of your legal piece moves")
    assert said["a1-a2"].startswith("a1-a2 ends on a2, which holds a piece of yours.")
    assert said["a2-a4"].startswith("a2-a4 is not a legal move now; the piece on a2 has 2 legal moves.")
    assert said["c5"].startswith("c5 names only a cell, but every legal move now moves a piece")
    assert said["a2-i9"].startswith("a2-i9 is off the board: i9 is not a cell; columns run a to h and rows 1 to 8.")
    assert all("There are 22 legal moves in this position." in s and "a2-a3 a2-b3" not in s for s in said.values())


def test_a_blocked_cell_is_named_as_blocked():
    game = game_of("c-squares-occlusion-agnostic")
    state = game.initial_state()
    legal = [str(m) for m in game.legal_moves(state)]
    assert hint(game, state, legal, "b1").startswith("b1 cannot take a new piece: b1 is blocked (#)")
    assert hint(game, state, legal, "a1").startswith("a1 is not a legal move now (the cell is empty")


# --- the endpoint is checked before a run ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_down_endpoint_fails_the_check_with_what_to_look_at():
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = ModelConfig(model="m", base_url=url, endpoint="local", source="local.model")
    with pytest.raises(EndpointDown) as caught:
        check(config, timeout=2.0)
    message = str(caught.value)
    assert message.startswith(f"{url}: the model endpoint does not answer (")
    assert "check that its server is running" in message and f"--endpoint local={url}" in message
    with pytest.raises(EndpointError, match="no connection"):
        Endpoint(ModelConfig(model="m", base_url=url, api_key_env="", retries=1), backoff=0.01).chat(
            [{"role": "user", "content": "hi"}])


def test_a_run_with_a_down_endpoint_stops_before_it_plays(tmp_path: Path):
    (tmp_path / "down.model").write_text('model = "m"\n')
    entrants = [resolve(str(tmp_path / "down.model")), resolve("random")]
    assert entrants[0].kind == "model" and entrants[0].name == "down"
    down = {"down": {"url": f"http://127.0.0.1:{free_port()}/v1", "key_env": ""}}
    with pytest.raises(EndpointDown, match="the model endpoint does not answer"):
        tournament.run([stages.path("tic-tac-toe")], entrants, tmp_path / "out",
                       tournament.Options(sandbox=False, endpoints=down))
    store = ResultsStore(tmp_path / "out" / "results.sqlite")
    assert store.games() == [] and store.analyses() == []  # nothing was played
    store.close()


def test_an_evaluation_with_a_down_endpoint_stops_before_it_draws_a_stage(tmp_path: Path, capsys):
    (tmp_path / "down.model").write_text('model = "m"\n')
    code = main(["evaluate", str(tmp_path / "down.model"), "--endpoint", f"down=http://127.0.0.1:{free_port()}/v1",
                 "--variants", "2", "--out", str(tmp_path / "out")])
    assert code != 0 and "the model endpoint does not answer" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # said before the run folder is made: nothing drawn, nothing played


def test_the_check_names_the_models_an_endpoint_serves_when_ours_is_not_one():
    with Standin(models=["llama-3-8b", "qwen"]) as server:
        assert check(config_for(server, model="qwen")) == ["llama-3-8b", "qwen"]
        with pytest.raises(EndpointDown, match=r"does not serve the model 'gpt-9' \(it lists: llama-3-8b, qwen\): "
                                               r"fix `model` in standin"):
            check(config_for(server, model="gpt-9"))


def test_without_a_model_list_the_check_asks_the_model_for_one_token():
    with Standin([Scripted("pong")], lists_models=False) as server:
        assert check(config_for(server)) == []
        with pytest.raises(EndpointDown, match=r"a one-token chat with 'gpt-9' failed \(HTTP 404: .*\): check `model`"):
            check(config_for(server, model="gpt-9"))
    assert [r.path for r in server.requests] == ["/v1/models", "/v1/chat/completions"] * 2
    assert server.chats[0]["max_tokens"] == 1


def test_the_check_asks_a_reasoning_model_again_in_its_words_and_takes_no_other_400():
    refusal = REFUSED_MAX_TOKENS
    script = [Scripted(status=400, message=refusal), Scripted("p"), Scripted(status=400, message="Model Not Exist")]
    with Standin(script, lists_models=False) as server:
        assert check(config_for(server)) == []
        with pytest.raises(EndpointDown, match=r"HTTP 400: .*Model Not Exist\): check `model`"):
            check(config_for(server))
    assert server.chats[1]["max_completion_tokens"] == 1 and "max_tokens" not in server.chats[1]


def test_a_key_missing_from_the_environment_says_what_to_export(monkeypatch):
    monkeypatch.delenv("LUDICA_TEST_KEY", raising=False)
    config = ModelConfig(model="m", base_url="http://127.0.0.1:9/v1", api_key_env="LUDICA_TEST_KEY", source="g.model",
                         endpoint="local")
    with pytest.raises(ModelConfigError, match=r"g.model: the key of the endpoint local is read from "
                                               r"\$LUDICA_TEST_KEY, which is not set: export LUDICA_TEST_KEY=<your key>"):
        check(config)
    monkeypatch.setenv("LUDICA_TEST_KEY", "sk-test")
    assert config.api_key() == "sk-test"
    with Standin() as server:  # the key is sent as a bearer token
        check(ModelConfig(model=server.model, base_url=server.url, api_key_env="LUDICA_TEST_KEY"))
    assert {k.lower(): v for k, v in server.requests[0].headers.items()}["authorization"] == "Bearer sk-test"


# --- which endpoints, with which key: the evaluator's ------------------------------------------------

CANARIES = {"REL4_SECRET_TOKEN": "canary-rel4", "OPENAI_API_KEY": "canary-openai", "OPENAI_ORG_ID": "canary-org",
            "OPENAI_CUSTOM_HEADERS": "Authorization: Bearer canary-custom\nX-Leak: canary-custom"}


def sent_headers(server: Standin) -> list[dict[str, str]]:
    return [{k.lower(): v for k, v in r.headers.items()} for r in server.requests]


def test_no_secret_reaches_an_endpoint_but_the_key_the_evaluator_named_for_it(tmp_path: Path, monkeypatch):
    """A .model file once sent any of the evaluator's environment variables to any URL: `api_key_env`
    named REL4_SECRET_TOKEN, and the endpoint got it as its bearer token; naming none sent
    $OPENAI_API_KEY. Now the file names neither URL nor key, and what the `openai` client picks up
    from the environment stays here."""
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LUDICA_EVAL_KEY", "sk-evaluator")
    with Standin(default=first_empty) as server:
        with pytest.raises(ModelConfigError, match="`api_key_env`: which key is sent is the evaluator's choice"):
            model_run(tmp_path, server, 'api_key_env = "REL4_SECRET_TOKEN"\n')
        with pytest.raises(ModelConfigError, match="`base_url`: where requests go is the evaluator's choice"):
            model_run(tmp_path, server, f'base_url = "{server.url}"\n')
        assert server.requests == []  # refused before anything was sent
        model_run(tmp_path, server)  # the stand-in allowed, with no key
        other = {"other": {"url": "https://models.example/v1", "key_env": "REL4_SECRET_TOKEN"}}
        model_run(tmp_path, server, 'endpoint = "standin"\n', endpoints={**allowed(server), **other})  # another's key
        keyless = len(server.requests)
        model_run(tmp_path, server, endpoints=allowed(server, "LUDICA_EVAL_KEY"))
    headers = sent_headers(server)
    assert keyless and len(headers) > keyless
    leaked = [v for h in headers for v in h.values() if "canary" in v]
    assert leaked == [] and not any("canary" in json.dumps(body) for body in server.chats)
    assert not any("authorization" in h for h in headers[:keyless])
    assert {h["authorization"] for h in headers[keyless:]} == {"Bearer sk-evaluator"}


def test_a_model_file_names_one_of_the_evaluators_endpoints_or_none_if_there_is_one(tmp_path: Path):
    path = tmp_path / "m.model"
    path.write_text('model = "m"\n')
    one = {"local": {"url": "http://127.0.0.1:8080/v1", "key_env": ""}}
    two = {**one, "openai": {"url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"}}
    assert load_config(path, one).base_url == "http://127.0.0.1:8080/v1"
    with pytest.raises(ModelConfigError, match=r"the run allows no model endpoint: the evaluator allows an endpoint "
                                               r"with --endpoint NAME=URL"):
        load_config(path, {})
    with pytest.raises(ModelConfigError, match=r"several endpoints \(local, openai\): say which serves the model "
                                               r'with endpoint = "NAME"'):
        load_config(path, two)
    path.write_text('model = "m"\nendpoint = "openai"\n')
    assert load_config(path, two).api_key_env == "OPENAI_API_KEY"
    with pytest.raises(ModelConfigError, match=r"`endpoint` is 'openai', which the run does not allow \(it allows: "
                                               r"local\)"):
        load_config(path, one)


@pytest.mark.parametrize("endpoints, keys, message", [
    (["a=http://models.example/v1"], ["a=KEY"], r"--endpoint a=http://models.example/v1: the key \(\$KEY\) would "
                                                r"cross the network in clear text: give the endpoint's https:// URL"),
    (["a=http://127.0.0.1:8080/v1\nX: y"], [], r"--endpoint a=.*: it holds a blank or a control character"),
    (["a=https://user:sk-123@models.example/v1"], [], r"it holds a user or a password, and the URL is stored in "
                                                      r"the run folder: give the key with --endpoint-key"),
    (["a=ftp://models.example/v1"], [], r"it is not an http\(s\) URL with a host"),
    (["a=https://models.example:port/v1"], [], r"it is not a URL \(Port could not be cast"),
    (["a"], [], r"--endpoint 'a': give NAME=URL"),
    (["a=https://x/v1", "a=https://y/v1"], [], r"a is given twice"),
    (["a=https://x/v1"], ["b=KEY"], r"--endpoint-key b=\.\.\.: no --endpoint b=URL is given"),
    (["a=https://x/v1?api-key=sk-1"], [], r"it holds a query \(\?\.\.\.\) or a fragment, and the URL is stored"),
    (["a=https://x/v1"], ["a=sk-live-123$"], r"give the name of an environment variable .*, not the key itself"),
])
def test_a_bad_endpoint_option_says_what_is_wrong(endpoints, keys, message):
    with pytest.raises(EndpointOptionError, match=message) as refused:
        allowed_endpoints(endpoints, keys)
    assert "sk-live" not in str(refused.value)  # a key pasted for a variable's name is not repeated


def test_a_newline_in_an_endpoints_url_is_an_error_on_the_command_line_not_a_traceback(tmp_path: Path, capsys):
    (tmp_path / "m.model").write_text('model = "m"\n')
    code = main(["play", "tic-tac-toe", "--black", str(tmp_path / "m.model"), "--white", "random",
                 "--endpoint", "local=http://127.0.0.1:8080/v1\nHost: elsewhere"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and "it holds a blank or a control character (a newline?)" in err


def test_a_tournament_refuses_a_model_file_before_it_makes_its_run_folder(tmp_path: Path, capsys):
    (tmp_path / "m.model").write_text('model = "m"\n')
    code = main(["tournament", "tic-tac-toe", "--agent", str(tmp_path / "m.model"), "--agent", "random",
                 "--endpoint", "a=https://a.example/v1", "--endpoint", "b=https://b.example/v1",
                 "--out", str(tmp_path / "out")])
    assert code != 0 and 'several endpoints (a, b): say which serves the model with endpoint = "NAME"' in \
        " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "out").exists()  # the corrected command needs no --resume


def test_the_endpoint_table_is_kept_with_the_run_without_a_key_and_a_resumed_run_must_give_it_again(
        tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LUDICA_EVAL_KEY", "sk-evaluator")
    (tmp_path / "standin.model").write_text('model = "standin-model"\n')
    agents = [resolve(str(tmp_path / "standin.model")), resolve("random")]
    out = tmp_path / "run"
    with Standin(default=first_empty) as server:
        def run(endpoints: dict, resume: bool) -> None:
            tournament.run([stages.path("tic-tac-toe")], agents, out, tournament.Options(
                sandbox=False, analysis_time=0.2, game_time=1.0, endpoints=endpoints), resume=resume)

        run(allowed(server, "LUDICA_EVAL_KEY"), resume=False)
        stored = (out / "results.sqlite").read_bytes()
        assert b"LUDICA_EVAL_KEY" in stored and b"sk-evaluator" not in stored
        run(allowed(server, "LUDICA_EVAL_KEY"), resume=True)  # nothing left to play: the same run
        with pytest.raises(RunMismatch, match=r"--resume: the run in .* was started otherwise: options: endpoints"):
            run({"standin": {"url": server.url.replace("127.0.0.1", "localhost"), "key_env": ""}}, resume=True)
    assert not any(b"sk-evaluator" in p.read_bytes() for p in out.rglob("*") if p.is_file())


def test_only_this_machines_hosts_are_loopback():
    assert all(is_loopback(u) for u in ("http://127.0.0.1:8080/v1", "http://127.9.9.9/v1", "http://[::1]:80/v1",
                                         "http://LOCALHOST:11434/v1"))
    assert not any(is_loopback(u) for u in ("https://api.openai.com/v1", "http://10.0.0.5/v1", "http://128.0.0.1/v1",
                                             "http://localhost.example.com/v1", "http://[::2]/v1"))


def test_unseen_stages_sent_to_an_endpoint_off_the_machine_are_said_in_the_run_and_its_report(tmp_path: Path,
                                                                                            monkeypatch):
    """The unseen set is secret only while it stays here: sent to an endpoint elsewhere, the run keeps
    the endpoint's name and URL and the report says to treat the set as public."""
    from ludica.evaluation import evaluate, stageset
    from ludica.runtime import stage_entrant

    (tmp_path / "standin.model").write_text('model = "standin-model"\n')
    specs = [resolve(str(tmp_path / "standin.model")), resolve("random")]
    public = stageset.public([stages.path("tic-tac-toe")])
    unseen = [replace(s, role="unseen") for s in stageset.public([stages.path("misere-tic-tac-toe")])]
    warning = "the unseen set was sent to endpoint standin ({}), off this machine: treat it as public from now on"

    def evaluation(out: str, stages_: list, off: bool):
        monkeypatch.setattr(stage_entrant, "is_loopback", lambda url: not off)  # where the endpoint's host is
        config = evaluate.Config(Options(games=1, analysis_time=0.2, game_time=1.0, sandbox=False, model_time=30.0,
                                         endpoints=allowed(server)), adaptation=())
        return evaluate.run(stages_, specs, tmp_path / out, config, baselines=(), resamples=20)

    with Standin(default=first_empty) as server:
        said = warning.format(server.url)
        assert not any("sent to" in w for w in evaluation("here", public + unseen, off=False).warnings)
        assert not any("sent to" in w for w in evaluation("public", public, off=True).warnings)
        summary = evaluation("away", public + unseen, off=True)
        assert said in summary.warnings
        paths = report.write_report(summary, tmp_path / "away")
    assert said in json.loads(paths["json"].read_text())["warnings"] and said in paths["html"].read_text()


# --- the .model file --------------------------------------------------------------------------------


def test_a_model_file_is_read_with_its_defaults(tmp_path: Path):
    path = tmp_path / "local-llama.model"
    path.write_text('model = "llama"\nendpoint = "local"\ntemperature = 1\nrequest_timeout = 30\n'
                    '[prices]\ninput = 0.5\noutput = 1.5\n')
    config = load_config(path)
    assert config == ModelConfig(model="llama", endpoint="local", name="local-llama", temperature=1.0,
                                 request_timeout=30.0, prices=Prices(0.5, 1.5), source=str(path))
    assert (config.max_tokens, config.list_legal, config.game_tokens, config.retries) == (400, False, 0, 3)
    assert config.api_key() == "no-key" and config.prices.cost(1_000_000, 2_000_000) == pytest.approx(3.5)
    table = {"local": {"url": "http://127.0.0.1:8080/v1", "key_env": ""}, "openai": {"url": "https://x/v1",
                                                                                      "key_env": "K"}}
    assert load_config(path, table) == replace(config, base_url="http://127.0.0.1:8080/v1")


@pytest.mark.parametrize("text, message", [
    ('endpoint = "local"', r"`model` is missing: add a line such as model = \"gpt-4o-mini\""),
    ('model = "m"\nmax_tokens = "400"', r"`max_tokens` is '400': it must be an integer"),
    ('model = "m"\nmax_tokens = true', r"`max_tokens` is True: it must be an integer"),
    ('model = "m"\nlist_legal = 1', r"`list_legal` is 1: it must be true or false"),
    ('model = "m"\ntemprature = 0.2', r"unknown key `temprature`: the keys are analysis_calls, analysis_tokens, "
                                       r"endpoint"),
    ('model = "m"\nbase_url = "http://x/v1"', r"`base_url`: where requests go is the evaluator's choice, not a "
                                               r".model file's: the evaluator allows an endpoint with --endpoint "
                                               r"NAME=URL, and the file names it with endpoint = \"NAME\""),
    ('model = "m"\napi_key_env = "PATH"', r"`api_key_env`: which key is sent is the evaluator's choice, not a "
                                          r".model file's: the evaluator gives an endpoint's key with --endpoint-key "
                                          r"NAME=ENVVAR"),
    ('model = "m"\nrules = "gdl"', r"`rules`: how much of the rules a model is told is now the evaluator's choice"),
    ('model = "m"\nretries = -1', r"`retries` is -1: it must be at least 0"),
    ('model = "m"\ntemperature = 2.5', r"`temperature` is 2.5: it must be at most 2"),
    ('model = "m"\nmax_tokens = 1000000', r"`max_tokens` is 1000000: it must be at most 128000"),
    ('model = "m"\nreasoning_effort = "high"', r"`reasoning_effort`: the provider parameter reasoning_effort is the "
                                               r"evaluator's to set \(it pays for the requests\), not a .model file's: "
                                               r"the evaluator gives it with --endpoint-param NAME reasoning_effort="),
    ('model = "m"\nmax_completion_tokens = 9000', r"`max_completion_tokens`: the provider parameter"),
    ('model = "m"\nprices = 3', r"`prices` must be a table with `input` and `output`"),
    ('model = "m"\n[prices]\ninput = 1\noutput = "a"', r"`prices.output` is 'a'"),
    ('model = m', r"not valid TOML"),
])
def test_a_bad_model_file_is_named_with_its_key_and_the_fix(tmp_path: Path, text, message):
    path = tmp_path / "bad.model"
    path.write_text(text)
    with pytest.raises(ModelConfigError, match=re.escape(str(path)) + ": " + message):
        load_config(path)
    assert issubclass(ModelConfigError, ValueError)


def test_a_missing_model_file_is_a_config_error(tmp_path: Path):
    with pytest.raises(ModelConfigError, match="cannot read the model file"):
        load_config(tmp_path / "nowhere.model")


def test_a_transcript_keeps_no_terminal_escape_and_caps_a_long_answer():
    game = game_of("tic-tac-toe")
    with Standin([Scripted("\x1b[2J move: a1 " + "x" * 10_000)]) as server:
        model = seat_for(server, game)
        state = start(model, game)
        assert model.think(np.asarray(state).tolist(), [str(m) for m in game.legal_moves(state)], 10.0).reply
        text, total = model.end_game(0)
    assert "\x1b" not in text and "more characters not kept" in text and total == len(text.encode())


# --- a spy model: what the endpoint is told of the run ------------------------------------------------


def test_a_spy_model_is_told_nothing_of_the_runs_secrets(tmp_path: Path, monkeypatch):
    """A language model's only view of a run is what its endpoint receives: the prompts, the tool
    results, the headers. A spy model in a real `ludica evaluate` with an unseen stage asks for tools
    that do not exist (reading files, a shell) as well as the real ones, then plays; everything the
    endpoint received holds none of: the unseen stage's exact text (a comment and a canary in its
    file, the canonical text), the manifest's seed, a canary beside the unseen folder, in the working
    folder or the home, a variable of the referee's environment, the store. (The model's harness runs
    in the referee, outside the sandbox: the sandbox's modes do not apply to it.)"""
    token = "t" + secrets.token_hex(8)
    project, home = tmp_path / "project", tmp_path / "home"
    private = project / "private"
    private.mkdir(parents=True)
    home.mkdir()
    variant = stages.path("tic-tac-toe").read_text() + f"# {token}: a comment in the unseen stage's file\n"
    (private / "variant-001.gdl").write_text(variant)
    canonical = gdl.format(gdl.loads(variant))
    (private / "manifest.json").write_text(json.dumps({"seed": 918273645546372819, "stages": [
        {"file": "variant-001.gdl", "levin_weight": 1.0}]}))
    for folder in (project, home, private.parent):
        (folder / f"canary-{token}.txt").write_text(token)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LUDICA_SPY_SECRET", token)
    asked: list[str] = []

    def spy(body: dict) -> Scripted:
        if "tools" in body:  # the analysis: ask for what is not there, and for what is, once each
            if not asked:
                asked.append("tools")
                return Scripted(tool_calls=[("read_file", {"path": str(private / "variant-001.gdl")}),
                                            ("shell", {"command": "cat canary-*.txt ~/canary-*.txt"}),
                                            ("legal_moves", {}), ("playouts", {"n": 4})])
            return Scripted("Notes: take the centre, then corners.")
        return first_empty(body)

    (project / "spy.model").write_text('model = "standin-model"\n')

    def sent_in_run(*extra: str) -> str:
        asked.clear()
        with Standin(default=spy) as server:
            code = main(["evaluate", str(project / "spy.model"), "random", "--no-builtins", "--stage", "tic-tac-toe",
                         "--unseen", str(private), "--games", "1", "--adaptation", "none", "--resamples", "20",
                         "--analysis-time", "2", "--game-time", "2", "--endpoint", f"standin={server.url}",
                         "--out", str(tmp_path / f"run{len(extra)}"), *extra])
        assert code == 0 and asked and any("read_file" in json.dumps(c) for c in server.chats)  # answered
        return json.dumps([{"headers": r.headers, "body": r.body} for r in server.requests])

    # the control: the evaluator's --rules gdl sends the canonical text (so the check below can fail)
    assert json.dumps(canonical)[1:-1] in sent_in_run("--rules", "gdl")
    received = sent_in_run()
    at = received.find(token)
    assert token not in received, received[max(0, at - 600):at + 200]
    assert "918273645546372819" not in received and "SQLite format" not in received and "results.sqlite" not in received
    assert json.dumps(canonical)[1:-1] not in received  # the stage's canonical text, as it would be sent
