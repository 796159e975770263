"""A sealed evaluation: a spy agent (tests/agents/spy.py) tries every route outside the API that a
sandboxed agent has been seen to take, inside a real `ludica evaluate`, and finds nothing, in the
default sandbox and with --isolate-rules. The test plants what it should not find: the unseen
stages' folder (a token in their text and in every planted name), a canary file beside it, in
the user's home, in the working folder and beside another agent's file, a variable in the
referee's environment, a Unix socket (by path and abstract) and a TCP port listening on the host.

The test can fail: the same spy run --in-process (inside the referee, no sandbox) reports the
leaks, which shows that each of its detectors works.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ludica import gdl, stages
from ludica.cli import main
from ludica.compiler import compile as compile_stage
from ludica.runtime import resolve
from ludica.runtime.api import RulesApi, warm
from ludica.runtime.sandbox import AgentProcess, Settings
from ludica.runtime import jail
from ludica.evaluation.summary import summarise
from ludica.runtime.records import ResultsStore
from ludica.runtime.stored import RULES_READABLE
from ludica.runtime.worker import load_agent

HERE = Path(__file__).parent / "agents"


class Listeners:
    """A Unix socket by path, one in the abstract namespace and a TCP port, on the host; counts
    the connections they accept."""

    def __init__(self, folder: Path, token: str):
        self.path, self.abstract = str(folder / f"host-{token}.sock"), f"ludica-spy-{token}"
        self.sockets = []
        for family, address in ((socket.AF_UNIX, self.path), (socket.AF_UNIX, "\0" + self.abstract),
                                (socket.AF_INET, ("127.0.0.1", 0))):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.bind(address)
            s.listen(8)
            s.settimeout(0.2)
            self.sockets.append(s)
        self.port = self.sockets[2].getsockname()[1]
        self.accepted = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            for s in self.sockets:
                try:
                    conn, _ = s.accept()
                except OSError:
                    continue
                self.accepted += 1
                conn.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for s in self.sockets:
            s.close()


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """Everything the spy must not find; yields (token, the spy's file, the other agent's file,
    the unseen folder, the listeners)."""
    token = "t" + secrets.token_hex(8)
    unseen = tmp_path / f"unseen-{token}"
    unseen.mkdir()
    text = stages.path("small-board-6x6").read_text().replace('game "', f'game "{token} ', 1)
    (unseen / "hidden-001.gdl").write_text(text)  # not the sampler's name: a stage of its own needs no manifest
    (tmp_path / f"canary-beside-unseen-{token}.txt").write_text(token)
    other = tmp_path / f"other-{token}"
    other.mkdir()
    (other / "other.py").write_text((stages.path("small-board-6x6").parents[1] / "runtime" / "agents" / "random.py")
                                    .read_text().replace('NAME = "random"', 'NAME = "other"'))
    (other / f"weights-{token}.npz").write_bytes(token.encode())
    home = Path.home() / f".ludica-canary-{token}"
    home.write_text(token)
    work = tmp_path / f"work-{token}"
    work.mkdir()
    (work / f"canary-{token}.txt").write_text(token)
    monkeypatch.chdir(work)
    monkeypatch.setenv("LUDICA_SPY_SECRET", token)
    monkeypatch.setenv("PATH", f"/opt/canary-{token}/bin:" + os.environ["PATH"])  # seen in bwrap's own environ

    listeners = Listeners(tmp_path, token)
    spy = tmp_path / f"agents-{token}" / "spy.py"  # its host path, in a command line or a mount, is a leak
    spy.parent.mkdir()
    spy.write_text((HERE / "spy.py").read_text().replace('TOKEN = ""', f"TOKEN = {token!r}")
                   .replace('SOCKET_PATH = ""', f"SOCKET_PATH = {listeners.path!r}")
                   .replace('ABSTRACT = ""', f"ABSTRACT = {listeners.abstract!r}")
                   .replace("TCP_PORT = 0", f"TCP_PORT = {listeners.port}"))
    try:
        yield token, spy, other / "other.py", unseen, listeners
    finally:
        listeners.close()
        home.unlink()


ROUTES = ("files", "mounts", "environment", "processes", "sockets", "kernel settings", "devices")


def _spy_says(out: Path, agent: str = "spy") -> list[str]:
    """The lines of `agent`'s analysis outputs in the run folder `out`, every stage's."""
    store = ResultsStore(out / "results.sqlite", read_only=True)
    try:
        analyses = [a for a in store.analyses() if a["agent"] == agent]
    finally:
        store.close()
    assert analyses, f"{agent} was not run"
    return [line for a in analyses for line in (a["output"] or "").splitlines()]


def _evaluate(planted, out: Path, *extra: str) -> list[str]:
    token, spy, other, unseen, _ = planted
    code = main(["evaluate", str(spy), str(other), "random", "--no-builtins", "--stage", "small-board-6x6",
                 "--unseen", str(unseen), "--games", "1", "--adaptation", "none", "--analysis-time", "30",
                 "--game-time", "2", "--resamples", "20", "--jobs", "1", "--out", str(out), *extra])
    assert code == 0
    return _spy_says(out)


@pytest.mark.parametrize("isolate", [False, True], ids=["default", "isolate-rules"])
def test_a_spy_in_the_sandbox_finds_nothing_outside_the_api(planted, tmp_path, isolate):
    token, _, _, _, listeners = planted
    said = _evaluate(planted, tmp_path / f"run-{token}", *(["--isolate-rules"] if isolate else []))
    leaks = [line for line in said if line.startswith(("leak:", "error:"))]
    assert not leaks, "\n".join(leaks)
    for route in ROUTES:  # every route was tried, on each stage
        assert said.count(f"tried: {route}") == 2, (route, said)
    assert said.count("done") == 2
    assert listeners.accepted == 0
    # the evaluation says which agents held the unseen stages' rules in their own memory: none when isolated
    store = ResultsStore(tmp_path / f"run-{token}" / "results.sqlite", read_only=True)
    try:
        readable = store.settings().get(RULES_READABLE)
        warned = [w for w in summarise(store, resamples=20).warnings if "rules in their own memory" in w]
    finally:
        store.close()
    assert readable == (None if isolate else '["other", "spy"]'), readable
    assert len(warned) == (0 if isolate else 1) and (isolate or warned[0].startswith("other, spy played")), warned
    # what the jail holds, exactly: the allow-listed environment, the five devices (and the links
    # to this process's descriptors, and its /dev/shm), nothing of the host's at the root
    saw = {line.split(" ", 2)[1]: line.split(" ", 2)[2] for line in said if line.startswith("saw: ")
           and line.split(" ", 2)[1] in ("environment", "/dev")}
    assert set(saw["environment"].split()) == set(jail.environment()), saw["environment"]
    assert saw["/dev"].split() == sorted(["full", "null", "random", "urandom", "zero", "fd", "stdin", "stdout",
                                          "stderr", "shm"])
    (root,) = {line for line in said if line.startswith("saw: ") and " / holds " in line}
    python_tops = {Path(folder).parts[1] for folder in jail.python_folders()}  # where Python lives here
    assert set(root.split(" / holds ")[1].split()) <= {"agent", "bin", "dev", "etc", "lib", "lib32", "lib64",
                                                          "libx32", "proc", "run", "sbin", "tmp", "usr",
                                                          *python_tops}, root


def test_the_spy_finds_the_leaks_when_it_is_not_sandboxed(planted, tmp_path, capsys):
    """The control: the spy's own routes, run in this process (no sandbox), report every kind of
    leak the sandbox closes, so the test above can fail. (Its file search is narrowed to the
    folders where the test planted things, and their first level: the whole machine is large.)"""
    token, spy, _, _, listeners = planted
    source = spy.read_text().replace('ROOTS = ["/"]', f"ROOTS = {[str(tmp_path), str(Path.home())]!r}")
    module = load_agent(source.replace("MAX_DEPTH = None", "MAX_DEPTH = 1"), str(spy))
    for route in (module.search_files, module.search_environment, module.try_sockets):
        route()
    said = capsys.readouterr().out
    found = {line.split(":")[1].strip() for line in said.splitlines() if line.startswith("leak:")}
    assert {"files", "environment", "unix socket", "abstract socket", "tcp"} <= found, said
    for planted_name in ("unseen-", "canary-beside-unseen-", ".ludica-canary-", "weights-", "work-"):
        assert f"{planted_name}{token}" in said, planted_name
    deadline = time.monotonic() + 5
    while listeners.accepted < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listeners.accepted >= 3


READER = '''import os

NAME = "reader"


def analyze(stage, api, clock):
    print("in", os.getcwd(), "holding", " ".join(sorted(os.listdir("."))), flush=True)
    if os.path.isdir("data"):
        print("data:", " ".join(sorted(os.listdir("data"))), open("data/weights.txt").read(), flush=True)

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
'''


def test_an_agent_reads_the_data_folder_named_for_it_and_nothing_beside_its_file(tmp_path, capsys):
    agent = tmp_path / "reader.py"
    agent.write_text(READER)
    (tmp_path / "beside-the-agent.txt").write_text("not for the agent")
    data = tmp_path / "weights"
    data.mkdir()
    (data / "weights.txt").write_text("w=42")
    assert main(["play", "tic-tac-toe", "--black", str(agent), "--white", "random", "--analysis-time", "5",
                 "--agent-data", f"reader={data}"]) == 0
    out = capsys.readouterr().out
    assert "in /agent holding data reader.py" in out and "data: weights.txt w=42" in out, out
    assert main(["play", "tic-tac-toe", "--black", str(agent), "--white", "random", "--analysis-time", "5"]) == 0
    out = capsys.readouterr().out
    assert "in /agent holding reader.py" in out and "data:" not in out, out
    assert main(["play", "tic-tac-toe", "--black", str(agent), "--white", "random",
                 "--agent-data", f"nobody={data}"]) == 2
    assert "no agent 'nobody' in this run" in capsys.readouterr().err


def test_python_installed_under_tmp_is_still_the_agents_python(tmp_path, monkeypatch):
    """A checkout or virtual environment under /tmp (a fresh clone there, pytest's own folders) is
    bound into the jail after its private /tmp is mounted, not hidden under it."""
    folder = tmp_path / "venv-under-tmp"
    folder.mkdir()
    (folder / "marker").write_text("seen\n")
    shown = jail.python_folders()
    monkeypatch.setattr(jail, "python_folders", lambda: (*shown, str(folder)))
    agent = tmp_path / "agent.py"
    agent.write_text("NAME = 'x'\n")
    cell = jail.build(agent)
    try:
        done = subprocess.run([*cell.argv, "/bin/cat", str(folder / "marker")], pass_fds=cell.fds,
                              capture_output=True, text=True, timeout=60)
    finally:
        cell.close_fds()
    assert (done.returncode, done.stdout) == (0, "seen\n"), done.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc to build the agent program with")
def test_an_agent_s_executable_file_runs_in_the_jail_and_a_readable_one_does_not(tmp_path):
    """An agent program (issue 23) is a file the jail copies in executable; any other file of the
    agent is copied readable only, as the agent's own file is."""
    source = tmp_path / "hello.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hello from the jail"); return 0; }\n')
    program = tmp_path / "hello"
    subprocess.run(["gcc", "-O1", "-o", str(program), str(source)], check=True, timeout=120)
    plain = tmp_path / "plain"
    plain.write_bytes(program.read_bytes())
    agent = tmp_path / "agent.py"
    agent.write_text("NAME = 'x'\n")
    done, records = {}, []
    for name in ("hello", "plain"):  # a jail is started once (its descriptors are read as it starts)
        cell = jail.build(agent, files=((program, True), (plain, False)))
        try:
            done[name] = subprocess.run([*cell.argv, f"{jail.AGENT_DIR}/{name}"], pass_fds=cell.fds,
                                        capture_output=True, text=True, timeout=60)
        finally:
            cell.close_fds()
        records.append(cell.record["files"])
    assert (done["hello"].returncode, done["hello"].stdout) == (0, "hello from the jail\n"), done["hello"].stderr
    assert done["plain"].returncode != 0 and "Permission denied" in done["plain"].stderr, done["plain"]
    assert "/agent/hello (a copy, executable), /agent/plain (a copy)" in records[0]


