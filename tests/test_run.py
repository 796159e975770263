"""runtime.Run (one object owns a run folder) and compiling once: a stage compiles once per
process, its kind is named without compiling, its static checks run once, its hash is kept."""
from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from ludica import compiler, gdl, stages
from ludica.compiler import game as compiled
from ludica.evaluation import evaluate, stageset, write_report
from ludica.gdl import checks as gdl_checks
from ludica.gdl.recent import Recent
from ludica.gdl.printer import format as format_stage
from ludica.runtime import Hooks, Options, Run, RunMismatch, StagePlan
from ludica.runtime import entrants as agents
from ludica.runtime.referee import stage_hash
from ludica.runtime.runfolder import RunFolderError

OPTIONS = Options(games=1, analysis_time=5, game_time=5, seed=7, sandbox=False, limits={"memory_mb": 512})
TIC_TAC_TOE = stages.path("tic-tac-toe")


def _specs(*names):
    return [agents.resolve(n) for n in names]


def _plan(stage, names, games=1):
    return StagePlan(stage, tuple((b, w) for b in names for w in names if b != w), games, stage.name,
                     OPTIONS.analysis_time)


# --- the run folder ------------------------------------------------------------------------------

def test_a_run_reads_its_settings_back_from_the_store(tmp_path):
    stage, specs = gdl.load(TIC_TAC_TOE), _specs("random", "greedy")
    with Run.open(tmp_path / "run") as run:
        run.start([stage], specs, OPTIONS, note='"kept"')
        assert run.options == OPTIONS
    with Run.read(tmp_path / "run") as read:  # only read: no lock, nothing written
        assert read.options == OPTIONS and read.options.seed == 7
        assert json.loads(read.settings["note"]) == "kept"
        assert json.loads(read.settings["stages"]) == [stage_hash(stage)]


def test_one_resume_check_for_the_folder_and_the_settings(tmp_path):
    stage, specs = gdl.load(TIC_TAC_TOE), _specs("random", "greedy")
    with pytest.raises(RunMismatch, match="no run to resume"):
        Run.open(tmp_path / "none", resume=True)
    assert not (tmp_path / "none").exists()  # refused before anything was made
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="holds files ludica did not write"):
        Run.open(tmp_path / "theirs")
    with Run.open(tmp_path / "run") as run:
        run.start([stage], specs, OPTIONS)
    with pytest.raises(RunMismatch, match="already holds a run"):
        Run.open(tmp_path / "run")
    with Run.open(tmp_path / "run", resume=True) as run:
        with pytest.raises(RunMismatch, match="options: seed 7 → 8"):
            run.start([stage], specs, Options(**{**OPTIONS.__dict__, "seed": 8}))
        run.start([stage], specs, OPTIONS)  # the very same run goes on


def test_a_second_holder_of_a_run_folder_is_refused(tmp_path):
    with Run.open(tmp_path / "run"):
        with pytest.raises(gdl.LudicaError, match="in use by another ludica run"):
            Run.open(tmp_path / "run", resume=True)


def test_play_tells_its_hooks_and_a_stage_it_is_told_not_to_start_stays_unplayed(tmp_path):
    one, other = gdl.load(TIC_TAC_TOE), gdl.load(stages.path("small-board-6x6"))
    specs = _specs("random", "greedy")
    plans = [_plan(one, ["random", "greedy"]), _plan(other, ["random", "greedy"])]
    heard: dict[str, list] = {"stage": [], "game": [], "done": []}
    with Run.open(tmp_path / "run") as run:
        run.start([one, other], specs, OPTIONS)
        assert run.left(plans) == (4, 4)
        run.play(plans, specs, hooks=Hooks(on_stage=lambda title, n: heard["stage"].append((title, n)),
                                           on_game=heard["game"].append,
                                           on_stage_done=lambda plan: heard["done"].append(plan.title),
                                           keep_going=lambda plan: plan.stage == one))
        assert run.left(plans) == (2, 4)
        assert heard["stage"] == [(one.name, 2)] and heard["done"] == [one.name]
        assert [(g["black"], g["white"]) for g in heard["game"]] == [("random", "greedy"), ("greedy", "random")]
        record = heard["game"][0]["record"]  # what a watcher needs to show the game
        assert record.players == ("random", "greedy") and record.seed == plans[0].seed(7, "random", "greedy", 0)
        assert set(heard["game"][0]["analyses"]) == {"black", "white"}


# --- compiling once ------------------------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch) -> Counter:
    """How many CompiledGames are made of each stage (by hash) from here on, with the process's
    compiled games let go first."""
    made: Counter = Counter()
    build = compiled.CompiledGame.__init__

    def counting(self, stage, lowered=None):
        made[stage_hash(stage)] += 1
        build(self, stage, lowered)

    compiler.compile.cache_clear()
    compiler.kind.cache_clear()
    monkeypatch.setattr(compiled.CompiledGame, "__init__", counting)
    return made


