"""Agents that are programs in other languages (runtime/program.py, docs/protocol.md): the
reference agents in JavaScript (node) and C (gcc, built here) play whole games sandboxed, through
both levels of the line protocol, with their clocks charged; programs that misbehave get exactly
the referee's rules; the analysis level answers as the Python API does."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ludica import gdl, stages
from ludica.cli import main
from ludica.compiler import compile as compile_stage
from ludica.runtime import entrants as agents, tournament
from ludica.runtime.api import RulesApi, stage_view
from ludica.runtime.plans import Options
from ludica.runtime.program import Calls, stage_value
from ludica.runtime.records import ResultsStore
from ludica.runtime.run import Run
from ludica.runtime.runfolder import RunFolderError
from test_misbehaving import lost_by  # (a module: its tests are not collected again)

ROOT = Path(__file__).parent.parent
REFERENCE = ROOT / "docs" / "agents"
PROGRAMS = Path(__file__).parent / "programs"
STAGE = stages.path("small-board-6x6")
OPTIONS = dict(games=1, analysis_time=2.0, game_time=1.0, seed=5)

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def js(name: str) -> agents.AgentSpec:
    """A test program of tests/programs/, run by node with the helpers it shares."""
    return agents.program(["node", f"{name}.js"], PROGRAMS, name, [f"{name}.js", "lib.js"])


def run(tmp_path: Path, entrants: list[agents.AgentSpec], stage: Path = STAGE,
        **options) -> tuple[list[dict], list[dict], list[dict]]:
    """A sandboxed round robin on the small board (or `stage`): (games, analyses, logs)."""
    out = tmp_path / "out"
    tournament.run([stage], entrants, out, tournament.Options(**{**OPTIONS, **options}))
    store = ResultsStore(out / "results.sqlite")
    games, analyses = store.games(), store.analyses()
    store.close()
    logs = [json.loads(p.read_text()) for p in sorted((out / "logs").rglob("*.json"))]
    return games, analyses, logs


def against_random(tmp_path: Path, spec: agents.AgentSpec, **options):
    games, analyses, logs = run(tmp_path, [spec, agents.resolve("random")], **options)
    assert len(games) == 2 * options.get("games", 1)
    return games, analyses, logs


@pytest.fixture(scope="module")
def greedy_c(tmp_path_factory) -> Path:
    """docs/agents/greedy.c, compiled as a user would."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    folder = tmp_path_factory.mktemp("c")
    binary = folder / "greedy"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(binary), str(REFERENCE / "greedy.c")], check=True)
    return binary


@needs_node
@needs_gcc
def test_the_javascript_and_c_reference_agents_play_the_moves_of_the_python_greedy(tmp_path, greedy_c):
    entrants = [agents.resolve(str(REFERENCE / "greedy-js.agent")), agents.program([str(greedy_c)], ROOT, "greedy-c"),
                agents.resolve("greedy")]
    games, analyses, logs = run(tmp_path, entrants)
    assert len(games) == 6 and all(g["reason"] == "normal" for g in games)
    # greedy against greedy is one game whatever language each greedy is written in
    assert len({g["moves"] for g in games}) == 1
    by_name = {a["agent"]: a for a in analyses}
    assert by_name["greedy-js"]["ok"] and "greedy.js: Small Board (6x6), 6x6" in by_name["greedy-js"]["output"]
    assert by_name["greedy-c"]["ok"] and "greedy.c: stage Small Board (6x6)" in by_name["greedy-c"]["output"]
    # its clock is charged: starting node and its calls are CPU time, the program's and the relaying worker's
    assert by_name["greedy-js"]["seconds"] > 0.01
    for g in games:
        for seat in ("black", "white"):
            if g[seat] != "greedy":
                assert g[f"{seat}_time"] > 0
    lockdown = json.loads(by_name["greedy-c"]["lockdown"])
    assert "/agent/greedy (a copy, executable)" in lockdown["files"]


@needs_node
@needs_gcc
def test_the_reference_agents_answer_observations_on_a_hidden_stage(tmp_path, greedy_c):
    """On phantom tic-tac-toe both reference programs are sent `observe` lines on the opponent's
    turns and answer `ponder`: every game plays to its end, with no line out of turn."""
    entrants = [agents.resolve(str(REFERENCE / "greedy-js.agent")), agents.program([str(greedy_c)], ROOT, "greedy-c")]
    games, _, logs = run(tmp_path, entrants, stage=stages.path("phantom-tic-tac-toe"))
    assert len(games) == 2 and all(g["reason"] == "normal" for g in games), [g["log"] for g in games]
    assert not any("out of turn" in log["logText"] for log in logs)


