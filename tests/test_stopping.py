"""`--until-separated` (evaluation/stopping.py): the sequential sign test's evidence and bar, which
pairs it waits for, what it reads from the store, a real run that it stops, and (slow) its error
rate and power by simulation (benchmarks/stopping_sim.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import integrate, stats

from ludica import gdl
from ludica.cli import main
from ludica.evaluation import evaluate, stageset, stopping
from ludica.runtime import Options
from ludica.runtime import entrants as agents

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent / "agents"


# --- the evidence ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ahead,behind", [(0, 0), (1, 0), (3, 2), (7, 0), (5, 9), (20, 3)])
def test_the_evidence_is_the_beta_mixture_of_likelihood_ratios(ahead, behind):
    def ratio(p):  # against a fair coin, under Beta(½, ½)
        return (2 * p) ** ahead * (2 * (1 - p)) ** behind * stats.beta(0.5, 0.5).pdf(p)
    mixture, _ = integrate.quad(ratio, 0, 1, limit=200)
    assert stopping.evidence(ahead, behind) == pytest.approx(mixture, rel=1e-6)


def test_the_evidence_is_a_fair_bet_under_the_null():
    """A martingale for a fair coin: its expected value after the next stage is its value now, so
    by Ville's inequality it ever reaches 1/α with chance at most α."""
    for ahead in range(30):
        for behind in range(30):
            now = stopping.evidence(ahead, behind)
            assert (stopping.evidence(ahead + 1, behind) + stopping.evidence(ahead, behind + 1)) / 2 == \
                pytest.approx(now, rel=1e-12)
            assert stopping.evidence(behind, ahead) == pytest.approx(now, rel=1e-12)
        assert stopping.evidence(ahead, ahead) <= 1.0 + 1e-12


def _stages(diffs: list[float]) -> list[dict[str, float]]:
    """Stages on which a scored 0.5 + d/2 and b 0.5 − d/2."""
    return [{"a": 0.5 + d / 2, "b": 0.5 - d / 2} for d in diffs]


def test_seven_stages_in_a_row_tell_two_agents_apart_at_95_percent_and_six_do_not():
    assert stopping.decide(_stages([0.3] * 6), [("a", "b")]) is None
    said = stopping.decide(_stages([0.3] * 7), [("a", "b")])
    assert said and "told apart at 95% confidence after 7 unseen stages" in said
    assert "a outscores b on more unseen stages than not (7 stages to 0, 0 even, by stage 7)" in said
    # b ahead instead: b is named the leader
    assert "b outscores a" in stopping.decide(_stages([-0.1] * 7), [("a", "b")])


def test_even_stages_say_nothing_and_a_pair_told_apart_stays_so():
    state = stopping.track(_stages([0.0, 0.2, 0.0] + [0.2] * 6), [("a", "b")])[0]
    assert (state.separated_at, state.ahead, state.behind, state.even) == (9, 7, 0, 2)
    later = stopping.track(_stages([0.2] * 7 + [-0.2] * 6), [("a", "b")])[0]
    assert later.separated_at == 7 and later.leader == "a" and later.evidence < 1.0  # the bar was crossed once
    assert stopping.decide(_stages([0.2] * 7 + [-0.2] * 6), [("a", "b")])


def test_min_stages_holds_the_stop_back():
    quick = _stages([0.5] * 3)  # at 50%, the bar is 2: three stages in a row cross it
    assert stopping.decide(quick, [("a", "b")], level=0.5, min_stages=3)
    assert stopping.decide(quick, [("a", "b")], level=0.5, min_stages=4) is None
    assert stopping.stopping_stage(stopping.track(quick, [("a", "b")], 0.5), 5) == 5


def test_several_pairs_share_the_risk_and_all_must_be_told_apart():
    three = [{"a": 0.9, "b": 0.5, "c": 0.1}] * 9
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    assert stopping.decide(three[:8], pairs) is None  # 8 in a row: E 50, under the bar of 3 / 5% = 60
    said = stopping.decide(three, pairs)
    assert said and "each of the 3 pairs at 98.3%" in said
    assert all(f"{x} outscores {y}" in said for x, y in pairs)
    stuck = [{"a": 0.9, "b": 0.5, "c": 0.5}] * 20  # b and c never differ
    assert stopping.decide(stuck, pairs) is None


