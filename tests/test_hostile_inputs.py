"""Inputs from outside, each bounded and the bound named when it is passed: `ludica serve`'s request
bodies, an agent's files, the sizes of work the command line asks for, stage files that are not
regular files, and a sampled set a kill left half written."""
from __future__ import annotations

import asyncio
import warnings

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra installs it)")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from ludica.web import PlayRoom, create_app, sort_folders
from ludica.web.play import MAX_BODY

LOCAL = "http://127.0.0.1"
ORIGIN = {"Origin": LOCAL}


@pytest.fixture
def client(tmp_path) -> TestClient:
    room = PlayRoom(tmp_path / "store", sandbox=False)
    with TestClient(create_app(sort_folders([]), resamples=20, room=room), base_url=LOCAL) as c:
        yield c


# --- ludica serve: request bodies ------------------------------------------------------------------

def test_a_body_past_the_bound_is_413_naming_it(client):
    answer = client.post("/play", content=b"a" * (MAX_BODY + 1), headers=ORIGIN
                         | {"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 413
    assert answer.json()["error"] == (f"the request's body is past {MAX_BODY:,} bytes, the most a form or a move of "
                                      "the Play page needs: send only its fields")


def test_a_body_within_the_bound_is_read_as_before(client):
    answer = client.post("/play", data={"stage": "0/tic-tac-toe.gdl", "black": "random", "white": "random"},
                         headers=ORIGIN, follow_redirects=False)
    assert answer.status_code == 303


def test_json_nested_past_python_s_stack_is_400_not_a_server_error(client):
    deep = "[" * 5000 + "]" * 5000  # within MAX_BODY; json.loads alone raises RecursionError at this depth
    answer = client.post("/play", content=deep, headers=ORIGIN | {"Content-Type": "application/json"})
    assert answer.status_code == 400 and "nested at most" in answer.json()["error"]


def test_a_body_that_does_not_say_its_length_is_not_read_past_the_bound(tmp_path):
    """At the ASGI level, as uvicorn hands a chunked body over: the app stops asking for chunks once
    the bound is passed, so a body of any length costs the memory of the bound."""
    app = create_app(sort_folders([]), resamples=20, room=PlayRoom(tmp_path / "store", sandbox=False))
    chunk, asked, sent = b"a" * 4096, [0], []
    total = 10_000  # chunks on offer: 40 MB

    async def receive():
        asked[0] += 1
        return {"type": "http.request", "body": chunk, "more_body": asked[0] < total}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/play", "raw_path": b"/play", "query_string": b"",
             "root_path": "", "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
             "http_version": "1.1", "headers": [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1"),
                                               (b"content-type", b"application/x-www-form-urlencoded")]}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    assert asked[0] <= MAX_BODY // len(chunk) + 2


# --- an agent's files, read by the referee before any sandbox ---------------------------------------

AGENT = 'NAME = "padded"\n\ndef analyze(stage, api, clock):\n    return lambda state, legal, clock: legal[0]\n'


def test_an_agent_file_past_the_bound_is_refused_unread(tmp_path, capsys, monkeypatch):
    from ludica.cli import main
    from ludica.runtime import entrants

    big = tmp_path / "big.py"
    big.write_text(AGENT + "#" * entrants.MAX_AGENT_BYTES + "\n")
    monkeypatch.setattr(entrants.ast, "parse", None)  # not parsed: the bound is said first
    assert main(["play", "tic-tac-toe", "--black", str(big), "--white", "random", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"agent file {big} is {big.stat().st_size:,} bytes: an agent's file is at most 1,000,000 bytes" in err
    assert "--agent-data AGENT=DIR" in err


def test_an_agent_file_within_the_bound_plays(tmp_path, capsys):
    from ludica.cli import main
    from ludica.runtime import entrants

    padded = tmp_path / "padded.py"
    padded.write_text(AGENT + "#" * (entrants.MAX_AGENT_BYTES - len(AGENT) - 2) + "\n")
    assert padded.stat().st_size <= entrants.MAX_AGENT_BYTES
    assert main(["play", "tic-tac-toe", "--black", str(padded), "--white", "random", "--quiet",
                 "--in-process"]) == 0


def test_an_agent_program_s_files_are_bounded_together_and_in_number(tmp_path, monkeypatch):
    from ludica.runtime import entrants

    (tmp_path / "bot").write_text("#!/bin/sh\n")
    (tmp_path / "bot").chmod(0o755)
    (tmp_path / "table.bin").write_bytes(b"\0" * 5000)
    (tmp_path / "bot.agent").write_text('command = ["./bot"]\nfiles = ["bot", "table.bin"]\n')
    monkeypatch.setattr(entrants, "MAX_PROGRAM_BYTES", 4096)
    with pytest.raises(entrants.AgentFileError, match=r"its files are 5,010 bytes together: an agent program's "
                                                      r"files are at most 4,096 bytes"):
        entrants.resolve(str(tmp_path / "bot.agent"))
    monkeypatch.setattr(entrants, "MAX_PROGRAM_BYTES", 10**6)
    monkeypatch.setattr(entrants, "MAX_PROGRAM_FILES", 1)
    with pytest.raises(entrants.AgentFileError, match="2 files: an agent program has at most 1;"):
        entrants.resolve(str(tmp_path / "bot.agent"))
    monkeypatch.setattr(entrants, "MAX_PROGRAM_FILES", 2)
    assert entrants.resolve(str(tmp_path / "bot.agent")).kind == "program"


# --- the command line: options that size work ------------------------------------------------------

BOUNDED = [  # (command line, its option, the bound, what the message says it is)
    (["evaluate", "--qualify"], "--qualify", 1_000, "games per seating and stage"),
    (["evaluate", "--games"], "--games", 1_000, "games per seating and stage"),
    (["evaluate", "--reference-games"], "--reference-games", 1_000, "games per seating and stage"),
    (["evaluate", "--variants"], "--variants", 10_000, "stages in a set"),
    (["evaluate", "--max-stages"], "--max-stages", 10_000, "stages in a set"),
    (["evaluate", "--jobs"], "--jobs", 256, "processes side by side"),
    (["evaluate", "--resamples"], "--resamples", 100_000, "bootstrap resamples"),
    (["evaluate", "--memory-mb"], "--memory-mb", 1_048_576, "megabytes: a terabyte"),
    (["tournament", "tic-tac-toe", "--out", "o", "--games"], "--games", 1_000, "games per seating and stage"),
    (["tournament", "tic-tac-toe", "--out", "o", "--jobs"], "--jobs", 256, "processes side by side"),
    (["sample", "--fresh", "--seed", "1", "--out", "o", "-n"], "-n", 10_000, "stages in a set"),
    (["sample", "--fresh", "--seed", "1", "--out", "o", "-n", "1", "--jobs"], "--jobs", 256, "processes side by side"),
    (["sample", "--fresh", "--seed", "1", "--out", "o", "-n", "1", "--max-candidates"], "--max-candidates",
     10_000_000, "candidates judged"),
    (["report", "run", "--resamples"], "--resamples", 100_000, "bootstrap resamples"),
    (["serve", "--resamples"], "--resamples", 100_000, "bootstrap resamples"),
    (["serve", "--port"], "--port", 65_535, "the largest TCP port"),
]


@pytest.mark.parametrize("argv, option, bound, what", BOUNDED, ids=[" ".join(b[0]) for b in BOUNDED])
def test_an_option_that_sizes_work_is_bounded_at_parsing(argv, option, bound, what, capsys):
    from ludica.cli import build_parser

    parser = build_parser()
    assert getattr(parser.parse_args([*argv, str(bound)]), option.lstrip("-").replace("-", "_")) == bound
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args([*argv, "1000000000"])
    assert exit_.value.code == 2
    assert f"argument {option}: must be at most {bound:,} ({what}), not 1,000,000,000" in capsys.readouterr().err


def test_time_options_are_bounded_at_a_week(capsys):
    from ludica.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["evaluate", "--analysis-time", "1e300"])
    assert "argument --analysis-time: must be at most 604,800 seconds (a week), not 1e300" in capsys.readouterr().err
    assert build_parser().parse_args(["evaluate", "--game-time", "604800"]).game_time == 604_800
    for huge in ("1e300", "inf"):  # a timer of 1e300 s overflowed threading's wait: an OverflowError
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--abandon-after", huge])
    assert "argument --abandon-after: must be a" in capsys.readouterr().err


# --- stage files that are not regular files --------------------------------------------------------

def _ludica(*argv: str, timeout: float = 120) -> tuple[int, str]:
    """The command in a process of its own (its exit status, and what it printed on both streams):
    one that hangs fails the test when `timeout` runs out, one that reads without end when its 3 GB
    of address space do (the machine's memory is not the test's to take)."""
    import resource
    import subprocess
    import sys

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run([sys.executable, "-m", "ludica", *argv], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limited)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("command", [["show"], ["check"], ["evaluate", "random", "greedy", "--no-builtins",
                                                           "--no-unseen", "--stage"]])
def test_a_fifo_given_as_a_stage_is_refused_not_waited_on(tmp_path, command):
    import os

    fifo = tmp_path / "stage.gdl"
    os.mkfifo(fifo)
    code, err = _ludica(*command, str(fifo), *(["--out", str(tmp_path / "run")] if "evaluate" in command else []),
                        timeout=60)
    assert code == 1 and "Traceback" not in err
    assert (f"{fifo} is a FIFO (a named pipe), not a regular file: a stage file is read whole from a regular file; "
            "give one") in err
    assert not (tmp_path / "run").exists()


def test_a_device_given_as_a_stage_is_refused_unread():
    code, said = _ludica("check", "/dev/zero", timeout=60)
    assert code == 1 and "/dev/zero is a character device, not a regular file" in said and "Traceback" not in said


def test_serve_lists_a_folder_holding_a_fifo_without_waiting_on_it(tmp_path):
    import os

    folder = tmp_path / "stages"
    folder.mkdir()
    (folder / "ok.gdl").write_text('game "Fine"\nboard square 3\nplayers x o\nmove place empty\nend board-full: draw\n')
    os.mkfifo(folder / "pipe.gdl")
    # should a page wait on the FIFO after all, a writer comes after a while and ends it: the test
    # then fails on its assertions, rather than hanging the suite
    import threading

    waited: list[bool] = []

    def come_and_go() -> None:
        waited.append(True)
        os.close(os.open(folder / "pipe.gdl", os.O_WRONLY))

    unblock = threading.Timer(30, come_and_go)
    unblock.daemon = True
    unblock.start()
    client = TestClient(create_app(sort_folders([folder]), resamples=20), base_url=LOCAL)
    listed = client.get("/stages")
    page = client.get("/stages/1/pipe.gdl")
    unblock.cancel()
    assert not waited, "a page waited on the FIFO"
    assert listed.status_code == 200 and "Fine" in listed.text and "pipe" in listed.text
    assert page.status_code == 200 and "is a FIFO (a named pipe), not a regular file" in page.text


# --- a sampled set a kill left half written ---------------------------------------------------------

SAMPLE = ["sample", "--fresh", "-n", "2", "--seed", "1", "--filters", "none"]
KILLED_WRITING = """
import os, signal, sys
from ludica.cli import main
from ludica.sampler import output

real = output.write_atomic

def killed_at_the_manifest(path, text, **kw):
    if path.name == "manifest.json":  # the stages are written: the process dies before its manifest
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path, text, **kw)

output.write_atomic = killed_at_the_manifest
sys.exit(main(sys.argv[1:]))
"""


def _evaluate_unseen(folder, out) -> tuple[int, str]:
    return _ludica("evaluate", "random", "greedy", "--no-builtins", "--stage", "tic-tac-toe", "--unseen", str(folder),
                   "--in-process", "--analysis-time", "0.5", "--game-time", "0.5", "--resamples", "20", "--jobs", "1",
                   "--out", str(out), timeout=300)


def test_a_sample_killed_while_writing_leaves_no_set(tmp_path):
    import signal
    import subprocess
    import sys

    out = tmp_path / "set"
    done = subprocess.run([sys.executable, "-c", KILLED_WRITING, *SAMPLE, "--out", str(out)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL
    assert not out.exists()  # the stages written so far are in a hidden folder beside it, never in it
    assert [p.name.startswith(".set.partial-") for p in tmp_path.iterdir()] == [True]
    code, said = _evaluate_unseen(out, tmp_path / "run")
    assert code == 2 and "Traceback" not in said and not (tmp_path / "run").exists()


def test_the_sampler_s_stages_without_their_manifest_are_refused(tmp_path):
    """As an older ludica left a set killed while it wrote (its stages, then the manifest, in place)."""
    from ludica.cli import main

    out = tmp_path / "set"
    assert main([*SAMPLE, "--out", str(out)]) == 0
    (out / "manifest.json").unlink()
    code, said = _evaluate_unseen(out, tmp_path / "run")
    assert code == 2 and not (tmp_path / "run").exists()
    assert (f"error: {out} holds stages the sampler named (fresh-001.gdl, fresh-002.gdl) but no manifest.json: the "
            "set's writing was cut short") in said and "Draw it again" in said


@pytest.mark.parametrize("change", ["remove", "add", "edit", "accepted"])
def test_a_set_whose_files_do_not_match_its_manifest_is_refused(tmp_path, capsys, change):
    import json

    from ludica.cli import main

    out = tmp_path / "set"
    assert main([*SAMPLE, "--out", str(out)]) == 0
    manifest = out / "manifest.json"
    if change == "remove":
        (out / "fresh-002.gdl").unlink()
        said = f"{manifest} lists fresh-002.gdl, which {out} does not hold: the set is incomplete"
    elif change == "add":
        (out / "mine.gdl").write_text((out / "fresh-001.gdl").read_text())
        said = f"{out} holds mine.gdl, which its manifest.json does not list (nor weighs)"
    elif change == "edit":
        (out / "fresh-001.gdl").write_text((out / "fresh-002.gdl").read_text())
        said = f"{out / 'fresh-001.gdl'} is not the stage its manifest lists (its sha256 differs)"
    else:
        data = json.loads(manifest.read_text())
        manifest.write_text(json.dumps(data | {"accepted": 3}))
        said = f"{manifest} says 3 stages were accepted but lists 2"
    capsys.readouterr()
    assert main(["evaluate", "random", "greedy", "--no-builtins", "--stage", "tic-tac-toe", "--unseen", str(out),
                 "--in-process", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert said in err and "draw the set again" in err and not (tmp_path / "run").exists()


def test_a_whole_set_is_evaluated_with_its_weights(tmp_path):
    from ludica.cli import main
    from ludica.evaluation.stageset import from_folder

    out = tmp_path / "set"
    assert main([*SAMPLE, "--out", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]  # nothing left beside it
    held = from_folder(out)
    assert [s.source for s in held] == [str(out / "fresh-001.gdl"), str(out / "fresh-002.gdl")]
    assert abs(sum(s.weight for s in held) - 1) < 1e-6 and len({s.weight for s in held}) == 2


def test_a_manifest_nested_past_the_bound_is_a_message(tmp_path, capsys):
    from ludica.cli import main

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.gdl").write_text('game "A"\nboard square 3\nplayers x o\nmove place empty\nend board-full: draw\n')
    (folder / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["evaluate", "random", "greedy", "--no-builtins", "--stage", "tic-tac-toe", "--unseen", str(folder),
                 "--in-process", "--out", str(tmp_path / "run")]) == 2
    assert f"{folder / 'manifest.json'} is cut short or is not JSON nested at most 32 levels deep" in \
        capsys.readouterr().err


def test_a_run_s_unseen_folder_left_without_its_manifest_is_drawn_again_whole(tmp_path, monkeypatch):
    """An evaluation's own unseen folder, as a kill before its manifest left it (an older ludica
    wrote the stages in place): --resume draws the set again into it, rather than failing on it or
    playing its stages unweighed."""
    from ludica import sampler
    from ludica.evaluation import stageset

    real = sampler.fresh
    monkeypatch.setattr(sampler, "fresh", lambda n, **kw: real(n, **kw | {"filters": sampler.NO_FILTERS}))
    folder = tmp_path / "unseen"
    folder.mkdir()
    (folder / "fresh-001.gdl").write_text('game "left over"\nboard square 3\nplayers x o\nmove place empty\n'
                                          'end board-full: draw\n')
    held = stageset.sampled(folder, base=None, n=2, seed=1)
    assert [s.stage.name for s in held] != ["left over"] and len(held) == 2
    assert (folder / "manifest.json").is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["unseen"]


def test_serve_s_live_events_say_a_damaged_store_and_end(tmp_path):
    import sqlite3

    from ludica.runtime.records import ResultsStore
    from ludica.web.live import events

    ResultsStore(tmp_path / "results.sqlite").close()
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        db.execute("DROP TABLE games")

    async def listen() -> list[str]:
        async def gone() -> bool:
            return False
        return [e async for e in events(tmp_path, gone, poll=0.01)]

    said = asyncio.run(asyncio.wait_for(listen(), 30))
    assert len(said) == 1 and said[0].startswith("event: error\n")
    assert "results.sqlite is not as ludica wrote it (no such table: games)" in said[0]


def test_json_of_unclosed_escaped_quotes_is_refused_at_once():
    """Bounding JSON's depth by a regular expression over its strings took time quadratic in an
    unclosed string full of escaped quotes (40 KB: 7 s; a store's cell may hold 16 MB). The bound
    is now measured on what json.loads parsed; 400 KB must be refused well within a minute (the
    quadratic scan would take ten)."""
    import subprocess
    import sys

    code = """
from ludica.files import bounded_json
quote, backslash = chr(34), chr(92)
try:
    bounded_json(quote + (backslash + quote) * 200_000, max_chars=10**8, max_depth=32)
except ValueError as err:
    print(err)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("JSON (Unterminated string starting at: line 1 column 1"), done.stdout + done.stderr