@needs_node
def test_a_program_busy_looping_on_its_move_loses_on_time_and_is_started_again_for_the_next_game(tmp_path):
    games, analyses, logs = against_random(tmp_path, js("spinner"))
    assert lost_by(games, "spinner") == ["time", "time"]
    assert all("of CPU time, over" in log["logText"] for log in logs)
    assert sum(a["agent"] == "spinner" for a in analyses) == 2  # a fresh start (and preparation) for game two


@needs_node
def test_a_program_answering_garbage_gets_the_illegal_move_rule(tmp_path):
    games, _, logs = against_random(tmp_path, js("garbage"))
    assert lost_by(games, "garbage") == ["illegal", "illegal"]
    assert all("made 3 illegal moves (the last: 'hello, referee')" in log["logText"] for log in logs)


@needs_node
def test_a_program_that_exits_mid_game_loses_by_crash(tmp_path):
    games, _, _ = against_random(tmp_path, js("quitter"))
    assert lost_by(games, "quitter") == ["crash", "crash"]
    assert all("the program exited with code 3" in g["detail"] for g in games)
    assert all(g["plies"] >= 6 for g in games)  # it played its three moves first


@needs_node
def test_lines_nobody_asked_for_are_dropped_and_standard_error_is_kept(tmp_path):
    games, _, logs = against_random(tmp_path, js("chatty"), games=2)
    assert all(g["reason"] == "normal" and json.loads(g["illegal"]) == [0, 0] for g in games)  # no repeated line taken for a move
    texts = [o["text"] for log in logs for o in log["output"] if o["text"]]
    assert texts and all("thinking about" in t for t in texts)


@needs_node
def test_a_program_calls_the_api_while_preparing_and_while_playing(tmp_path):
    games, analyses, logs = against_random(tmp_path, js("caller"))
    assert all(g["reason"] == "normal" for g in games)
    assert "prepared: Small Board (6x6) 6x6, 10 playouts" in [a for a in analyses if a["agent"] == "caller"][0]["output"]
    assert not any("mismatch" in o["text"] for log in logs for o in log["output"])
    # it answered with text (the last legal move), which the referee played as it is
    assert all(json.loads(g["illegal"]) == [0, 0] for g in games)


def test_a_program_sees_only_its_own_standard_streams(tmp_path):
    spec = agents.program(["./fds.sh"], PROGRAMS)
    games, analyses, _ = against_random(tmp_path, spec)
    assert all(g["reason"] == "normal" for g in games)
    (mine,) = [a for a in analyses if a["agent"] == "fds"]
    listed = set(mine["output"].split())
    assert {"0", "1", "2"} <= listed <= {"0", "1", "2", "3"}, listed  # 3: the folder ls itself opened


def test_in_process_runs_refuse_agent_programs(tmp_path):
    spec = agents.program(["./fds.sh"], PROGRAMS)
    with pytest.raises(gdl.LudicaError, match="an agent program runs only in the sandbox; leave out --in-process"):
        run(tmp_path, [spec, agents.resolve("random")], sandbox=False)


# --- the analysis level, against the Python API ------------------------------------------------


@pytest.fixture(scope="module")
def small():
    game = compile_stage(gdl.loads(STAGE.read_text()))
    api = RulesApi(game)
    return game, api, Calls(api, stage_view(game), lambda: (10.0, 2.5))


def ask(calls: Calls, **call) -> dict:
    return json.loads(calls.answer(json.dumps(call)))


def positions(game, n: int = 40) -> list[np.ndarray]:
    """States along a few random games."""
    rng = np.random.default_rng(3)
    found = []
    for _ in range(4):
        state = game.initial_state()
        while not game.is_terminal(state) and len(found) < n:
            found.append(state)
            moves = game.legal_moves(state)
            state = game.apply(state, moves[rng.integers(len(moves))])
    return found


