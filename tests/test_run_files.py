"""A run's files and the messages that replace tracebacks (issue 19, "Files and faults"): what
ludica refuses to write over, writes whole, writes under the run's lock or only reads, and what it
says, before any game, when an input is wrong. Each test drives `ludica.cli.main` (or, for a
read-only folder, the command in a mount namespace of its own) and checks the exit status, the
message and that nothing was lost, overwritten or created."""
from __future__ import annotations

import contextlib
import io
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ludica.cli import main

QUICK = ["--in-process", "--analysis-time", "0.5", "--game-time", "0.5"]
EVALUATE = ["evaluate", "--no-builtins", "random", "greedy", "--stage", "tic-tac-toe", "--no-unseen",
            "--resamples", "20", "--jobs", "1", *QUICK]
TOURNAMENT = ["tournament", "tic-tac-toe", "--agent", "random", "--agent", "greedy", *QUICK]


def _said(capsys) -> str:
    """What the command printed on both streams, lines joined (rich wraps lines to the terminal)."""
    said = capsys.readouterr()
    return " ".join((said.out + said.err).split())


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- --out: the user's files, folders left behind, read-only folders ----------------------------


@pytest.mark.parametrize("command", [EVALUATE, TOURNAMENT], ids=["evaluate", "tournament"])
def test_an_out_holding_the_users_files_is_refused_before_any_work(tmp_path, capsys, command):
    out = tmp_path / "mine"
    out.mkdir()
    for name in ("report.html", "report.json", "ratings.csv", "games.csv"):
        (out / name).write_text(f"the user's own {name}\n")
    before = _contents(out)
    assert main([*command, "--out", str(out)]) == 2
    said = _said(capsys)
    assert (f"--out {out} holds files ludica did not write (games.csv, ratings.csv, report.html, report.json); a run "
            "writes its files (results.sqlite, report.html, ...) only into a new or empty folder: give one") in said
    assert _contents(out) == before and sorted(p.name for p in out.iterdir()) == sorted(before)


def test_a_refused_evaluation_leaves_no_folder_behind(tmp_path, capsys):
    out = tmp_path / "never"
    assert main([*EVALUATE, "--stage", str(tmp_path / "no-such-stage.gdl"), "--out", str(out)]) == 2
    assert "no such stage file" in _said(capsys)
    stages = [a for a in EVALUATE if a != "--no-unseen"]
    assert main([*stages, "--draw-seed", "3", "--unseen", str(tmp_path), "--out", str(out)]) == 2
    assert "--draw-seed names the seed of unseen stages the sampler draws: it has no use with --unseen" in _said(capsys)
    assert main([*stages, "--min-divergence", "0.2", "--sample-fresh", "--out", str(out)]) == 2
    assert "--min-divergence filters the variants the sampler draws: it has no use with --sample-fresh" in _said(capsys)
    assert not out.exists()


def _can_mount_read_only() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind -o ro / /"], capture_output=True).returncode == 0


read_only_mounts = pytest.mark.skipif(not _can_mount_read_only(), reason="needs unshare -m and mount (as root)")


def _in_read_only(folder: Path, *argv: str) -> tuple[int, str]:
    """`ludica ARGV` in a mount namespace of its own in which `folder` is a read-only mount (file
    modes do not stop root; a read-only mount does). Its exit status and what it printed."""
    main_of_ludica = "import sys; from ludica.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder),
                           sys.executable, "-c", main_of_ludica, *argv],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "400"})
    return done.returncode, " ".join((done.stdout + done.stderr).split())


@read_only_mounts
@pytest.mark.parametrize("command", [
    ["evaluate", "--no-builtins", "random", "greedy", "--stage", "tic-tac-toe", "--sample-base", "tic-tac-toe",
     "--variants", "1", *QUICK],
    TOURNAMENT,
    ["sample", "--base", "tic-tac-toe", "-n", "1", "--seed", "1", "--jobs", "1"]], ids=["evaluate", "tournament",
                                                                                      "sample"])
