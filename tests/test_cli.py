"""The command line, run in-process."""
import json
import sqlite3

import pytest

from ludica import gdl, stages
from ludica.cli import main
from ludica.runtime import builtins


def test_check_bundled_stages(capsys):
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert f"{len(stages.bundled())} of {len(stages.bundled())} stages OK" in out
    assert "standard-8x8.gdl: OK" in out and "bits" in out


def test_check_reports_every_error_and_fails(tmp_path, capsys):
    bad = tmp_path / "bad.gdl"
    bad.write_text("board square 8\nblocked b1 j9\nplayers black white\nsetup blak d4\nmove place empty\nend no-moves: most-pieces\n")
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "bad.gdl:2:12: error: unknown cell 'j9'" in out
    assert "bad.gdl:4:7: error: unknown player 'blak'" in out
    assert "2 errors" in out


def test_check_bits_breakdown(capsys):
    assert main(["check", "--bits", "tic-tac-toe"]) == 0
    out = capsys.readouterr().out
    total = float(out.split("OK")[1].split("bits")[0])
    parts = [float(line.split()[0]) for line in out.splitlines()[1:] if line.startswith("    ")]
    assert abs(sum(parts) - total) < 0.1


def test_show(capsys):
    assert main(["show", "standard-8x8"]) == 0
    out = capsys.readouterr().out
    assert "black to move; 4 legal moves: d3 c4 f5 e6" in out
    assert "4 . . . O X . . ." in out


def test_show_unknown_stage(capsys):
    assert main(["show", "no-such-stage"]) == 2
    assert "no bundled stage named 'no-such-stage'" in capsys.readouterr().err