THREE_IN_A_ROW = ('game "Three in a row, 4x4"\nboard square 4\nplayers x o\nmove place empty\n'
                  'end line 3: mover wins\nend board-full: draw\n')


def test_an_evaluation_and_its_report_compile_each_stage_once(tmp_path, counted):
    folder = tmp_path / "unseen"
    folder.mkdir()
    (folder / "three-in-a-row-4x4.gdl").write_text(THREE_IN_A_ROW)
    (folder / "breakthrough.gdl").write_text(stages.path("breakthrough").read_text())  # another family
    chosen = stageset.public([TIC_TAC_TOE]) + stageset.from_folder(folder)
    config = evaluate.Config(OPTIONS, adaptation=())
    summary = evaluate.run(chosen, _specs("random", "greedy"), tmp_path / "run", config, resamples=10)
    write_report(summary, tmp_path / "run")  # the report replays games: from the same compiled games
    assert summary.played == summary.planned
    assert dict(counted) == {stage_hash(s.stage): 1 for s in chosen}


def test_the_kind_of_a_stage_is_named_without_compiling_it(counted):
    for path in stages.bundled():
        stage = gdl.load(path)
        named = compiler.kind(stage)
        assert not counted, path  # named from the lowered program alone
        game = compiler.playable(stage)
        assert named == (getattr(game, "truth", game).fast_playouts or "generic"), path
        counted.clear()


def test_a_stage_named_then_compiled_is_lowered_once(monkeypatch):
    lowered: Counter = Counter()
    for module in (compiler, compiled):
        real = module.build
        monkeypatch.setattr(module, "build", lambda s, real=real: lowered.update([stage_hash(s)]) or real(s))
    compiler.compile.cache_clear()
    compiler.kind.cache_clear()
    stage = gdl.load(stages.path("gomoku"))
    assert compiler.kind(stage) == compiler.kind(stage) == compiler.compile(stage).fast_playouts
    assert lowered == {stage_hash(stage): 1}
    assert compiler.CompiledGame(stage).fast_playouts == "placement"  # a private game lowers its own
    assert lowered == {stage_hash(stage): 2}


def test_the_same_stage_from_two_loads_is_one_compiled_game_and_a_changed_one_is_another(counted):
    first, again = gdl.load(TIC_TAC_TOE), gdl.load(TIC_TAC_TOE)
    assert first is not again and first == again and hash(first) == hash(again)
    assert compiler.compile(first) is compiler.compile(again)
    other = gdl.loads(TIC_TAC_TOE.read_text().replace("line 3", "line 2"))
    assert compiler.compile(other) is not compiler.compile(first)
    assert counted == {stage_hash(first): 1, stage_hash(other): 1}
    assert compiler.CompiledGame(first) is not compiler.compile(first)  # a private game, for one who changes it


def test_the_static_checks_run_once_per_stage(monkeypatch):
    """gdl.load checks a stage and the compiler trusts what it accepted; a stage built without
    gdl.load is checked by its first compile only; a refused stage is refused every time."""
    runs = []
    first, *rest = gdl_checks.CHECKS
    monkeypatch.setattr(gdl_checks, "CHECKS", [lambda ctx: runs.append(ctx.stage) or first(ctx), *rest])
    monkeypatch.setattr(gdl_checks, "_SOUND", Recent(4096))
    stage = gdl.load(stages.path("ataxx"))
    compiler.CompiledGame(stage), compiler.CompiledGame(stage)
    assert runs == [stage]
    parsed = gdl.parse(stages.path("gomoku").read_text())  # parsed, not checked
    compiler.CompiledGame(parsed), compiler.CompiledGame(parsed)
    assert runs == [stage, parsed]
    bad = gdl.parse(TIC_TAC_TOE.read_text().replace("line 3", "line 9"))  # longer than the board: refused each time
    for _ in range(2):
        with pytest.raises(gdl.StageError):
            compiler.compile(bad)
    assert runs.count(stage) == runs.count(parsed) == 1


def test_a_stage_hash_is_kept_and_is_the_hash_of_its_canonical_text():
    stage = gdl.load(stages.path("standard-8x8"))
    digest = hashlib.sha256(format_stage(stage).encode()).hexdigest()
    assert stage_hash(stage) == digest and stage_hash(stage) is stage_hash(stage)
    assert stage_hash(gdl.load(stages.path("standard-8x8"))) == digest  # an equal stage, another object


def test_an_evaluation_stores_its_config_flat_as_runs_made_before_config_held_options():
    """Runs stored one flat object (resumable only if it is stored alike; summary.py reads it)."""
    config = evaluate.Config(OPTIONS, format="gauntlet", adaptation=(0.5,))
    assert config.setting() == {"games": 1, "analysis_time": 5, "game_time": 5, "seed": 7, "format": "gauntlet",
                                "schedule": "flat", "adaptation": [0.5], "reference_games": evaluate.REFERENCE_GAMES,
                                "reveal": False, "limits": {"memory_mb": 512}, "sandbox": False,
                                "isolate_rules": False}