def test_a_read_only_out_is_refused_before_drawing_or_compiling(tmp_path, command):
    locked = tmp_path / "locked"
    locked.mkdir()
    code, said = _in_read_only(locked, *command, "--out", str(locked / "run"))
    assert code == 2 and "Traceback" not in said, said
    assert f"error: --out {locked / 'run'}: {locked} is on a read-only file system; give a folder you can write to" \
        in said
    assert "unseen stages:" not in said and "candidates" not in said and "compiling" not in said  # before any work
    assert list(locked.iterdir()) == []


# --- the report: under the run's lock -----------------------------------------------------------


def test_the_report_is_written_while_the_run_still_holds_its_folder(tmp_path, capsys, monkeypatch):
    """A second `--resume` started while the first run writes its report is refused: both would
    write the same files at once."""
    from ludica.evaluation import report

    out = tmp_path / "run"
    write_report, second = report.write_report, {}

    def write_while_a_second_run_starts(summary, folder):
        if not second:  # once: the second run, if it is let in, writes a report too
            second["started"] = True
            second["code"] = main([*EVALUATE, "--out", str(out), "--resume"])
            second["said"] = _said(capsys)
        return write_report(summary, folder)

    monkeypatch.setattr(report, "write_report", write_while_a_second_run_starts)
    assert main([*EVALUATE, "--out", str(out)]) == 0
    assert second["code"] == 2 and f"{out} is in use by another ludica run (pid {os.getpid()}" in second["said"]
    assert (out / "report.html").is_file()


# --- manifests and reports: whole or not at all -------------------------------------------------