def test_the_filter_refuses_what_namespaces_leave_open_and_allows_forks_and_threads(capsys):
    assert main(["play", "tic-tac-toe", "--black", str(HERE / "prober.py"), "--white", "random"]) == 0
    out = capsys.readouterr().out
    said = dict(line.removeprefix("prober| ").split(": ", 1) for line in out.splitlines()
                if line.startswith("prober| "))
    assert said == {"socket": "errno EACCES", "socket-inet": "errno EACCES", "unshare": "errno EPERM",
                    "clone-newuser": "errno EPERM", "mount": "errno EPERM", "ptrace": "errno EPERM",
                    "tiocsti": "errno EPERM", "fork": "ok", "thread": "ok", "socketpair": "ok"}, out


def test_without_bubblewrap_the_commands_say_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(jail.shutil, "which", lambda name: None)
    monkeypatch.setattr(jail, "_probed", jail._probed.__wrapped__)  # not the answer cached by earlier tests
    assert main(["play", "tic-tac-toe", "--black", "random", "--white", "random"]) == 2
    err = capsys.readouterr().err
    assert "bwrap is not installed" in err and "apt-get install bubblewrap" in err and "--in-process" in err, err
    assert "Traceback" not in err


def _redraw(tmp_path: Path, out: Path, *options: str) -> tuple[list[tuple[int, int]], int, dict]:
    """An evaluation that draws one unseen variant of small-board-6x6 while the spy re-draws the
    sampler's candidates for seeds 0..999: (the (seed, candidate) pairs it matched, the draw's
    seed, the drawn stage's manifest entry)."""
    spy = tmp_path / "spy.py"
    spy.write_text((HERE / "spy.py").read_text().replace('TOKEN = ""', 'TOKEN = "no-token-planted"')
                   .replace("REDRAW_SEEDS = 0", "REDRAW_SEEDS = 1000").replace('ROOTS = ["/"]', "ROOTS = []"))
    assert main(["evaluate", str(spy), "random", "--no-builtins", "--stage", "tic-tac-toe", "--sample-base",
                 "small-board-6x6", "--variants", "1", *options, "--games", "1", "--adaptation", "none",
                 "--analysis-time", "60", "--game-time", "2", "--resamples", "20", "--jobs", "1",
                 "--out", str(out)]) == 0
    said = _spy_says(out)
    assert "tried: sampler" in said and not [line for line in said if line.startswith(("error:", "sampler:"))], said
    matches = [tuple(int(x) for x in line.split()[2:5:2]) for line in said if line.startswith("match: ")]
    (entry,) = json.loads((out / "unseen" / "manifest.json").read_text())["stages"]
    return matches, json.loads((out / "unseen" / "manifest.json").read_text())["seed"], entry