def test_every_call_answers_what_the_python_api_answers(small):
    game, api, calls = small
    for state in positions(game):
        s = [int(v) for v in state]
        assert ask(calls, call="legal_moves", state=s) == {"ok": True, "value": [str(m) for m in api.legal_moves(state)]}
        actions = api.legal_actions(state)
        assert ask(calls, call="legal_actions", state=s)["value"] == actions
        for action in actions:
            child, taken = api.apply_action(state, action)
            value = ask(calls, call="apply_action", state=s, action=action)["value"]
            assert value["state"] == child.tolist() and value["captured"] == taken
            assert value["over"] == api.is_terminal(child)
            assert value["actions"] == ([] if value["over"] else api.legal_actions(child))
            assert ask(calls, call="apply", state=s, move=str(api.move_of(action)))["value"] == value
        assert ask(calls, call="to_move", state=s)["value"] == api.to_move(state)
        assert ask(calls, call="is_terminal", state=s)["value"] is False
        assert ask(calls, call="returns", state=s)["value"] == list(api.returns(state))
        assert ask(calls, call="board", state=s)["value"] == api.board(state).tolist()
        assert ask(calls, call="evaluate", state=s, player=1)["value"] == api.evaluate(state, 1)
    done = api.playouts(None, 20, seed=7)
    assert ask(calls, call="playouts", state=None, n=20, seed=7)["value"] == {
        "lengths": done.lengths.tolist(), "returns": done.returns.tolist(), "cut": done.cut}
    assert ask(calls, call="move_of", action=14)["value"] == "c3"
    assert ask(calls, call="action_of", move="c3")["value"] == 14
    assert ask(calls, call="parse_move", text="C3")["value"] == "c3"
    assert ask(calls, call="clock")["value"] == {"budget": 10.0, "used": 2.5, "remaining": 7.5}
    stage = ask(calls, call="stage")["value"]
    assert stage == stage_value(stage_view(game), api)
    assert stage["legal_first_actions"] == api.legal_actions(game.initial_state())
    assert stage["description"] is None  # the rules are not told (GGP mode aside)


def test_answers_have_a_fixed_key_order_and_no_spaces(small):
    _, _, calls = small
    line = calls.answer('{"call":"apply_action","state":' + json.dumps(small[0].initial_state().tolist()).replace(" ", "")
                        + ',"action":8}')
    assert line.startswith('{"ok":true,"value":{"state":[') and " " not in line
    assert '"captured":1,"actions":[' in line


@pytest.mark.parametrize("line, kind, said", [
    ("{not json", "BadJSON", ""),
    ("[1, 2]", "ValueError", "a call is a JSON object"),
    ('{"call": "fly"}', "ValueError", "no call 'fly'; the calls are stage, legal_moves"),
    ('{"call": "legal_moves", "state": "abc"}', "ValueError", "a state is a list of integers"),
    ('{"call": "legal_moves", "state": [1, 2, 3]}', "ValueError", ""),
    ('{"call": "legal_moves", "state": [99999999999]}', "ValueError", "32-bit"),
    ('{"call": "apply_action", "state": null, "action": 9999}', "ValueError", ""),
    ('{"call": "move_of", "action": "x"}', "ValueError", "action is an integer"),
    ('{"call": "evaluate", "state": [], "player": 2}', "ValueError", ""),
    ('{"call": "playouts", "state": null, "n": 1, "seed": 18446744073709551616}', "ValueError", "64 bits"),
])
def test_a_bad_call_gets_an_error_answer_never_an_exception(small, line, kind, said):
    _, _, calls = small
    answer = json.loads(calls.answer(line))
    assert answer["ok"] is False and answer["error"] == kind and said in answer["message"]


def test_an_illegal_action_is_refused_by_name(small):
    game, _, calls = small
    start = game.initial_state().tolist()
    answer = ask(calls, call="apply_action", state=start, action=0)
    assert answer["ok"] is False and answer["message"]


# --- naming and resolving program agents -------------------------------------------------------


def test_an_agent_file_names_its_command_and_files(tmp_path):
    (tmp_path / "bot.js").write_text("// a bot\n")
    (tmp_path / "book.txt").write_text("openings\n")
    (tmp_path / "mybot.agent").write_text('name = "Bot One"\ncommand = ["node", "bot.js", "--fast"]\n'
                                          'files = ["bot.js", "book.txt"]\n')
    spec = agents.resolve(str(tmp_path / "mybot.agent"))
    assert (spec.name, spec.kind, spec.command) == ("Bot One", "program", ("node", "bot.js", "--fast"))
    assert [p.name for p, _ in spec.files] == ["bot.js", "book.txt"]
    first = spec.fingerprint
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path, moved, ignore=shutil.ignore_patterns("elsewhere"))
    assert agents.resolve(str(moved / "mybot.agent")).fingerprint == first  # no host path in it
    (tmp_path / "book.txt").write_text("other openings\n")
    assert agents.resolve(str(tmp_path / "mybot.agent")).fingerprint != first  # a file changed: no resume


