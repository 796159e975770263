"""A sealed evaluation for every kind of agent that is not a Python file: an agent program (an agent
file running `python3 spy.py`, tests/programs/spy.py, which takes every route of the Python spy
agent tests/agents/spy.py) and an Othello AI Arena system (tests/arena_systems/spy.js, searching
with node's fs from analyzeStage) play a real `ludica evaluate` together, and find none of the
run's secrets: the unseen stages' folder and text, a canary beside it, in the home, in the working
folder, the referee's environment and sockets (test_sealed's `planted`), and, with the virtual
environment being the project folder (test_project_venv's `_project`), a canary, a .env and an
unseen stage in the project folder, the run folder's store, its drawn stages and its secret draw
seed (whose value the test reads only after the run, and looks for in all the spies saw). Both
sandbox modes, default and --isolate-rules. (The Python file kind: test_sealed, test_project_venv.)

The tests can fail: each spy's search, run outside the sandbox with its roots narrowed to where
the test planted things, reports them.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ludica import stages
from ludica.cli import main
from ludica.runtime.records import ResultsStore
import test_sealed
from test_project_venv import _project, _run  # (modules: their tests are not collected again)
from test_sealed import _spy_says

planted = test_sealed.planted  # the fixture: what the spies must not find

TESTS = Path(__file__).parent
KINDS = ("spy-program", "spy-arena")  # the agents' names: the agent file's, the system's NAME
MODES = pytest.mark.parametrize("isolate", [False, True], ids=["default", "isolate-rules"])
pytestmark = [pytest.mark.skipif(not shutil.which("bwrap"), reason="no bubblewrap (scripts/install-sandbox)"),
              pytest.mark.skipif(not shutil.which("node"), reason="node is not installed"),
              pytest.mark.skipif(not shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin"),
                                 reason="no system python3 (under /usr) to run the program spy")]


def _spies(folder: Path, routes: Path, token: str, narrowed: tuple[list[str], str] | None = None) -> tuple[Path, Path]:
    """(the agent file of the program spy, the Arena system spy), each in a folder of its own in
    `folder`: the program with `routes` (the Python spy, its TOKEN filled in) beside it as
    spy_routes.py; the system with `token` filled in. `narrowed`: (the roots of the system's file
    search, searched to their first level only; the one process it searches), for its control."""
    program, system = folder / "spy-program", folder / "spy-arena"
    program.mkdir(parents=True)
    system.mkdir()
    (program / "spy.agent").write_text(f'name = "{KINDS[0]}"\ncommand = ["python3", "spy.py"]\n'
                                       'files = ["spy.py", "spy_routes.py"]\n')
    shutil.copy(TESTS / "programs" / "spy.py", program / "spy.py")
    shutil.copy(routes, program / "spy_routes.py")
    source = (TESTS / "arena_systems" / "spy.js").read_text().replace('const TOKEN = "";', f"const TOKEN = {token!r};")
    if narrowed:
        source = (source.replace('const ROOTS = ["/"];', f"const ROOTS = {json.dumps(narrowed[0])};")
                  .replace("const MAX_DEPTH = -1;", "const MAX_DEPTH = 1;")
                  .replace("const PIDS = null;", f"const PIDS = [{narrowed[1]!r}];"))
    (system / "spy.js").write_text(source)
    return program / "spy.agent", system / "spy.js"


def _stage_hash(path: Path) -> str:
    """A stage file's hash as the spies print it (`saw: N stages (sha256) ...`)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _check(out: Path, hidden: list[Path], secrets: tuple[str, ...] = ()) -> None:
    """Both spies of the run in `out` took every route on both stages and found nothing: no leak,
    no .gdl file read that is one of the `hidden` stages, none of the `secrets` anywhere in what
    they said (the token included: the stage's name holds it, but they never print that); and they
    played their games to the end."""
    for agent in KINDS:
        said = _spy_says(out, agent)
        leaks = [line for line in said if line.startswith(("leak:", "error:"))]
        assert not leaks, "\n".join(leaks)
        routes = ("files", "mounts", "environment", "processes", *(("sockets", "devices") if agent == KINDS[0] else ()))
        for route in routes:
            assert said.count(f"tried: {route}") == 2, (agent, route, said)
        assert said.count("done") == 2, (agent, said)
        seen = next((line for line in said if " stages (sha256) " in line), "")
        assert seen and not {_stage_hash(p) for p in hidden} & set(seen.split()), (agent, seen)
        text = "\n".join(said)
        for secret in secrets:
            assert secret not in text, (agent, secret)
    store = ResultsStore(out / "results.sqlite", read_only=True)
    try:
        games = store.games()
    finally:
        store.close()
    assert len(games) == 12 and all(g["reason"] == "normal" for g in games), games


@MODES
def test_a_program_and_an_arena_system_find_nothing_of_the_run(planted, tmp_path, isolate):
    """The virtual environment elsewhere (this test's own); the unseen stage's folder named on the
    command line (--unseen), its name and text holding the token."""
    token, routes, _, unseen, listeners = planted
    program, system = _spies(tmp_path / f"spies-{token}", routes, token)
    out = tmp_path / f"run-{token}"
    assert main(["evaluate", str(program), str(system), "random", "--no-builtins", "--stage", "tic-tac-toe",
                 "--unseen", str(unseen), "--games", "1", "--adaptation", "none", "--analysis-time", "30",
                 "--game-time", "2", "--resamples", "20", "--jobs", "1", "--out", str(out),
                 *(["--isolate-rules"] if isolate else [])]) == 0
    _check(out, sorted(unseen.glob("*.gdl")), (token,))
    assert listeners.accepted == 0