@contextlib.contextmanager
def _writes_cut_at(size: int):
    """Every write past `size` bytes of a file fails (EFBIG), as a full disk or a kill in the middle
    of a write leaves a file cut short."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    ignored = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failing write, not a dead process
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, ignored)


def test_a_manifest_whose_write_fails_leaves_the_one_before_whole(tmp_path):
    from ludica import gdl, sampler, stages

    drawn = sampler.variants(gdl.load(stages.path("tic-tac-toe")), 1, seed=1, family="arena", jobs=1)
    out = tmp_path / "set"
    sampler.write(drawn, out, prefix="variant")
    before = _contents(out)
    assert len(before["manifest.json"]) > 2000 > max(len(v) for k, v in before.items() if k != "manifest.json")
    with pytest.raises(gdl.LudicaError, match="is not empty"):  # a set is never written over another
        sampler.write(drawn, out, prefix="variant")
    assert _contents(out) == before
    with _writes_cut_at(2000), pytest.raises(OSError):  # the stages are written, the manifest is cut
        sampler.write(drawn, tmp_path / "other", prefix="variant")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]  # no set without its manifest, nothing beside


def test_a_report_whose_write_fails_leaves_the_one_before_whole(tmp_path):
    from ludica.evaluation import summarise
    from ludica.evaluation.report import write_report
    from ludica.runtime.records import ResultsStore

    out = tmp_path / "run"
    assert main([*EVALUATE, "--out", str(out)]) == 0
    store = ResultsStore(out / "results.sqlite", read_only=True)
    summary = summarise(store, resamples=20)
    store.close()
    before = _contents(out)
    with _writes_cut_at(1000), pytest.raises(OSError):
        write_report(summary, out)
    assert _contents(out) == before


def test_a_cut_short_manifest_is_a_message_and_its_advice_resumes_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    drawing = [*(a for a in EVALUATE if a != "--no-unseen"), "--sample-base", "tic-tac-toe", "--variants", "1",
               "--adaptation", "none", "--out", str(out)]
    assert main(drawing) == 0
    manifest = out / "unseen" / "manifest.json"
    whole = manifest.read_bytes()
    manifest.write_bytes(whole[: len(whole) // 2])  # as a write killed midway left it before
    capsys.readouterr()
    assert main([*drawing, "--resume"]) == 2
    said = _said(capsys)
    assert f"error: {manifest} is cut short or is not JSON (" in said and "Traceback" not in said
    assert (f"delete the folder {out / 'unseen'} and run the same command with --resume: the same set is drawn "
            "again from the run's kept seed") in said
    shutil.rmtree(out / "unseen")
    assert main([*drawing, "--resume"]) == 0
    # 2 games on each stage and random–greedy's 2 more per seating on the unseen one (reference games)
    assert manifest.read_bytes() == whole and "resuming: 8 of the 8 games" in _said(capsys)


# --- ludica report: reads the store, never writes into it ---------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*EVALUATE, "--out", str(out)]) == 0
    return out


@read_only_mounts
def test_report_of_a_run_in_a_read_only_folder_is_written_where_the_user_says(finished_run, tmp_path):
    before = _contents(finished_run)
    code, said = _in_read_only(finished_run, "report", str(finished_run), "--resamples", "20")
    assert code == 2 and "Traceback" not in said and "damaged" not in said, said
    assert (f"error: {finished_run} is on a read-only file system: the report cannot be written into the run "
            "folder; give --out OTHER to write it elsewhere (the run's results are only read, never changed)") in said
    elsewhere = tmp_path / "report"
    code, said = _in_read_only(finished_run, "report", str(finished_run), "--resamples", "20", "--out", str(elsewhere))
    assert code == 0, said
    assert f"report: {elsewhere / 'report.html'}" in said and "Leaderboard" in said
    assert sorted(p.name for p in elsewhere.iterdir()) == ["games.csv", "ratings.csv", "report.html", "report.json"]
    assert _contents(finished_run) == before


def test_report_of_an_empty_store_says_it_holds_no_run_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "results.sqlite").write_bytes(b"")
    assert main(["report", str(tmp_path)]) == 2
    said = _said(capsys)
    assert (f"error: {tmp_path / 'results.sqlite'} holds no run (no run was started in it): give the --out folder "
            "of a `ludica evaluate` run") in said and "Traceback" not in said
    assert (tmp_path / "results.sqlite").read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == \
        [".lock", "results.sqlite"]


def test_report_into_a_folder_whose_run_is_going_on_is_refused_and_goes_elsewhere(finished_run, tmp_path, capsys):
    from ludica.runtime.records import lock_folder

    with lock_folder(finished_run):  # as the run in it holds it, to write its own report at its end
        before = _contents(finished_run)
        assert main(["report", str(finished_run), "--resamples", "20"]) == 2
        said = _said(capsys)
        assert f"{finished_run} is in use by another ludica run (pid {os.getpid()}, since" in said
        assert "it writes its report when it ends; for a report of the games so far, give --out OTHER" in said
        assert _contents(finished_run) == before
        assert main(["report", str(finished_run), "--resamples", "20", "--out", str(tmp_path / "now")]) == 0
    assert (tmp_path / "now" / "report.html").is_file()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "report.html").write_text("the user's own")
    assert main(["report", str(finished_run), "--out", str(tmp_path / "mine")]) == 2
    assert f"--out {tmp_path / 'mine'} holds files ludica did not write (report.html): give a new or empty folder" \
        in _said(capsys)
    assert (tmp_path / "mine" / "report.html").read_text() == "the user's own"
    assert main(["report", str(finished_run), "--resamples", "20", "--out", str(tmp_path / "now")]) == 0  # its own


# --- messages, not tracebacks, before any game ------------------------------------------------------


def _agent(folder: Path, file: str, name: str) -> Path:
    path = folder / file
    path.write_text(f"NAME = {name!r}\n\ndef analyze(stage, api, clock):\n"
                    "    return lambda state, legal, clock: legal[0]\n")
    return path


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
def test_entrants_that_cannot_meet_are_said_before_any_game(tmp_path, capsys, command):
    a, b = _agent(tmp_path, "a.py", "bot"), _agent(tmp_path, "b.py", "bot")
    cases = [(["random", "random"], "the built-in agent random is given 2 times: give each agent once"),
             ([str(a), "random", str(a)], f"the agent file {a} is given 2 times: give each agent once"),
             ([str(a), str(b)], f"2 agents are named 'bot': the agent file {a}, the agent file {b}; results are kept "
                                "by name: set another NAME in the file of all but one"),
             (["random"], "a round robin needs at least two entrants, and this one has only the built-in agent "
                          "random: add another agent"),
             (["human", "random", "human"], "human (a person, at this terminal) is given 2 times: a round robin seats "
                                            "one person; for two people at one board: ludica play STAGE --black human "
                                            "--white human"),
             (["human"], "this one has only human (a person): add another agent")]
    for number, (agents, message) in enumerate(cases):
        out = tmp_path / f"run-{number}"
        if command == "evaluate":
            argv = ["evaluate", "--no-builtins", *agents, "--stage", "tic-tac-toe", "--no-unseen", "--out", str(out)]
        else:
            argv = ["tournament", "tic-tac-toe", *(x for agent in agents for x in ("--agent", agent)), "--out", str(out)]
        assert main([*argv, *QUICK]) == 2
        said = _said(capsys)
        assert message in said and "Traceback" not in said, said
        assert not out.exists()


def test_ctrl_c_while_the_unseen_stages_are_drawn_is_a_message_and_resume_goes_on(tmp_path, capsys, monkeypatch):
    from ludica import sampler

    out = tmp_path / "run"
    argv = [*(a for a in EVALUATE if a != "--no-unseen"), "--sample-base", "tic-tac-toe", "--variants", "1",
            "--adaptation", "none", "--out", str(out)]
    draw = sampler.variants

    def pressed_ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sampler, "variants", pressed_ctrl_c)
    try:
        code = main(argv)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C while drawing came out of the command as a KeyboardInterrupt (a traceback)")
    said = _said(capsys)
    assert code == 130 and (f"interrupted while drawing the unseen stages: no game was played; run the same command "
                            f"with --resume to draw the same set again (from the seed kept in {out}) and go on") in said
    monkeypatch.setattr(sampler, "variants", draw)
    assert main([*argv, "--resume"]) == 0 and "resuming: 0 of the 8 games are in" in _said(capsys)  # 2 + 2 + 4


UNSEEN_STAGE = 'game "Three in a row, 4x4"\nboard square 4\nplayers x o\nmove place empty\nend line 3: mover wins\n' \
               'end board-full: draw\n'


@pytest.mark.parametrize("weight", ["0", "NaN", "Infinity", "-0.5"])
def test_manifest_weights_that_cannot_weigh_are_said_before_any_game(tmp_path, capsys, weight):
    unseen = tmp_path / "unseen"
    unseen.mkdir()
    (unseen / "a.gdl").write_text(UNSEEN_STAGE)
    (unseen / "b.gdl").write_text(UNSEEN_STAGE.replace("4", "5"))
    (unseen / "manifest.json").write_text(f'{{"stages": [{{"file": "a.gdl", "levin_weight": {weight}}}, '
                                          '{"file": "b.gdl", "levin_weight": 0.5}]}')
    out = tmp_path / "run"
    argv = [*(a for a in EVALUATE if a != "--no-unseen"), "--unseen", str(unseen), "--out", str(out)]
    assert main(argv) == 2
    said = _said(capsys)
    assert (f"error: {unseen / 'manifest.json'}: the levin_weight of a.gdl is {float(weight):g}: every weight must be "
            "a finite number above 0; correct it, or remove manifest.json (the stages then weigh the same)") in said
    assert "Traceback" not in said and not out.exists()  # before any game