def test_the_command_words_that_name_files_are_copied_and_rewritten(tmp_path):
    binary = tmp_path / "bot"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    spec = agents.program([str(binary), "--depth", "3"], Path("."))  # as --agent-cmd gives it: any file
    assert spec.command == ("./bot", "--depth", "3") and spec.files == ((binary.resolve(), True),)
    assert spec.name == "bot"


@pytest.mark.parametrize("text", [
    'command = ["python3", "bot.py"]\nfiles = ["bot.py", "{secret}"]\n',    # a file of the machine's, by its path
    'command = ["python3", "bot.py"]\nfiles = ["bot.py", "../secret.txt"]\n',  # out of the folder
    'command = ["python3", "bot.py"]\nfiles = ["bot.py", "link.txt"]\n',      # in it, a link out of it
    'command = ["python3", "bot.py", "{secret}"]\n',                          # a command word
    'command = ["python3", "bot.py", "/proc/self/environ"]\n',                # the referee's environment
])
def test_an_agent_file_cannot_have_the_machines_files_copied_in(tmp_path, text):
    """Its author wrote the names, and the referee copies what they name: only its own folder's
    files (links followed) are the agent's."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the evaluator's\n")
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "bot.py").write_text("print('ready')\n")
    (folder / "link.txt").symlink_to(secret)
    (folder / "bot.agent").write_text(text.format(secret=secret))
    with pytest.raises(agents.AgentFileError, match="outside its folder .*copy the file there"):
        agents.resolve(str(folder / "bot.agent"))


def test_an_agent_file_cannot_name_a_file_of_a_run_kept_in_its_folder(tmp_path):
    """`cd submission && ludica evaluate bot.agent` keeps ./ludica-eval beside the agent: a later
    run's agent file may not name that run's files (its store, draw seed, unseen stages)."""
    (tmp_path / "bot.py").write_text("print('ready')\n")
    (tmp_path / "ludica-eval" / "unseen").mkdir(parents=True)
    (tmp_path / "ludica-eval" / "results.sqlite").write_bytes(b"")
    (tmp_path / "ludica-eval" / "unseen" / "variant-1.gdl").write_text("game \"x\"\n")
    for named in ("ludica-eval/results.sqlite", "ludica-eval/unseen/variant-1.gdl"):
        (tmp_path / "bot.agent").write_text(f'command = ["python3", "bot.py"]\nfiles = ["bot.py", "{named}"]\n')
        with pytest.raises(agents.AgentFileError, match="a run folder of ludica's.*keep runs and drawn sets out of the agent's folder"):
            agents.resolve(str(tmp_path / "bot.agent"))
    (tmp_path / "bot.agent").write_text('command = ["python3", "bot.py"]\n')
    assert [p.name for p, _ in agents.resolve(str(tmp_path / "bot.agent")).files] == ["bot.py"]


def test_an_agent_file_in_the_home_folder_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "bot.py").write_text("print('ready')\n")
    (tmp_path / "bot.agent").write_text('command = ["python3", "bot.py"]\n')
    with pytest.raises(agents.AgentFileError, match="put the agent in a folder of its own"):
        agents.resolve(str(tmp_path / "bot.agent"))


def test_a_system_interpreter_named_by_its_path_is_the_sandboxs_not_a_copy(tmp_path):
    (tmp_path / "bot.py").write_text("print('ready')\n")
    (tmp_path / "bot.agent").write_text('command = ["/usr/bin/python3", "bot.py"]\n')
    spec = agents.resolve(str(tmp_path / "bot.agent"))
    assert spec.command == ("/usr/bin/python3", "bot.py") and [p.name for p, _ in spec.files] == ["bot.py"]


def test_no_agent_is_given_a_file_of_the_run_folder(tmp_path):
    """The run folder holds the store, the secret draw seed and the unseen stages: an agent whose
    file lies in it, or whose data folder holds it or lies in it, is refused before a game."""
    out = tmp_path / "run"
    stage = gdl.load(stages.path("tic-tac-toe"))
    (tmp_path / "bot.py").write_text("print('ready')\n")
    outside = agents.program(["python3", "bot.py"], tmp_path, confined=True)
    with Run.open(out) as run:
        (out / "sub").mkdir()  # as a resumed run's folder holds its files
        (out / "sub" / "seed.py").write_text("print('ready')\n")
        inside = agents.program(["python3", "seed.py"], out / "sub", confined=True)
        for spec, said in [(inside, "its file .* is in the run folder"),
                           (replace(outside, data=tmp_path), "its data folder .* holds the run folder"),
                           (replace(outside, data=out / "sub"), "its data folder .* is in the run folder")]:
            with pytest.raises(RunFolderError, match=said):
                run.start([stage], [spec], Options())
        run.start([stage], [replace(outside, data=tmp_path / "data")], Options())  # apart from it: fine


@pytest.mark.parametrize("text, said", [
    ('command = ["node", "bot.js"]\ncolour = "blue"\n', "unknown key 'colour'"),
    ('name = "x"\n', "no command"),
    ("command = [\n", "not TOML"),
    ('command = ["nonesuch-interpreter-23", "bot.js"]\n', "no program 'nonesuch-interpreter-23' on the sandbox's PATH"),
    ('command = ["./bot.js"]\n', "is not executable; chmod +x it"),
    ('command = ["node", "bot.js"]\nfiles = ["missing.js"]\n', "'missing.js' is not a file"),
    ('command = ["sub/run"]\nfiles = []\n', "is not one of the agent's files"),
])
def test_a_bad_agent_file_is_refused_with_what_to_fix(tmp_path, text, said):
    (tmp_path / "bot.js").write_text("// a bot\n")
    (tmp_path / "bad.agent").write_text(text)
    with pytest.raises(agents.AgentFileError, match=re.escape(said)):
        agents.resolve(str(tmp_path / "bad.agent"))


def test_an_interpreter_outside_usr_is_refused_with_where_it_is(tmp_path, monkeypatch):
    home = tmp_path / ".nvm" / "bin"
    home.mkdir(parents=True)
    (home / "mynode").write_text("#!/bin/sh\n")
    (home / "mynode").chmod(0o755)
    monkeypatch.setenv("PATH", f"{home}:/usr/bin:/bin")
    with pytest.raises(agents.AgentFileError, match=f"mynode is at {home}/mynode, which the sandbox does not show"):
        agents.program(["mynode", "bot.js"], tmp_path)


@needs_node
def test_a_program_asks_a_rules_oracle_under_isolate_rules(tmp_path):
    games, analyses, logs = against_random(tmp_path, js("caller"), isolate_rules=True)
    assert all(g["reason"] == "normal" and json.loads(g["illegal"]) == [0, 0] for g in games)
    (mine,) = [a for a in analyses if a["agent"] == "caller"]
    assert "prepared: Small Board (6x6) 6x6, 10 playouts" in mine["output"]
    assert "oracle" in json.loads(mine["lockdown"])["rules"]
    assert not any("mismatch" in o["text"] for log in logs for o in log["output"])


def test_no_agent_is_given_the_unseen_folder_or_a_stage_file_of_the_run(tmp_path, capsys, monkeypatch):
    """The unseen folder given with --unseen is guarded as the run folder is: an agent file beside
    it may not list its stages as its own files, a data folder may not hold it or lie in it, and a
    stage file of a tournament is no agent's. (A folder with a sampler's manifest is refused as an
    agent's files' folder before that: test_an_agent_file_may_not_list_a_secret_of_another_run.)"""
    project = tmp_path / "project"
    private = project / "private"
    private.mkdir(parents=True)
    (private / "hidden-001.gdl").write_text(stages.path("tic-tac-toe").read_text())
    (project / "bot.py").write_text("print('ready')\n")
    (project / "bot.agent").write_text('command = ["python3", "bot.py"]\n'
                                        'files = ["bot.py", "private/hidden-001.gdl"]\n')
    (project / "plain.agent").write_text('command = ["python3", "bot.py"]\n')
    run = ["--no-builtins", "--stage", "tic-tac-toe", "--unseen", str(private), "--games", "1", "--adaptation",
           "none", "--resamples", "20"]
    cases = [
        ([str(project / "bot.agent"), "random"], "its file .*hidden-001.gdl is in the unseen stages' folder"),
        ([str(project / "plain.agent"), "random", "--agent-data", f"plain={project}"],
         "its data folder .* holds the unseen stages' folder"),
        ([str(project / "plain.agent"), "random", "--agent-data", f"plain={private}"],
         "its data folder .* is the unseen stages' folder"),
    ]
    for k, (chosen, said) in enumerate(cases):
        assert main(["evaluate", *chosen, *run, "--out", str(tmp_path / f"out-{k}")]) == 2
        assert re.search(said, capsys.readouterr().err.replace("\n", " ")), said
    # a tournament's stage file (here one of an unseen set played as a tournament) is no agent's
    monkeypatch.setenv("COLUMNS", "1000")  # the error is one line
    (project / "stage.agent").write_text('command = ["python3", "bot.py"]\nfiles = ["bot.py", "private/hidden-001.gdl"]\n')
    assert main(["tournament", str(private / "hidden-001.gdl"), "--agent", str(project / "stage.agent"),
                 "--agent", "random", "--games", "1", "--out", str(tmp_path / "t")]) == 2
    said = capsys.readouterr()
    assert re.search("its file .*hidden-001.gdl is the stage file", (said.out + said.err).replace("\n", " "))


@pytest.mark.parametrize("mark, listed, said", [
    ("old-run/game-secret.json", "old-run/notes.txt", "a run folder of ludica's or a drawn set"),
    ("old-set/draw-seed.json", "old-set/notes.txt", "a run folder of ludica's or a drawn set"),
    ("old-set/manifest.json", "old-set/variant-001.gdl", "a run folder of ludica's or a drawn set"),
    (None, ".env", "named as an environment's secrets (.env)"),
    (None, ".env.local", "named as an environment's secrets (.env)"),
])
def test_an_agent_file_may_not_list_a_secret_of_another_run_or_the_environment(tmp_path, mark, listed, said):
    """Not this run's secrets (guarded.py) but those a participant's folder may hold when the evaluator
    puts it in a project: an earlier run's game secret or draw seed, a drawn set, a .env."""
    (tmp_path / "bot.py").write_text("print('ready')\n")
    for name in (mark, listed):
        if name:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text("{}")
    (tmp_path / "bot.agent").write_text(f'command = ["python3", "bot.py"]\nfiles = ["bot.py", "{listed}"]\n')
    with pytest.raises(agents.AgentFileError, match=re.escape(said)):
        agents.resolve(str(tmp_path / "bot.agent"))