def test_the_pairs_are_the_submitted_agents_or_those_named():
    entrants = ["mine", "yours", "theirs", "random", "corners", "positional"]
    baselines = {"random", "corners", "positional"}
    assert stopping.tested_pairs(entrants, baselines) == [("mine", "yours"), ("mine", "theirs"), ("yours", "theirs")]
    assert stopping.tested_pairs(entrants, baselines, [("mine", "corners"), ("corners", "mine")]) == \
        [("mine", "corners")]
    with pytest.raises(gdl.LudicaError, match="--separate A B"):
        stopping.tested_pairs(["mine", "random", "corners"], {"random", "corners"})
    with pytest.raises(gdl.LudicaError, match="no agent 'nobody'"):
        stopping.tested_pairs(entrants, baselines, [("mine", "nobody")])
    with pytest.raises(gdl.LudicaError, match="from itself"):
        stopping.tested_pairs(entrants, baselines, [("mine", "mine")])


class _Store:
    """What unseen_scores reads of a results store."""

    def __init__(self, stages, games, adaptation=None):
        self._stages, self._games = stages, games
        self._settings = {"evaluation": json.dumps({"adaptation": adaptation or {}})}

    def settings(self):
        return self._settings

    def stages(self):
        return sorted(self._stages, key=lambda s: s["position"])

    def games(self):
        return self._games


def _game(stage, black, white, result):
    return {"stage_hash": stage, "black": black, "white": white, "result": result}


def test_the_scores_are_those_of_finished_unseen_stages_in_the_order_they_finished():
    stages = [{"stage_hash": h, "role": role, "position": k, "planned": 3}
              for k, (h, role) in enumerate([("pub", "public"), ("u1", "unseen"), ("u2", "unseen"), ("u3", "unseen")])]
    games = ([_game("pub", "a", "b", "black")] * 3
             + [_game("u1", "a", "b", "black"), _game("u3", "a", "b", "white"), _game("u3", "b", "a", "black"),
                _game("u2", "a", "b", "draw"),  # u2 never finishes
                _game("u3", "a@0.5", "b", "black"),  # an adaptation game: counts to finish u3, not in its scores
                _game("u1", "b", "a", "draw"), _game("u1", "a@0.5", "b", "white")])
    scores = stopping.unseen_scores(_Store(stages, games, {"a@0.5": ["a", 0.5]}))
    assert scores == [{"a": 0.0, "b": 1.0}, {"a": 0.75, "b": 0.25}]  # u3 finished first, then u1


# --- a real run ------------------------------------------------------------------------------------

LINES = [(3, 3, 3), (3, 4, 3), (4, 3, 3), (4, 4, 3), (3, 5, 3), (5, 3, 3), (4, 5, 4)]  # rows, columns, line


def test_a_run_stops_once_the_submitted_agents_are_told_apart(tmp_path):
    """`bad_analysis` forfeits every game, so `last` outscores it on every stage: at 90% (a bar of 10)
    six stages tell them apart, and the seventh is never played."""
    folder = tmp_path / "unseen"
    folder.mkdir()
    for r, c, n in LINES:
        (folder / f"line-{r}x{c}-{n}.gdl").write_text(
            f'game "Line {n}, {r}x{c}"\nboard rect {r} {c}\nplayers x o\nmove place empty\n'
            f"end line {n}: mover wins\nend board-full: draw\n")
    specs = [agents.resolve(a) for a in ("random", str(HERE / "last.py"), str(HERE / "bad_analysis.py"))]
    config = evaluate.Config(Options(games=1, analysis_time=5, game_time=5, seed=1, sandbox=False), adaptation=())
    stops, standings = [], []
    summary = evaluate.run(stageset.from_folder(folder), specs, tmp_path / "run", config, resamples=10,
                           stopping=evaluate.Stopping(until_separated=True, level=0.9),
                           callbacks=evaluate.Callbacks(on_stop=stops.append, on_standing=standings.append))
    assert len({g["stage_hash"] for g in summary.games}) == 6 and summary.played < summary.planned
    assert stops == [summary.stopped] and not summary.standing  # told apart: nothing left standing
    # what the test stands on, after each unseen stage
    assert len(standings) == 6
    assert standings[4] == ("separation after 5 unseen stages: last led on 5, bad_analysis on 0, 0 even: evidence "
                            "7.9 of the 10 needed, not told apart yet")
    assert standings[5] == "separation after 6 unseen stages: last–bad_analysis told apart at stage 6 (last ahead)"
    assert summary.stopped.startswith("told apart at 90% confidence after 6 unseen stages")
    assert "last outscores bad_analysis on more unseen stages than not (6 stages to 0" in summary.stopped