def test_a_spy_redrawing_the_sampler_finds_a_guessable_draw(tmp_path):
    """The control: drawn with a seed an agent can guess (as every evaluation was before secret
    draws), the spy's re-draw finds the very candidate the sampler accepted."""
    matches, seed, entry = _redraw(tmp_path, tmp_path / "known", "--draw-seed", "7")
    assert seed == 7 and (7, entry["candidate"]) in matches, (matches, entry)


@pytest.mark.parametrize("isolate", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["default", "isolate-rules"])
def test_a_spy_redrawing_the_sampler_cannot_find_a_secret_draw(tmp_path, isolate):
    """By default the draw's seed is a fresh secret 64-bit number: out of reach of the scan (the
    spy may still meet a likely variant by chance, drawn at another seed: the prior is public)."""
    matches, seed, entry = _redraw(tmp_path, tmp_path / "secret", *(["--isolate-rules"] if isolate else []))
    assert seed >= 1 << 20 and (seed, entry["candidate"]) not in matches


@pytest.mark.parametrize("isolate", [False, True], ids=["default", "isolate-rules"])
def test_a_worker_loads_its_stage_from_the_referees_cache_and_compiles_nothing(isolate):
    """The jail links the referee's numba cache in, writable for the agent's uid: a worker of a
    stage the referee warmed (as every run does first) compiles no kernel (each would cost it
    seconds of start-up, on every stage)."""
    text = stages.path("standard-8x8").read_text()
    game = compile_stage(gdl.loads(text))
    warm(RulesApi(game), game.initial_state())
    seat = AgentProcess(str(resolve("random").path), text, Settings(isolate_rules=isolate))
    try:
        assert seat.start().failure is None
        kernels = seat.lockdown["kernels"]
    finally:
        seat.close()
    assert re.search(r"[1-9]\d* loaded from numba's cache, 0 compiled$", kernels), kernels
