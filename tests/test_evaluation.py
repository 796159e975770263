"""The evaluation (evaluation/): the anytime estimate on synthetic runs, failures and metrics on
constructed rows, and real small evaluations — resumed after an interruption to the same ratings,
as a gauntlet, and through `ludica evaluate` / `ludica report`."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from ludica import stages
from ludica.cli import main
from ludica.evaluation import anytime, evaluate, failures, metrics, stageset
from ludica.runtime import entrants as agents
from ludica.runtime.records import ResultsStore

HERE = Path(__file__).parent / "agents"

# --- the anytime estimate ----------------------------------------------------------------------


def test_the_anytime_estimate_narrows_and_is_the_plain_mean_when_complete():
    values = [0.2, 0.9, 0.5, 0.7, 0.4, 0.6, 0.55, 0.45, 0.65, 0.35, 0.5, 0.6]
    widths = []
    for n in range(2, len(values) + 1):
        e = anytime.estimate(values[:n])
        widths.append(e.high - e.low)
    assert widths[-1] < widths[0] / 4
    whole = anytime.estimate(values)
    assert whole.mean == pytest.approx(statistics.fmean(values))
    half = 2.201 * statistics.stdev(values) / len(values) ** 0.5  # t(0.975, 11) · s / √n
    assert whole.high - whole.mean == pytest.approx(half, rel=1e-3)
    assert anytime.estimate([0.3]).low is None


def test_weights_tilt_the_estimate_and_equal_weights_change_nothing():
    assert anytime.estimate([0.0, 1.0], [3.0, 1.0]).mean == pytest.approx(0.25)
    assert anytime.estimate([0.0, 1.0], [2.0, 2.0]).mean == anytime.estimate([0.0, 1.0]).mean


def test_scores_are_normalised_between_random_and_the_best_baseline():
    scores = {"random": 0.2, "greedy": 0.6, "mcts": 0.7, "mine": 0.95}
    got = anytime.normalised(scores, "random", ["random", "greedy", "mcts"])
    assert got == pytest.approx({"random": 0.0, "greedy": 0.8, "mcts": 1.0, "mine": 1.5})
    assert anytime.normalised({"random": 0.5, "greedy": 0.55, "mine": 1.0}, "random", ["random", "greedy"]) is None


def test_the_running_estimate_skips_stages_without_spread_and_says_so():
    per_stage = [("s1", {"a": 0.5, "b": 1.0}, 1.0), ("s2", None, 1.0), ("s3", {"a": 0.7, "b": 1.0}, 1.0)]
    points = anytime.running(per_stage, ["a", "b"])
    assert [(p.stages, p.skipped) for p in points] == [(1, 0), (1, 1), (2, 1)]
    assert points[-1].estimates["a"].mean == pytest.approx(0.6)


def test_separation_needs_disjoint_intervals_of_neighbours():
    E = anytime.Estimate
    assert anytime.separated({"a": E(0.9, 0.8, 1.0, 5), "b": E(0.5, 0.4, 0.6, 5)})
    assert not anytime.separated({"a": E(0.9, 0.5, 1.0, 5), "b": E(0.5, 0.4, 0.6, 5)})
    assert not anytime.separated({"a": E(0.9, None, None, 1), "b": E(0.5, None, None, 1)})


def test_the_doubling_schedule():
    assert anytime.doubling(1, 1.0) == [1.0]
    assert anytime.doubling(3, 1.0) == [1.0, 1.0, 2.0, 1.0, 1.0, 2.0, 4.0]
    round3 = anytime.doubling(4, 1.0)[7:]
    assert len(round3) == 8 and round3.count(1.0) == 4 and round3.count(2.0) == 2 and round3[-1] == 8.0


# --- failures and metrics on constructed rows ---------------------------------------------------


def _row(stage, black, white, result, reason="normal", detail="", illegal=(0, 0), scores=(3, 1), ply=()):
    winner = {"black": 0, "white": 1}.get(result)
    return {"stage_hash": stage, "black": black, "white": white, "result": result, "winner": winner,
            "reason": reason, "detail": detail, "illegal": json.dumps(list(illegal)), "penalties": "[]",
            "black_score": scores[0], "white_score": scores[1], "black_time": 0.5, "white_time": 0.25,
            "ply_seconds": json.dumps(list(ply))}


TRACE = ('Traceback (most recent call last):\n  File "/home/me/bot.py", line 12, in strategy\n'
         '    return moves[9]\nIndexError: list index out of range\n')


def test_failures_are_counted_per_kind_and_named_with_file_and_line():
    rows = [_row("s", "bot", "random", "white", "crash", TRACE) for _ in range(3)]
    rows += [_row("s", "random", "bot", "black", "time"), _row("s", "bot", "random", "black", illegal=(2, 0))]
    rows += [_row("s", "random", "bot", "none", "no-strategy")]
    analyses = [{"ok": 0, "stage_hash": "s", "agent": "bot", "failure": "crash",
                 "detail": 'File "/home/me/bot.py", line 3, in analyze\nZeroDivisionError: division by zero'}]
    table = failures.tally(rows, analyses, ["bot", "random"])
    bot = table["bot"]
    assert dict(bot.lost) == {"crash": 3, "time": 1, "no-strategy": 1} and bot.illegal_moves == 2
    assert table["random"].lost == {"no-strategy": 1}
    assert bot.top_reasons()[0] == ("crash", "IndexError: list index out of range (bot.py, line 12)", 3)
    warned = failures.warnings(table)
    assert len(warned) == 2 and warned[0].startswith("bot lost 5 of its 6 games (83%)")
    assert "bot.py, line 12" in warned[0]


def test_generalisation_and_robustness():
    rows = [_row("pub", "a", "b", "black"), _row("pub", "b", "a", "white", scores=(1, 3)),
            _row("new", "a", "b", "draw"), _row("new", "b", "a", "draw")]
    by_stage = metrics.stage_scores(rows)
    assert by_stage == {"pub": {"a": 1.0, "b": 0.0}, "new": {"a": 0.5, "b": 0.5}}
    g = metrics.generalisation(by_stage, {"pub": "public", "new": "unseen"})
    assert g == {"a": 0.5, "b": -0.5}
    r = metrics.robustness(by_stage)
    assert r["a"] == {"worst_stage": "new", "worst": 0.5, "spread": 0.5}
    p = metrics.performance(rows)
    assert p["a"]["score"] == 0.75 and p["a"]["cells"][1]["piece_difference"] == 2.0


# --- real small evaluations ----------------------------------------------------------------------

UNSEEN = {"three-in-a-row-4x4.gdl": 'game "Three in a row, 4x4"\nboard square 4\nplayers x o\nmove place empty\n'
                                    'end line 3: mover wins\nend board-full: draw\n',
          "four-in-a-row-4x5.gdl": 'game "Four in a row, 4x5"\nboard rect 4 5\nplayers x o\nmove place empty\n'
                                   'end line 4: mover wins\nend board-full: draw\n'}


@pytest.fixture
def unseen(tmp_path) -> Path:
    folder = tmp_path / "unseen"
    folder.mkdir()
    for name, text in UNSEEN.items():
        (folder / name).write_text(text)
    return folder


def _stages(unseen: Path):
    return stageset.public([stages.path("tic-tac-toe")]) + stageset.from_folder(unseen)


ENTRANTS = ["random", "greedy", str(HERE / "last.py")]
CONFIG = evaluate.Config(games=1, analysis_time=5, game_time=5, seed=4, sandbox=False)


def _ratings(summary):
    return [(r.name, round(r.elo, 6), round(r.low, 6), round(r.high, 6)) for r in summary.overall.ratings]


def test_an_interrupted_evaluation_resumed_gives_the_same_ratings(tmp_path, unseen):
    specs = [agents.resolve(a) for a in ENTRANTS]
    whole = evaluate.run(_stages(unseen), specs, tmp_path / "whole", CONFIG, resamples=100)
    played = []

    def stop_after_seven(g):
        played.append(g)
        if len(played) == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate.run(_stages(unseen), specs, tmp_path / "cut", CONFIG, resamples=100,
                     callbacks=evaluate.Callbacks(on_game=stop_after_seven))
    estimates = []
    resumed = evaluate.run(_stages(unseen), specs, tmp_path / "cut", CONFIG, resamples=100, resume=True,
                           callbacks=evaluate.Callbacks(on_estimate=estimates.append))
    assert _ratings(resumed) == _ratings(whole)
    assert len(resumed.games) == len(whole.games) == 3 * 6
    assert [p.stages + p.skipped for p in resumed.anytime] == [1, 2]
    assert estimates and estimates[-1].stages + estimates[-1].skipped == 2
    assert {s["role"] for s in resumed.stages} == {"public", "unseen"}


def test_adaptation_curves_come_from_games_kept_apart(tmp_path, unseen):
    """`last` ignores its analysis: at a quarter and half of the budget it plays the same games, so its
    curve is flat and its area is its full-budget score; the games of last@f are in no rating."""
    specs = [agents.resolve(a) for a in ENTRANTS]
    summary = evaluate.run(_stages(unseen), specs, tmp_path / "a", CONFIG, resamples=20)
    curve = summary.metrics["A"]["last"]
    assert [f for f, _ in curve["points"]] == [0.25, 0.5, 1.0]
    assert len({round(x, 9) for _, x in curve["points"]}) == 1
    assert curve["area"] == pytest.approx(curve["points"][-1][1])
    assert len(summary.adaptation_games) == 2 * 2 * 2 * 2  # 2 stages, 2 fractions, 2 baselines, 2 seats
    assert {r.name for r in summary.overall.ratings} == {"random", "greedy", "last"}
    assert summary.played == summary.planned
    none = evaluate.Config(**{**CONFIG.__dict__, "adaptation": ()})
    assert not evaluate.run(_stages(unseen), specs, tmp_path / "b", none, resamples=20).adaptation_games


def test_a_gauntlet_plays_only_the_submitted_agents_games(tmp_path, unseen):
    specs = [agents.resolve(a) for a in ENTRANTS]
    config = evaluate.Config(**{**CONFIG.__dict__, "format": "gauntlet", "adaptation": ()})
    summary = evaluate.run(_stages(unseen), specs, tmp_path / "g", config, resamples=20)
    assert all("last" in (g["black"], g["white"]) for g in summary.games)
    assert len(summary.games) == 3 * 4  # last against each baseline, both seats, on three stages


def test_max_stages_stops_before_the_next_unseen_stage_and_resume_plays_it(tmp_path, unseen):
    specs = [agents.resolve(a) for a in ENTRANTS]
    stops = []
    first = evaluate.run(_stages(unseen), specs, tmp_path / "m", CONFIG, resamples=20,
                         stopping=evaluate.Stopping(max_stages=1), callbacks=evaluate.Callbacks(on_stop=stops.append))
    assert first.stopped and stops and len(first.games) == 2 * 6
    rest = evaluate.run(_stages(unseen), specs, tmp_path / "m", CONFIG, resamples=20, resume=True)
    assert len(rest.games) == 3 * 6 and not rest.stopped
    timed = evaluate.run(_stages(unseen), specs, tmp_path / "t", CONFIG, resamples=20,
                         stopping=evaluate.Stopping(max_time=1e-6))
    assert "--max-time" in timed.stopped and len(timed.games) == 6  # the first stage, then no other starts


def test_the_command_evaluates_and_reports(tmp_path, unseen, capsys):
    out = tmp_path / "run"
    # as the sampler writes it: one stage drawn twice, and its divergence from the base
    (unseen / "manifest.json").write_text(json.dumps({"stages": [
        {"file": "three-in-a-row-4x4.gdl", "levin_weight": 0.6, "multiplicity": 2,
         "divergence": {"value": 0.3, "se": 0.05, "score": 0.2, "games": 40}},
        {"file": "four-in-a-row-4x5.gdl", "levin_weight": 0.4, "multiplicity": 1}]}))
    code = main(["evaluate", "random", "greedy", str(HERE / "last.py"), "--no-builtins", "--stage", "tic-tac-toe",
                 "--unseen", str(unseen), "--in-process", "--analysis-time", "5", "--game-time", "5",
                 "--resamples", "50", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "Leaderboard: 3 stages, 18 games" in text and "report:" in text and "anytime after" in text
    data = json.loads((out / "report.json").read_text())
    assert {r["agent"] for r in data["ratings"]["overall"]} == {"random", "greedy", "last"}
    assert (out / "ratings.csv").read_text().startswith("scope,agent,rank,elo")
    page = (out / "report.html").read_text()
    assert 'class="leaderboard"' in page and "<svg" in page and "replay-data" in page
    assert "<td>0.600 (drawn ×2)</td><td>+0.30 ± 0.05</td>" in page and "<td>0.400</td><td>—</td>" in page
    assert main(["evaluate", "--no-builtins", "random", "greedy", "--stage", "tic-tac-toe", "--no-unseen",
                 "--in-process", "--out", str(out)]) == 2  # a run is there: --resume or another folder
    assert main(["evaluate", "--resume", "--no-unseen", "--stage", "tic-tac-toe", "--out", str(tmp_path / "typo")]) == 2
    assert "holds no run to resume" in capsys.readouterr().err and not (tmp_path / "typo").exists()
    for bad in ("1.5", "0", "half"):
        with pytest.raises(SystemExit):
            main(["evaluate", "--adaptation", bad, "--out", str(tmp_path / "never")])
    (out / "report.html").unlink()
    assert main(["report", str(out), "--resamples", "20"]) == 0
    assert (out / "report.html").is_file()


def test_an_agent_file_that_does_not_compile_is_refused_before_the_run(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("def analyze(stage, api, clock):\n    return lambda s, m, c: m[0\n")
    assert main(["evaluate", str(bad), "--no-unseen", "--stage", "tic-tac-toe", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "broken.py:2" in err and "fix the file" in err
    assert not (tmp_path / "o" / "results.sqlite").exists()
    assert main(["tournament", "tic-tac-toe", "--agent", str(bad), "--builtins", "--out", str(tmp_path / "t")]) == 2
    assert "broken.py:2" in capsys.readouterr().err and not (tmp_path / "t").exists()


def test_the_store_keeps_each_stage_with_its_role_and_budget(tmp_path, unseen):
    specs = [agents.resolve(a) for a in ENTRANTS]
    (unseen / "three-in-a-row-5x5.gdl").write_text(UNSEEN["three-in-a-row-4x4.gdl"].replace("4", "5"))
    config = evaluate.Config(**{**CONFIG.__dict__, "schedule": "doubling", "analysis_time": 1.0})
    evaluate.run(_stages(unseen), specs, tmp_path / "d", config, resamples=10)
    store = ResultsStore(tmp_path / "d" / "results.sqlite")
    held = store.stages()
    store.close()
    assert [(s["role"], s["analysis_time"], s["planned"]) for s in held] == \
        [("public", 1.0, 6), ("unseen", 1.0, 14), ("unseen", 1.0, 14), ("unseen", 2.0, 14)]  # + last@f's 8
    assert "Tic-tac-toe" in held[0]["text"]


def test_a_store_from_before_stages_had_draws_and_divergence_gets_them(tmp_path):
    import sqlite3

    old = sqlite3.connect(tmp_path / "results.sqlite")
    old.execute("CREATE TABLE stages (stage_hash TEXT PRIMARY KEY, name TEXT NOT NULL, text TEXT NOT NULL, "
                "role TEXT NOT NULL, weight REAL NOT NULL, position INTEGER NOT NULL, analysis_time REAL NOT NULL, "
                "planned INTEGER NOT NULL)")
    old.execute("INSERT INTO stages VALUES ('h', 'a stage', 'text', 'unseen', 0.5, 0, 2.0, 4)")
    old.commit()
    old.close()
    store = ResultsStore(tmp_path / "results.sqlite")
    store.add_stage("g", "another", "text", "unseen", 0.5, 1, 2.0, 4, 3, (0.25, 0.05))
    held = store.stages()
    store.close()
    assert [(s["multiplicity"], s["divergence"], s["divergence_se"]) for s in held] == [(1, None, None), (3, 0.25, 0.05)]


def test_qualification_lets_in_only_agents_that_beat_random_in_both_seats(tmp_path):
    from ludica import gdl
    from ludica.evaluation.qualify import qualify
    from ludica.runtime import tournament

    candidates = [agents.resolve("greedy"), agents.resolve(str(HERE / "bad_analysis.py"))]
    options = tournament.Options(analysis_time=5, game_time=5, seed=1, sandbox=False)
    stage = gdl.load(stages.path("small-board-6x6"))
    verdicts = qualify(candidates, agents.resolve("random"), stage, tmp_path / "q", options, n=3)
    by = {v.agent: v for v in verdicts}
    assert by["greedy"].qualified and by["greedy"].games == 6
    assert not by["bad_analysis"].qualified and by["bad_analysis"].as_black == 0.0
    assert "not qualified" in by["bad_analysis"].line() and not by["bad_analysis"].flagged
    again = qualify(candidates, agents.resolve("random"), stage, tmp_path / "q", options, n=3)  # kept, not replayed
    assert again == verdicts


def test_a_tournament_leaderboard_shows_forfeits_and_warns(tmp_path, capsys):
    code = main(["tournament", "tic-tac-toe", "--agent", str(HERE / "bad_analysis.py"), "--agent", "random",
                 "--in-process", "--out", str(tmp_path / "t")])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "0/0/0/2" in text and "Lost t/c/i/n" in (tmp_path / "t" / "leaderboard.md").read_text()
    assert "bad_analysis lost 2 of its 2 games (100%)" in text and "cannot analyse, on purpose" in text


def test_version_and_the_sandbox_says_it_needs_linux(tmp_path, capsys, monkeypatch):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("ludica ")
    monkeypatch.setattr("sys.platform", "darwin")
    assert main(["tournament", "tic-tac-toe", "--builtins", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr()
    assert "needs Linux" in err.err + err.out and "--in-process" in err.err + err.out
