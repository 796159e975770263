"""One run mixing every kind of agent (a Python file, agent programs in JavaScript and C, an Arena
JavaScript system, a language model against a stand-in endpoint), killed with SIGKILL mid-run and
resumed: it ends with the very games of a run that was never interrupted (its agents play
deterministically, given their seats' seeds: the run folder starts with the other's game secret),
and leaves no process."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_standin import Scripted, Standin
from test_runtime import _alive, _table, _workers_under  # (a module: its tests are not collected again)

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("gcc") is None,
                                reason="the mixed run needs node and gcc")


def first_listed(body: dict) -> Scripted:
    """A stand-in 'model' that plays the first of the legal moves its prompt lists (its .model file
    asks for them), and answers its analysis with notes."""
    found = re.search(r"legal moves: ([^\n]+)", body["messages"][-1]["content"])
    return Scripted(f"I take the first.\nmove: {found.group(1).split()[0]}" if found else "Notes: the first legal move.")


def entrants(folder: Path, server: Standin) -> list[str]:
    """The command-line words naming the run's agents, one of each kind, made in `folder`."""
    subprocess.run(["gcc", "-O2", "-o", str(folder / "greedy"), str(ROOT / "docs" / "agents" / "greedy.c")],
                   check=True)
    (folder / "greedy-c.agent").write_text('command = ["./greedy"]\n')
    (folder / "standin.model").write_text(f'model = "{server.model}"\nlist_legal = true\n')
    return ["--endpoint", f"standin={server.url}", "--agent", "random", "--agent", str(ROOT / "docs" / "agents" / "greedy-js.agent"),
            "--agent", str(folder / "greedy-c.agent"), "--agent", str(folder / "standin.model"),
            "--agent", str(ROOT / "tests" / "arena_systems" / "greedy.js")]


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""  # it ended since


@pytest.fixture
def server():
    with Standin(default=first_listed) as standin:
        yield standin


def test_a_run_of_every_kind_of_agent_killed_and_resumed_plays_the_games_of_an_uninterrupted_one(tmp_path, server):
    words = entrants(tmp_path, server)
    command = [sys.executable, "-m", "ludica.cli", "tournament", "small-board-6x6", *words, "--games", "1",
               "--analysis-time", "5", "--game-time", "5", "--seed", "4"]
    subprocess.run(command + ["--out", str(tmp_path / "whole")], check=True, capture_output=True, timeout=300)
    whole = _table(tmp_path / "whole")
    names = {row[1] for row in whole}
    assert len(whole) == len(names) * (len(names) - 1) and len(names) == 5
    db = sqlite3.connect(tmp_path / "whole" / "results.sqlite")
    usage = [json.loads(u) for (u,) in db.execute("SELECT usage FROM games WHERE black = 'standin' OR white = "
                                                    "'standin'")]
    db.close()
    assert usage and all(u is not None and sum(s["tokens_in"] for s in u if s) > 0 for u in usage)  # tokens kept
    (tmp_path / "cut").mkdir()  # with the uninterrupted run's game secret: its seats' seeds
    shutil.copy2(tmp_path / "whole" / "game-secret.json", tmp_path / "cut")
    run = subprocess.Popen(command + ["--out", str(tmp_path / "cut")], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if (tmp_path / "cut" / "results.sqlite").exists() and len(_table(tmp_path / "cut")) >= 2:
                break
        except sqlite3.OperationalError:
            pass  # made, but its tables not yet
        time.sleep(0.02)
    workers = _workers_under(run.pid, b"")  # the workers, their programs, the sandboxes around them
    assert any(b"greedy" in _command(p) for p in workers), "no agent program was running when the referee was killed"
    os.kill(run.pid, signal.SIGKILL)  # the referee only: its workers and their programs must die with it
    run.wait()
    assert 2 <= len(_table(tmp_path / "cut")) < len(whole)
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.05)
    assert not [p for p in workers if _alive(p)], "workers outlived their referee"
    subprocess.run(command + ["--out", str(tmp_path / "cut"), "--resume"], check=True, capture_output=True,
                   timeout=300)
    assert _table(tmp_path / "cut") == whole
    assert (tmp_path / "cut" / "leaderboard.md").read_text() == (tmp_path / "whole" / "leaderboard.md").read_text()