def test_a_run_too_short_to_separate_is_warned_of_and_ends_with_where_its_pairs_stand(tmp_path, capsys):
    assert stopping.fewest_stages(1) == 7 and stopping.cannot_stop(1, 7) is None
    assert "needs at least 7 unseen stages" in stopping.cannot_stop(1, 4)
    assert "needs at least 9 unseen stages" in stopping.cannot_stop(3, 8)  # three pairs share the 5%: a bar of 60
    folder = tmp_path / "unseen"
    folder.mkdir()
    for r, c, n in LINES[:2]:
        (folder / f"line-{r}x{c}-{n}.gdl").write_text(
            f'game "Line {n}, {r}x{c}"\nboard rect {r} {c}\nplayers x o\nmove place empty\n'
            f"end line {n}: mover wins\nend board-full: draw\n")
    out = tmp_path / "run"
    code = main(["evaluate", "--no-builtins", "random", str(HERE / "last.py"), str(HERE / "bad_analysis.py"),
                 "--unseen", str(folder), "--no-builtins", "--stage", "tic-tac-toe", "--in-process",
                 "--adaptation", "none", "--analysis-time", "1", "--game-time", "1", "--resamples", "10",
                 "--until-separated", "--out", str(out)])
    said = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert ("warning: --until-separated cannot stop this run: with 1 pair to tell apart at 95% it needs at least 7 "
            "unseen stages") in said and said.index("cannot stop") < said.index("Leaderboard")
    # its stages are a folder's: more of them, not --variants, which draws stages this run does not
    assert "the run plays 2; give a folder of 7 or more stages to --unseen" in said and "--variants" not in said
    assert "give --variants 7 or more" in stopping.cannot_stop(1, 4)
    end = said[said.index("report:"):]
    assert ("--until-separated: not every pair told apart; separation after 2 unseen stages: last led on 2, "
            "bad_analysis on 0, 0 even: evidence 1.5 of the 20 needed, not told apart yet") in end


def test_the_command_says_what_it_cannot_separate_before_the_run(tmp_path, capsys):
    base = ["evaluate", "--no-builtins", "random", "greedy", str(HERE / "last.py"), "--stage", "tic-tac-toe",
            "--no-unseen", "--in-process"]
    assert main(base + ["--until-separated", "--out", str(tmp_path / "one")]) == 2
    assert "--separate A B" in capsys.readouterr().err and not (tmp_path / "one").exists()
    assert main(base + ["--separate", "last", "nobody", "--out", str(tmp_path / "typo")]) == 2
    assert "no agent 'nobody'" in capsys.readouterr().err and not (tmp_path / "typo").exists()


# --- by simulation (slow) ---------------------------------------------------------------------------


@pytest.mark.slow
def test_by_simulation_false_stops_stay_under_5_percent_and_400_elo_is_told_apart_within_16_stages(monkeypatch,
                                                                                                    capsys):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import stopping_sim

    figures = {f.what: f for f in stopping_sim.main(["--trials", "1000"])}
    print(capsys.readouterr().out)
    for f in figures.values():
        if f.null:
            assert f.stopped <= 0.05 and f.wrong <= 0.05, f.line()
        else:
            assert f.wrong <= 0.01, f.line()
    strong = [f for what, f in figures.items() if what.startswith("400 Elo")]
    assert len(strong) == 2
    assert all(f.median <= 10 and f.within >= 0.85 for f in strong), [f.line() for f in strong]
    assert max(f.within for f in strong) >= 0.95