def test_one_game_and_the_play_page_guard_their_stage_file_and_folders(tmp_path, capsys):
    """`ludica play` and `ludica serve`'s Play page keep a stage file of theirs from an agent, as a
    run does (guarded.py): an .agent file beside a private stage may not list it."""
    from ludica.web.play import PlayRoom

    (tmp_path / "private").mkdir()
    stage = tmp_path / "private" / "secret.gdl"
    stage.write_text(stages.path("tic-tac-toe").read_text())
    (tmp_path / "bot.py").write_text("print('ready')\n")
    (tmp_path / "bot.agent").write_text('command = ["python3", "bot.py"]\nfiles = ["bot.py", "private/secret.gdl"]\n')
    assert main(["play", str(stage), "--black", str(tmp_path / "bot.agent"), "--white", "random"]) == 2
    assert "is the stage file" in capsys.readouterr().err.replace("\n", " ")
    room = PlayRoom(tmp_path / "store", (tmp_path / "bot.agent",), served=(tmp_path / "private",))
    game = room.start(stage, "bot", "random", 2.0, 60.0, 2.0)
    deadline = time.monotonic() + 60
    while game.end is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert game.end is not None and "is the stage file" in " ".join(game.end["log"]), game.end


# a Python program that writes its lines and never flushes them (a pipe is block-buffered);
# FLUSH_READY: it flushes its `ready`, so only its moves stay in its buffer
UNFLUSHED = '''import sys
FLUSH_READY = {flush}
for line in sys.stdin:
    if line.startswith("prepare"):
        sys.stdout.write("ready\\n")
        if FLUSH_READY:
            sys.stdout.flush()
    elif line.strip() and all(w.lstrip("-").isdigit() for w in line.split()) and len(line.split()) < 9:
        sys.stdout.write(line.split()[0] + "\\n")  # the first legal action, never flushed
'''


@pytest.mark.parametrize("flush, missing", [(False, "no `ready` line received"),
                                            (True, "no answer to the move request")], ids=["ready", "move"])
def test_a_program_that_never_flushes_is_told_which_line_never_came(tmp_path, flush, missing):
    (tmp_path / "quiet.py").write_text(UNFLUSHED.format(flush=flush))
    (tmp_path / "quiet.agent").write_text('name = "quiet"\ncommand = ["python3", "quiet.py"]\nfiles = ["quiet.py"]\n')
    done = subprocess.run([sys.executable, "-m", "ludica.cli", "play", "tic-tac-toe", "--black", "quiet.agent",
                           "--white", "random", "--analysis-time", "1", "--game-time", "1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("x (quiet) "))
    assert f"{missing}: did it flush its output? (Python: print(..., flush=True); C: fflush(stdout)" in line, line
