"""Secret draws (issue 19): an evaluation draws its unseen stages from a fresh secret seed, kept in
the run folder (owner-only), reused by --resume and revealed once the run is over; a seed given
with --draw-seed reproduces the set, with a warning that it is public; game seeds come from --seed
alone. Small runs: two built-ins in this process, 2 variants of the 6x6 board, one game a seating."""
from __future__ import annotations

import contextlib
import html
import io
import json
import sqlite3
from pathlib import Path

import pytest

from ludica.cli import main
from ludica.evaluation import drawseed
from ludica.runtime.tournament import game_seed

QUICK = ["--no-builtins", "random", "greedy", "--stage", "tic-tac-toe", "--sample-base", "small-board-6x6",
         "--variants", "2", "--in-process", "--analysis-time", "0.5", "--game-time", "0.5", "--adaptation", "none",
         "--resamples", "20", "--jobs", "1"]


def _evaluate(out: Path, *more: str) -> tuple[int, str]:
    """Run `ludica evaluate`; its exit status and what it printed, lines joined (rich wraps them)."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        code = main(["evaluate", *QUICK, "--out", str(out), *more])
    return code, " ".join(said.getvalue().split())


def _games(out: Path) -> list[tuple]:
    db = sqlite3.connect(out / "results.sqlite")
    try:
        return db.execute("SELECT stage_hash, black, white, game_index, seed FROM games ORDER BY id").fetchall()
    finally:
        db.close()


def _unseen(out: Path) -> set[str]:
    return {s["stage_hash"] for s in json.loads((out / "report.json").read_text())["stages"] if s["role"] == "unseen"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two default evaluations (the second stopped after one unseen stage, then resumed) and one with
    the first run's seed given, with what each printed."""
    root = tmp_path_factory.mktemp("draws")
    said = {"first": _evaluate(root / "first"), "stopped": _evaluate(root / "second", "--max-stages", "1"),
            "resumed": _evaluate(root / "second", "--resume")}
    said["given"] = _evaluate(root / "given", "--draw-seed", str(drawseed.kept(root / "first").value))
    return root, said


def test_every_run_draws_from_a_fresh_secret_seed_kept_owner_only(runs):
    root, said = runs
    assert all(code == 0 for code, _ in said.values()), said
    first, second = drawseed.kept(root / "first"), drawseed.kept(root / "second")
    assert first.secret and second.secret and first.value != second.value
    for out, kept in ((root / "first", first), (root / "second", second)):
        assert (out / drawseed.SEED_FILE).stat().st_mode & 0o777 == 0o600
        assert json.loads((out / "unseen" / "manifest.json").read_text())["seed"] == kept.value  # drawn with it
    assert "from a secret seed" in said["first"][1] and "warning" not in said["first"][1]


def test_the_run_says_what_share_of_its_draw_were_public_stages(runs):
    """Of the valid candidates a variant family draws, a share are public stages (or the base itself),
    set aside: often a third to a half (issue 34). The run says how many, as the manifest counts them."""
    root, said = runs
    draws = json.loads((root / "first" / "unseen" / "manifest.json").read_text())["draws"]
    assert draws["valid"] > 0
    assert (f"of the draw's {draws['valid']:,} valid candidates, {draws['public share']:.0%} were public stages or "
            "the base, set aside") in said["first"][1]


def test_the_kept_seed_given_again_draws_the_same_set_with_a_warning(runs):
    root, said = runs
    assert _unseen(root / "given") == _unseen(root / "first") and len(_unseen(root / "first")) == 2
    kept = drawseed.kept(root / "given")
    assert not kept.secret and kept.value == drawseed.kept(root / "first").value
    assert ("warning: the unseen stages are drawn with a seed that is not secret "
            f"({kept.value}): anyone who knows it and the version of ludica can draw the same stages again") \
        in said["given"][1]


def test_the_seed_is_revealed_in_the_report_and_the_terminal_only_after_the_run(runs):
    root, said = runs
    seed = drawseed.kept(root / "first").value
    text = said["first"][1]
    assert text.index(str(seed)) > text.index("Leaderboard:")  # not said before the games
    assert f"The unseen stages were drawn with seed {seed} (a secret seed" in text
    assert json.loads((root / "first" / "report.json").read_text())["draw"] == {"seed": seed, "secret": True}
    assert f"drawn with seed {seed}" in (root / "first" / "report.html").read_text()


def test_a_run_stopped_early_keeps_its_seed_secret_until_it_is_finished(runs, tmp_path):
    """A stopped run may be resumed: whoever knew its seed would know the stages still to come. So
    neither its terminal, its report nor `ludica report` of it says the seed, nor the text of an
    unseen stage it has not played; once resumed to the end, all of it is revealed."""
    from ludica.evaluation import summarise
    from ludica.runtime import Run

    root, said = runs
    seed = str(drawseed.kept(root / "second").value)
    stopped = root / "stopped-copy"
    stopped.mkdir()
    # the stopped run's store as it was: the resumed run's, without the games of its second unseen stage
    with sqlite3.connect(root / "second" / "results.sqlite") as db:
        db.execute(f"VACUUM INTO '{stopped / 'results.sqlite'}'")
    db.close()
    with Run.read(root / "second") as run:
        last = [s for s in run.store.stages() if s["role"] == "unseen"][-1]
    with sqlite3.connect(stopped / "results.sqlite") as db:
        db.execute("DELETE FROM games WHERE stage_hash = ?", (last["stage_hash"],))
    db.close()
    assert seed not in said["stopped"][1] and "a secret seed, kept from everyone until the run is finished" \
        in said["stopped"][1]
    code = main(["report", str(stopped), "--resamples", "10"])
    assert code == 0
    shown = f'<pre class="gdl">game &quot;{last["name"]}&quot;'  # where the page shows a stage's text
    for name in ("report.html", "report.json"):
        text = (stopped / name).read_text()
        assert seed not in text and shown not in text and last["text"] not in text, name
    report = json.loads((stopped / "report.json").read_text())
    assert report["draw"] == {"seed": None, "secret": True}
    # nor any row of it: the stages table and the JSON's stages list the stages played alone, and say how many wait
    assert last["stage_hash"] not in (stopped / "report.json").read_text()
    assert last["stage_hash"] not in {st["stage_hash"] for st in report["stages"]} and report["stages_withheld"] == 1
    page = (stopped / "report.html").read_text()
    assert f">{html.escape(last['name'])}<" not in page and "1 unseen stage still to be played" in page
    with Run.read(stopped) as run:
        assert not summarise(run.store, resamples=10).finished
    assert seed in said["resumed"][1] and shown in (root / "second" / "report.html").read_text()