@MODES
def test_a_program_and_an_arena_system_find_nothing_of_a_project_that_is_the_virtual_environment(tmp_path, isolate):
    """The virtual environment is the project folder, which holds the run folder; the unseen stage
    drawn by the sampler with a secret seed (the run folder's draw-seed.json and unseen/)."""
    if os.geteuid() != 0:
        pytest.skip("runs the referee as root (the normal user's jail: test_project_venv)")
    project, token = _project(tmp_path)
    _spies(project, project / "agents" / "spy.py", token)
    out = _run(project, token, ["spy-program/spy.agent", "spy-arena/spy.js"], "--sample-base", "small-board-6x6",
               "--variants", "1", *(["--isolate-rules"] if isolate else []))
    seed = json.loads((out / "draw-seed.json").read_text())
    assert seed["secret"] and seed["seed"] >= 1 << 20
    drawn = sorted((out / "unseen").glob("*.gdl"))
    assert drawn
    _check(out, [*drawn, *(project / f"private-{token}").glob("*.gdl")], (token, str(seed["seed"])))


def test_the_spies_find_what_is_planted_when_they_are_not_sandboxed(planted, tmp_path):
    """The control: each spy's search run outside the sandbox (the program spoken to as the
    referee would, the system's analyzeStage called by node), its file search narrowed to the
    folders where the test planted things and their first level, reports every canary, the
    secret in its environment, in another process's environment and memory, in its mount table (a
    mount named with the token, where a mount namespace can be made), a run folder's store, draw
    seed and drawn stages."""
    token, routes, _, _, _ = planted
    run = tmp_path / "run"  # no token in its name: its files are found for what they are
    (run / "unseen").mkdir(parents=True)
    (run / "unseen" / "variant-001.gdl").write_text(stages.path("tic-tac-toe").read_text())
    (run / "results.sqlite").write_bytes(b"SQLite format 3\0")
    (run / "draw-seed.json").write_text('{"seed": 123456789, "secret": true}\n')
    (run / "unseen" / "manifest.json").write_text('{"stages": [{"levin_weight": 1}]}\n')
    roots = [str(tmp_path), str(Path.home()), str(run), str(run / "unseen")]
    mounted = tmp_path / f"mount-{token}"  # a mount of its own, seen in /proc/self/mountinfo
    mounted.mkdir()
    # (a user namespace, for a normal user, would hide the neighbour's environment: then unchecked)
    routes_planted = {"files", "environment", "processes", "mounts"} - ({"processes"} if os.geteuid() else set())
    wrapper = ["unshare", *(["--map-root-user"] if os.geteuid() else []), "--mount", "sh", "-c",
               'mount -t tmpfs none "$0" && exec "$@"', str(mounted)]
    if not shutil.which("unshare") or subprocess.run([*wrapper, "true"], capture_output=True).returncode != 0:
        wrapper, routes_planted = [], {"files", "environment", "processes"}  # no mount namespace to be had
    # a process holding the token in its environment (and so in its memory): the only one searched,
    # since a spy run by this test outside the sandbox would read every process of the machine
    neighbour = subprocess.Popen(["sleep", "60"], env={**os.environ, "NEIGHBOUR": token})
    try:
        pid = str(neighbour.pid)
        narrowed = routes.parent / "narrowed.py"
        narrowed.write_text(routes.read_text().replace('ROOTS = ["/"]', f"ROOTS = {roots!r}")
                            .replace("MAX_DEPTH = None", "MAX_DEPTH = 1").replace("PIDS = None", f"PIDS = [{pid!r}]"))
        program, system = _spies(tmp_path / "spies", narrowed, token, (roots, pid))
        said = {
            KINDS[0]: subprocess.run([*wrapper, sys.executable, "spy.py"], cwd=program.parent,
                                     input="stage\nprepare 30\nquit\n", capture_output=True, text=True, timeout=120),
            KINDS[1]: subprocess.run([*wrapper, "node", "-e", "const vm = require('vm'); globalThis.require = require; "
                                      "vm.runInThisContext(require('fs').readFileSync(process.argv[1], 'utf8')); "
                                      "analyzeStage({}, [], [], {});", str(system)],
                                     capture_output=True, text=True, timeout=120),
        }
    finally:
        neighbour.kill()
        neighbour.wait()
    assert said[KINDS[0]].stdout == "ready\n", said[KINDS[0]]  # its answer; what it says goes to standard error
    for agent, done in said.items():
        text = done.stderr if agent == KINDS[0] else done.stdout
        assert done.returncode == 0 and text.splitlines()[-1] == "done", (agent, done)
        routes_found = {line.split(":")[1].strip() for line in text.splitlines() if line.startswith("leak:")}
        assert routes_planted <= routes_found, (agent, text)
        if "processes" in routes_planted:  # the neighbour's memory holds its environment
            assert "/mem holds the token" in text, (agent, text)
        for planted_name in ("unseen-", "canary-beside-unseen-", ".ludica-canary-", "work-"):
            assert f"{planted_name}{token}" in text, (agent, planted_name)
        for found in ("a results store", "a draw seed", "123456789", "a sampler manifest",
                      _stage_hash(run / "unseen" / "variant-001.gdl")):
            assert found in text, (agent, found)