def test_import_arena(tmp_path, capsys):
    configs = [
        {"name": "Standard 8x8", "boardSize": 8, "initialBlocked": [],
         "initialPlayer1": [{"r": 3, "c": 4}, {"r": 4, "c": 3}], "initialPlayer2": [{"r": 3, "c": 3}, {"r": 4, "c": 4}]},
        {"name": "Holes", "boardSize": 6, "initialBlocked": [{"r": 0, "c": 0}], "ignoreOcclusion": True,
         "initialPlayer1": [{"r": 2, "c": 3}, {"r": 3, "c": 2}, {"r": 0, "c": 0}],
         "initialPlayer2": [{"r": 2, "c": 2}, {"r": 3, "c": 3}]},
    ]
    src = tmp_path / "stages.json"
    src.write_text(json.dumps(configs))
    assert main(["import-arena", str(src), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "warning:" in out and "a1" in out  # black on the blocked a1 is dropped, as the Arena does
    standard = gdl.load(tmp_path / "out" / "standard-8x8.gdl")
    assert standard == gdl.load(stages.path("standard-8x8"))
    holes = gdl.load(tmp_path / "out" / "holes.gdl")
    assert holes.moves[0].effects[0].over_blocked


def test_import_arena_bad_config(tmp_path, capsys):
    src = tmp_path / "bad.json"
    src.write_text(json.dumps({"name": "x", "boardSize": "eight"}))
    assert main(["import-arena", str(src), "--out", str(tmp_path)]) == 1
    assert "boardSize" in capsys.readouterr().err


ARENA = {"boardSize": 6, "initialBlocked": [], "initialPlayer1": [{"r": 2, "c": 3}, {"r": 3, "c": 2}],
         "initialPlayer2": [{"r": 2, "c": 2}, {"r": 3, "c": 3}]}


@pytest.mark.parametrize("content, said", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"name": "big", "boardSize": ' + b"9" * 5000 + b"}", "thousands of digits"),
    (b'{"name": "caf\xe9", "boardSize": 6}', "1:14: not UTF-8 text (byte 0xe9)"),
    (b'{"name": "x", "boardSize": 6,', "not JSON"),
    (json.dumps({"name": "all blocked", "boardSize": 2, "initialPlayer1": [], "initialPlayer2": [],
                 "initialBlocked": [{"r": r, "c": c} for r in range(2) for c in range(2)]}).encode(),
     "cannot be played: no playable cell"),
])
def test_import_arena_says_what_is_wrong_and_writes_nothing_bad(tmp_path, capsys, content, said):
    src = tmp_path / "config.json"
    src.write_bytes(content)
    assert main(["import-arena", str(src), "--out", str(tmp_path / "out")]) == 1
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing written, not even the folder


def test_import_arena_keeps_every_stage_and_overwrites_nothing(tmp_path, capsys):
    src = tmp_path / "twins.json"
    src.write_text(json.dumps([dict(ARENA, name='A "quoted"\nname'), dict(ARENA, name="a-quoted-name"),
                               dict(ARENA, name="bad", boardSize=0)]))
    out = tmp_path / "out"
    assert main(["import-arena", str(src), "--out", str(out)]) == 1  # the third is bad; the others are written
    text = capsys.readouterr()
    assert sorted(p.name for p in out.glob("*.gdl")) == ["a-quoted-name-2.gdl", "a-quoted-name.gdl"]
    assert "became \"A 'quoted' name\"" in text.out and "a-quoted-name.gdl was taken" in text.out
    assert gdl.load(out / "a-quoted-name.gdl").name == "A 'quoted' name"
    (out / "a-quoted-name-2.gdl").write_text("# mine\n" + (out / "a-quoted-name-2.gdl").read_text())
    main(["import-arena", str(src), "--out", str(out)])
    assert "already holds this stage" in capsys.readouterr().out
    assert (out / "a-quoted-name-2.gdl").read_text().startswith("# mine")  # not overwritten: a -3 instead
    assert (out / "a-quoted-name-3.gdl").is_file()
    (tmp_path / "afile").write_text("")
    assert main(["import-arena", str(src), "--out", str(tmp_path / "afile")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_demo_runs_a_tournament_of_the_builtins(tmp_path, capsys):
    args = ["demo", "--stage", "tic-tac-toe", "--out", str(tmp_path), "--analysis-time", "1", "--game-time", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "stages OK" in out and "Leaderboard: Tic-tac-toe" in out
    table = (tmp_path / "leaderboard.md").read_text()
    names = [b.name for b in builtins()]
    assert len(names) >= 2 and all(f"| {n} |" in table for n in names)
    with sqlite3.connect(tmp_path / "results.sqlite") as db:  # how it was started, kept beside its settings
        kept = json.loads(db.execute("SELECT value FROM settings WHERE key = 'invocations'").fetchone()[0])
    db.close()
    assert [k["command"] for k in kept] == ["ludica " + " ".join(args)] and kept[0]["version"]
    assert main(args) == 0  # a second run finds every game played: it resumes and only prints


def test_a_slow_wait_before_the_first_stage_fails_nothing_and_a_piped_log_gets_no_notice(tmp_path, capsys, monkeypatch):
    """The run's warm-up may wait (compiling) before any stage has a progress line: nothing fails in
    the threads, and a piped log (as here) gets no notice of it, as issue 38 asks."""
    import threading
    from contextlib import contextmanager

    from ludica.runtime import run

    @contextmanager
    def at_once(say, message, after=0.0):  # every wait is a slow one
        if say is not None:
            say(message)
        yield

    failures = []
    monkeypatch.setattr(run, "notice_if_slow", at_once)
    monkeypatch.setattr(threading, "excepthook", failures.append)
    args = ["demo", "--stage", "tic-tac-toe", "--out", str(tmp_path), "--analysis-time", "0.5", "--game-time", "0.5"]
    assert main(args) == 0
    assert not failures
    assert "compiling the engine's kernels" not in capsys.readouterr().out


@pytest.mark.parametrize("option, value, reason", [
    ("--games", "0", "must be at least 1, not 0"),
    ("--games", "-3", "must be at least 1, not -3"),
    ("--games", "two", "not a whole number: 'two'"),
    ("--game-time", "-1", "must be a finite number of seconds above 0, not -1"),
    ("--game-time", "nan", "must be a finite number of seconds above 0, not nan"),
    ("--analysis-time", "inf", "must be a finite number of seconds above 0, not inf"),
    ("--analysis-time", "0", "must be a finite number of seconds above 0, not 0"),
    ("--memory-mb", "0", "must be at least 1, not 0"),
])
def test_an_option_out_of_range_stops_with_the_reason(tmp_path, capsys, option, value, reason):
    args = ["tournament", "tic-tac-toe", "--builtins", "--out", str(tmp_path / "run"), option, value]
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {reason}" in err
    assert not (tmp_path / "run").exists()  # refused before anything was made


def test_check_reads_a_byte_order_mark_as_the_text_it_starts_and_names_bytes_that_are_not_utf8(tmp_path, capsys):
    text = stages.path("tic-tac-toe").read_text()
    with_bom = tmp_path / "bom.gdl"
    with_bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert gdl.load(with_bom) == gdl.load(stages.path("tic-tac-toe"))
    latin = tmp_path / "latin.gdl"
    latin.write_bytes(text.encode().replace(b'game "Tic-tac-toe"', b'game "Tic-tac-to\xe9"'))
    assert main(["check", str(with_bom), str(latin)]) == 1
    out = capsys.readouterr().out
    assert "bom.gdl: OK" in out
    assert "latin.gdl:1:17: not UTF-8 text (byte 0xe9)" in out and "1 of 2 stages OK" in out
    with pytest.raises(gdl.StageFileError, match="not UTF-8"):
        gdl.load(latin)


def test_a_file_far_too_large_to_be_a_stage_is_not_read(tmp_path, capsys):
    huge = tmp_path / "huge.gdl"
    with open(huge, "wb") as f:
        f.truncate(5_000_000)  # sparse: costs no disk
    with pytest.raises(gdl.StageFileError, match="5,000,000 bytes: a stage file is at most 1,000,000 characters"):
        gdl.load(huge)
    assert main(["check", str(huge)]) == 1
    assert "at most 1,000,000 characters" in capsys.readouterr().out


def test_check_of_a_folder_checks_the_stages_in_it(tmp_path, capsys):
    (tmp_path / "a.gdl").write_text(stages.path("tic-tac-toe").read_text())
    (tmp_path / "b.gdl").write_text(stages.path("hex-11").read_text())
    assert main(["check", str(tmp_path)]) == 0
    assert "2 of 2 stages OK" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check", str(empty)]) == 2
    assert "no .gdl file in the folder" in capsys.readouterr().err
    with pytest.raises(gdl.StageFileError, match="is a folder"):
        gdl.load(tmp_path)


@pytest.mark.parametrize("command", [["play", "tic-tac-toe", "--black", "mctss", "--white", "random"],
                                     ["tournament", "tic-tac-toe", "--agent", "mctss", "--agent", "random"]])
def test_a_misspelt_agent_is_named_with_the_builtins_and_the_nearest(tmp_path, capsys, command):
    assert main(command + (["--out", str(tmp_path / "run")] if command[0] == "tournament" else [])) == 2
    err = capsys.readouterr().err
    assert "error: no agent 'mctss': not a built-in (random, greedy, corners, positional, mcts, adaptive)" in err
    assert "did you mean 'mcts'?" in err and "Traceback" not in err


def _said(capsys) -> str:
    """What the command printed, lines joined (rich wraps long lines to the terminal's width)."""
    return " ".join(capsys.readouterr().out.split())


def _tournament(out, *more):
    return main(["tournament", "tic-tac-toe", "--agent", "random", "--agent", "greedy", "--out", str(out),
                 "--analysis-time", "0.5", "--game-time", "0.5", "--in-process", *more])


def test_an_existing_out_folder_keeps_its_permissions(tmp_path):
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(0o755)
    assert _tournament(out) == 0
    assert (out.stat().st_mode & 0o777) == 0o755  # only a folder ludica makes is made private
    made = tmp_path / "new"
    assert _tournament(made) == 0
    assert (made.stat().st_mode & 0o777) == 0o700


def test_a_results_file_that_is_not_ludicas_is_refused_untouched(tmp_path, capsys):
    import sqlite3

    out = tmp_path / "run"
    out.mkdir()
    db = sqlite3.connect(out / "results.sqlite")
    db.execute("CREATE TABLE invoices (id INTEGER)")
    db.commit()
    db.close()
    assert _tournament(out) == 2
    assert "is not a ludica results store (its tables: invoices); give another --out" in _said(capsys)
    db = sqlite3.connect(out / "results.sqlite")
    assert [n for (n,) in db.execute("SELECT name FROM sqlite_master")] == ["invoices"]
    db.close()

    (out / "results.sqlite").write_bytes(b"half a database" * 10)
    assert _tournament(out) == 2
    assert "is damaged or not an SQLite file" in _said(capsys)

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert _tournament(a_file) == 2
    assert "is a file, not a folder" in _said(capsys)


def test_a_second_run_on_a_folder_in_use_is_refused_naming_who_holds_it(tmp_path, capsys):
    from ludica.runtime.records import lock_folder

    out = tmp_path / "run"
    out.mkdir()
    held = lock_folder(out)  # as a run in progress holds it
    try:
        assert _tournament(out) == 2
        said = _said(capsys)
        assert "is in use by another ludica run (pid " in said and "wait for it to end, or give another --out" in said
        assert not (out / "results.sqlite").exists()
    finally:
        held.close()
    assert _tournament(out) == 0  # free again


def test_play_shows_what_a_sandboxed_agent_prints(tmp_path, capsys):
    talker = tmp_path / "talker.py"
    talker.write_text("def analyze(stage, api, clock):\n    print('hello from analysis')\n"
                      "    def strategy(state, legal, clock):\n        print('thinking about', len(legal))\n"
                      "        return legal[0]\n    return strategy\n")
    assert main(["play", "tic-tac-toe", "--black", str(talker), "--white", "random"]) == 0
    out = capsys.readouterr().out
    assert "talker| hello from analysis" in out and "talker| thinking about 9" in out


def test_every_command_is_a_module_with_its_parser_and_its_run():
    import argparse

    from ludica.cli import build_parser
    from ludica.commands import COMMANDS

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == ["check", "show", "import-arena", "play", "tournament", "sample", "evaluate",
                                 "report", "serve", "demo", "bench"]
    for command, parser in zip(COMMANDS, sub.choices.values()):
        assert parser.get_default("run") is command.run  # each subcommand calls its own module's run


@pytest.mark.parametrize("name, log_name, arena_file", [
    ("Standard 8x8", "standard-8x8", "standard-8x8"),
    ("mcts-2", "mcts-2", "mcts-2"),
    ("a_b.c", "a-b-c", "a-b-c"),
    ("\u0130stanbul", "stanbul", "i-stanbul"),  # İ: lower case first gives an ASCII i (and a combining dot)
    ("\u212aelvin", "elvin", "kelvin"),  # the Kelvin sign: lower case first gives an ASCII k
    ("--", "x", "stage"),
    ("", "x", "stage"),
])
def test_one_slug_keeps_the_run_logs_and_the_imported_stages_file_names(name, log_name, arena_file):
    from ludica.commands import import_arena
    from ludica.runtime import logs

    assert logs.slug(name) == log_name
    assert import_arena._file_stem(name) == arena_file


def test_demo_hands_the_tournament_the_options_its_command_line_gives(tmp_path, monkeypatch, capsys):
    from ludica.commands import tournament
    from ludica.runtime.plans import Options

    played = {}
    monkeypatch.setattr(tournament, "play", lambda paths, entrants, out, options, **how: played.update(
        paths=paths, agents=[a.name for a in entrants], out=out, options=options, **how) or 0)
    assert main(["demo", "--stage", "tic-tac-toe", "--out", str(tmp_path), "--analysis-time", "0.5",
                 "--seed", "7"]) == 0
    assert played["paths"] == [stages.path("tic-tac-toe")]
    assert played["agents"] == [b.name for b in builtins()]
    assert played["out"] == tmp_path and played["resume"] is False and played["jobs"] is None
    assert played["options"] == Options(games=1, analysis_time=0.5, game_time=2.0, seed=7,
                                        limits={"memory_mb": 2048})  # in the sandbox, not revealed


def test_a_piped_sample_says_its_progress_as_it_goes(tmp_path, capsys):
    """Piped, `ludica sample` drew no bar and said nothing until its summary: it says what it
    prepares, then a line for each stage accepted, before the summary."""
    assert main(["sample", "--fresh", "-n", "2", "--seed", "1", "--filters", "none", "--out", str(tmp_path / "set")]) == 0
    said = capsys.readouterr().out
    lines = [said.index(f"{k} of 2 stages accepted, ") for k in (1, 2)]
    assert said.index("preparing: the public stages' fingerprints") < lines[0] < lines[1] \
        < said.index("stages and manifest.json in")
