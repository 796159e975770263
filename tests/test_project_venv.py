"""A virtual environment made in the project folder (`python3 -m venv .`, a common habit) is the
folder that holds the run, the unseen stages and the user's files. The sandbox shows agents only
what Python needs of it (the interpreter, pyvenv.cfg, the site-packages in use), never the folder
whole: a spy agent (tests/agents/spy.py) in a real `ludica evaluate`, run by that environment's
interpreter from the project folder, finds none of the run's secrets, as root (the agent runs as
nobody, without a user namespace) and as a normal user (a user namespace; here a uid other than 0
mapped to this test's own, so that it can still reach this machine's Python under /root).

The test can fail: with the jail as it was (binding the environment's prefix whole) the same runs
had the spy read the canary, the .env, the unseen stage and the run folder's store, in both modes."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from ludica import stages
from ludica.runtime import jail
from test_sealed import _spy_says  # (a module: its tests are not collected again)

HERE = Path(__file__).parent / "agents"


def _project(tmp_path: Path) -> tuple[Path, str]:
    """A project folder that is a virtual environment with ludica in it, with an unseen stage, a
    canary, a .env and the spy in it; (the folder, the token the spy looks for). The environment is
    this test's own, linked file by file (hard links: instant, no space), which Python takes for a
    virtual environment of its own where it finds it; where links cannot be made (another file
    system), a new environment whose site folder takes this one's packages by a .pth file."""
    token = "t" + secrets.token_hex(8)
    project = tmp_path / "project"
    if sys.prefix == sys.base_prefix:
        pytest.skip("runs in a virtual environment (as the README's commands make one)")
    linked = subprocess.run(["cp", "-al", sys.prefix, str(project)], capture_output=True)
    if linked.returncode != 0:
        shutil.rmtree(project, ignore_errors=True)
        base = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")
        subprocess.run([base, "-m", "venv", "--without-pip", str(project)], check=True, timeout=120)
        inner = project / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
        (inner / "outer.pth").write_text(f"import site; site.addsitedir({site.getsitepackages()[0]!r})\n")
    private = project / f"private-{token}"
    private.mkdir()
    text = stages.path("tic-tac-toe").read_text().replace('game "', f'game "{token} ', 1)
    (private / "hidden-001.gdl").write_text(text)  # no sampler's name: a set of its own
    (project / f"canary-{token}.txt").write_text(token)
    (project / ".env").write_text(f"SECRET={token}\n")
    agents = project / "agents"
    agents.mkdir()
    (agents / "spy.py").write_text((HERE / "spy.py").read_text().replace('TOKEN = ""', f"TOKEN = {token!r}"))
    return project, token


def _run(project: Path, token: str, agents: list[str], *extra: str, wrapper: tuple[str, ...] = ()) -> Path:
    """`ludica evaluate` of `agents` and random on tic-tac-toe and the unseen stages `extra` says,
    run by the project's environment from the project folder; the run folder (in the project)."""
    out = project / f"run-{token}"
    command = [*wrapper, str(project / "bin" / "python"), "-m", "ludica", "evaluate", *agents, "random",
               "--no-builtins", "--stage", "tic-tac-toe", "--games", "1", "--adaptation", "none",
               "--analysis-time", "30", "--game-time", "2", "--resamples", "20", "--jobs", "1", "--out", str(out),
               *extra]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _evaluate(project: Path, token: str, *extra: str, wrapper: tuple[str, ...] = ()) -> list[str]:
    out = _run(project, token, ["agents/spy.py"], "--unseen", f"private-{token}", *extra, wrapper=wrapper)
    said = _spy_says(out)
    assert said.count("done") == 2, said
    return said


def _leaks(said: list[str]) -> list[str]:
    return [line for line in said if line.startswith(("leak:", "error:"))]


pytestmark = pytest.mark.skipif(not shutil.which("bwrap"), reason="no bubblewrap (scripts/install-sandbox)")


@pytest.mark.parametrize("isolate", [False, True], ids=["default", "isolate-rules"])
def test_a_spy_finds_nothing_of_a_project_that_is_the_virtual_environment_as_root(tmp_path, isolate):
    if os.geteuid() != 0:
        pytest.skip("runs the referee as root")
    project, token = _project(tmp_path)
    assert not _leaks(_evaluate(project, token, *(["--isolate-rules"] if isolate else [])))


@pytest.mark.parametrize("isolate", [False, True], ids=["default", "isolate-rules"])
def test_a_spy_finds_nothing_of_a_project_that_is_the_virtual_environment_as_a_normal_user(tmp_path, isolate):
    if os.geteuid() == 0:  # a uid other than 0 in a user namespace of its own, mapped to this one
        wrapper: tuple[str, ...] = ("unshare", "--user", "--map-user=1000", "--map-group=1000")
        if not shutil.which("unshare") or subprocess.run([*wrapper, "true"]).returncode != 0:
            pytest.skip("needs unshare --user --map-user (util-linux 2.38)")
    else:
        wrapper = ()
    project, token = _project(tmp_path)
    assert not _leaks(_evaluate(project, token, *(["--isolate-rules"] if isolate else []), wrapper=wrapper))


def test_the_jail_shows_no_prefix_whole_and_refuses_secrets_in_what_it_shows(tmp_path):
    shown = jail.python_folders()
    assert os.path.realpath(sys.prefix) not in shown  # a virtual environment is never shown whole
    assert os.path.realpath(os.getcwd()) not in shown
    site_folder = next(p for p in shown if p.endswith("site-packages"))
    with pytest.raises(jail.SandboxUnavailable, match=r"the run folder .* is in .*site-packages.*venv"):
        jail.check_apart([(Path(site_folder) / "run", "the run folder")])
    jail.check_apart([(tmp_path / "run", "the run folder")])  # apart: said nothing


def test_a_folder_a_pth_file_adds_is_not_shown_unless_it_is_a_site_folder(tmp_path):
    """Another package's editable install (poetry, hatch, `conda develop`, a hand-made .pth) puts
    its project's root on sys.path, .env and all: the jail shows the standard library and the site
    folders, not such a folder (a site folder a .pth adds, as a layered environment does, is shown)."""
    other = tmp_path / "other-project"
    other.mkdir()
    (other / ".env").write_text("KEY=secret\n")
    env = tmp_path / "env"
    base = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")
    subprocess.run([base, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    inner = env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    outer = site.getsitepackages()[0]
    (inner / "layers.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    (inner / "editable-other.pth").write_text(f"{other}\n")
    done = subprocess.run([str(env / "bin" / "python"), "-c", "import json, sys; from ludica.runtime import jail; "
                           "print(json.dumps([sys.path, jail.python_folders()]))"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    path, shown = json.loads(done.stdout)
    assert str(other) in path  # on the referee's sys.path...
    assert str(other) not in shown and os.path.realpath(outer) in shown and os.path.realpath(inner) in shown