def test_the_time_left_of_a_run_stopped_by_max_stages_counts_only_what_it_plays(runs):
    """--max-stages 1: the public stage's 2 games and the first unseen stage's 6 (not the 14 of the
    whole run) are the games the progress counts, and its time left is theirs."""
    _, said = runs
    assert "8/8 games in all (100%)" in said["stopped"][1] and "/14 games" not in said["stopped"][1]


def test_resume_reuses_the_kept_secret_seed_and_refuses_another(runs):
    root, said = runs
    assert "stopping: --max-stages 1 reached" in said["stopped"][1]
    assert str(drawseed.kept(root / "second").value) not in said["stopped"][1].split("Leaderboard:")[0]
    assert "the set already drawn into" in said["resumed"][1] and "was started otherwise" not in said["resumed"][1]
    # 2 games on each of the 3 stages, and on the 2 unseen ones random–greedy's 2 more per seating
    assert len(_unseen(root / "second")) == 2 and len(_games(root / "second")) == 3 * 2 + 2 * 4
    code, text = _evaluate(root / "second", "--resume", "--draw-seed", "7")
    assert code == 2 and "--draw-seed 7: the unseen stages of the run in" in text and "Traceback" not in text


def test_game_seeds_come_from_the_run_seed_never_from_the_draw(runs):
    root, _ = runs
    first, second = _games(root / "first"), _games(root / "second")
    for games in (first, second):
        assert all(seed == game_seed(0, h, black, white, k) for h, black, white, k, seed in games)
    public = {g[0] for g in first} - _unseen(root / "first")
    assert [g for g in first if g[0] in public] == [g for g in second if g[0] in public] != []


def test_a_run_folder_from_before_kept_seeds_resumes_with_its_manifests_seed(tmp_path):
    """Before seeds were kept, --seed drew the set and the manifest recorded it: such a folder
    resumes with that seed, said to be public."""
    out = tmp_path / "old"
    code, _ = _evaluate(out, "--seed", "3", "--draw-seed", "3", "--max-stages", "1")
    assert code == 0
    (out / drawseed.SEED_FILE).unlink()  # as a run folder made before this change holds none
    code, text = _evaluate(out, "--seed", "3", "--resume")
    assert code == 0 and "resuming: 8 of the 14 games" in text and "seed 3, the set already drawn" in text
    assert json.loads((out / "report.json").read_text())["draw"] == {"seed": 3, "secret": False}


def test_qualification_games_are_played_before_anything_is_drawn(tmp_path, monkeypatch):
    """Qualification needs no unseen stage: neither the unseen set nor its seed is in the run
    folder while its games are played."""
    from ludica.evaluation import qualify

    out, seen = tmp_path / "run", []
    real = qualify.qualify

    def looking_around(*args, **kwargs):
        seen.append(sorted(p.name for p in out.iterdir()))
        return real(*args, **kwargs)

    monkeypatch.setattr(qualify, "qualify", looking_around)
    agent = tmp_path / "first.py"
    agent.write_text("NAME = 'first'\n\ndef analyze(stage, api, clock):\n    return lambda s, legal, c: legal[0]\n")
    assert QUICK[:3] == ["--no-builtins", "random", "greedy"]
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["evaluate", *QUICK[:3], str(agent), *QUICK[3:], "--qualify", "1", "--max-stages", "1",
                     "--out", str(out)])
    assert code == 0 and seen and not {drawseed.SEED_FILE, "unseen"} & set(seen[0])
    assert (out / drawseed.SEED_FILE).is_file() and (out / "unseen" / "manifest.json").is_file()


def test_the_report_says_how_each_start_of_the_run_was_made_and_what_each_variant_changed(runs):
    """`ludica evaluate` keeps its command line, version and machine beside the run's settings (one
    entry per start: the resumed run has two) and the base the variants were drawn from, and the
    report's header and stages say them (issue 22)."""
    root, _ = runs
    with sqlite3.connect(root / "second" / "results.sqlite") as db:
        settings = dict(db.execute("SELECT key, value FROM settings"))
    starts = json.loads(settings["invocations"])
    assert [s["command"].split(" --out ")[0] for s in starts] == 2 * ["ludica evaluate " + " ".join(QUICK)]
    assert starts[1]["command"].endswith("--resume") and all("cores, Python" in s["machine"] for s in starts)
    assert settings["base"].startswith('game "Small Board (6x6)"')
    page = (root / "second" / "report.html").read_text()
    header = page[page.index('<header id="run">'): page.index("</header>")]
    assert "<dt>Command</dt><dd>ludica evaluate --no-builtins random greedy" in header and "; then " in header
    assert "unseen stages: secret seed (revealed now:" in header
    stages = page[page.index('id="unseen-stages"'):]
    assert stages.count('<details class="unseen-stage">') == 2 and "drawn from no stage" not in stages
