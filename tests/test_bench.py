"""The benchmarks run and name every figure (their speed is never asserted: benchmarks, not timed tests).

They live in the repository's benchmarks/, outside the installed package; `ludica bench` runs
benchmarks/bench.py of the checkout."""
import importlib
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from ludica.commands import bench as bench_command
from ludica.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def benchmarks(monkeypatch):
    """benchmarks/ importable as the scripts in it see it (a script's folder is first on sys.path)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))


def test_bench_names_every_figure(tmp_path, capsys):
    out_json = tmp_path / "bench.json"
    assert main(["bench", "tic-tac-toe", "--seconds", "0.2", "--no-cold", "--quiet", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    for figure in ("cold compile", "warm compile", "new variant", "playouts/s", "moves/s", "threads=2 speed-up",
                   "from Python, a random game", "µs/ply", "legal_moves + apply on a stored position", "µs/move",
                   "targets:"):
        assert figure in out, figure
    assert "tic-tac-toe" in out
    doc = json.loads(out_json.read_text())
    (stage,) = doc["stages"]
    assert stage["stage"] == "tic-tac-toe" and "error" not in stage
    assert stage["games_per_s"] > 0 and stage["moves_per_s"] > stage["games_per_s"]
    assert abs(stage["plies_per_game"] - 7.6) < 1.5  # random tic-tac-toe lasts about 7.6 plies
    assert stage["speedup"] > 0 and stage["python_us_per_move"] > 0 and stage["python_us_per_ply"] > 0
    assert set(stage["variant_kinds_ms"]) == {"blocked cell", "larger board"}
    assert {"blocked a1", "board 4x4", "board 5x5"} <= set(stage["variants_ms"])
    assert "ratio" not in stage  # the bitboard reference is for standard Othello only


def test_bench_passes_every_argument_on(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["bench", "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ludica bench") and "--no-cold" in out and "STAGE" in out


def test_bench_without_a_checkout_says_where_it_is(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bench_command, "_CHECKOUT", tmp_path)  # as in site-packages: no benchmarks/ beside ludica
    assert main(["bench", "tic-tac-toe"]) == 2
    err = capsys.readouterr().err
    assert "source repository" in err and "python benchmarks/bench.py" in err
    assert importlib.util.find_spec("ludica.bench") is None  # no bench code in the package


def test_bench_reference_kernel_is_in_the_repository(benchmarks):
    bench = importlib.import_module("bench")
    assert bench.DEFAULT_REFERENCE.parent == ROOT / "benchmarks"
    reference = bench.load_reference(bench.DEFAULT_REFERENCE)
    start = np.uint64(0x0000000810000000), np.uint64(0x0000001008000000)
    assert reference.perft(*start, 4, False) == 244  # standard Othello, as gdl.perft counts it


def test_bench_variants_are_valid_stages(benchmarks):
    from ludica import compiler, gdl, stages
    from bench import variants

    for name in ("standard-8x8", "connect-four", "hex-11", "breakthrough"):
        stage = gdl.load(stages.path(name))
        found = variants(stage, compiler.compile(stage))
        assert [len(found[kind]) for kind in ("blocked cell", "larger board")] == [3, 3], (name, found)
        for v in [*found["blocked cell"].values(), *found["larger board"].values()]:
            assert v != stage and gdl.loads(gdl.format(v)) == v


def _script(name: str):
    """The benchmark script benchmarks/NAME.py, loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_openspiel_compare_skips_cleanly_without_pyspiel(benchmarks, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` now raises ImportError
    assert _script("openspiel_compare").main(["--seconds", "0.1"]) == 0
    assert "skipped: pyspiel (OpenSpiel) is not installed" in capsys.readouterr().out


def test_openspiel_compare_runs(benchmarks, tmp_path, capsys):
    pytest.importorskip("pyspiel")
    out_json = tmp_path / "os.json"
    assert _script("openspiel_compare").main(["--seconds", "0.1", "--games", "tic_tac_toe", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "tic_tac_toe vs tic-tac-toe" in out and "ratio" in out and "targets" in out
    (game,) = json.loads(out_json.read_text())["games"]
    assert game["openspiel"]["games_per_s"] > 0 and game["ratio_kernel"] > 0
    # same rules: random games have the same mean length on both engines
    assert abs(game["openspiel"]["plies_per_game"] - game["ludica-kernel"]["plies_per_game"]) < 1.5


def test_dark_compare_skips_cleanly_without_pyspiel(benchmarks, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    assert _script("dark_compare").main(["--seconds", "0.1"]) == 0
    assert "skipped: pyspiel (OpenSpiel) is not installed" in capsys.readouterr().out


def test_dark_compare_runs(benchmarks, tmp_path, capsys):
    pytest.importorskip("pyspiel")
    out_json = tmp_path / "dark.json"
    assert _script("dark_compare").main(["--seconds", "0.1", "--games", "dark_hex 3x3 adh", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "dark_hex 3x3 adh: OpenSpiel C++ loop" in out and "targets" in out
    (game,) = json.loads(out_json.read_text())["games"]
    assert game["ratio_cpp"] > 0 and game["ratio_base_steps"] > 0
    # the same rules: random games of tries are as long on both engines
    assert abs(game["openspiel_tries_per_game"] - game["ludica-dark"]["steps_per_game"]) < 1.5


def test_the_dark_agents_benchmark_names_every_figure(benchmarks, tmp_path, capsys):
    out_json = tmp_path / "dark.json"
    assert _script("dark_agents").main(["--games", "2", "--game-time", "1", "--stages", "phantom-tic-tac-toe",
                                        "--opponents", "random", "--json", str(out_json)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("phantom-tic-tac-toe") and "determinised vs random" in line
    assert "over 2 games at 1 s a game" in line
    (row,) = json.loads(out_json.read_text())
    assert row["games"] == 2 and 0 <= row["interval"][0] <= row["score"] <= row["interval"][1] <= 1


@pytest.mark.slow
def test_the_divergence_benchmark_names_every_figure(benchmarks, capsys):
    import divergence

    figures = divergence.main(["--base", "small-board-6x6", "-n", "2", "--jobs", "1"])
    out = capsys.readouterr().out
    for figure in ("2 variants of Small Board (6x6)", "divergence", "base: the tuned policy scores",
                   "public", "drawn again", "total variation"):
        assert figure in out, figure
    assert len(figures["divergence"]) == 2 and 0 <= figures["draws"]["public share"] <= 1


def test_the_first_command_s_breakdown_names_every_part(benchmarks, tmp_path, capsys):
    import first_command
    from ludica.runtime import run as runs

    before = runs.play_game
    assert first_command.main(["--out", str(tmp_path / "run"), "--", "random", "greedy", "--no-builtins", "--stage",
                               "tic-tac-toe", "--variants", "1", "--analysis-time", "0.1", "--game-time", "0.2",
                               "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert runs.play_game is before  # the timers are taken off again
    for part in ("took", "draw and screening", "compile for play", "summary", "report", "the play",
                 "workers: until ready", "analyses", "agents thinking (CPU)", "the rest: referee",
                 "games, the format's", "games, adaptation", "games, reference", "numba compilations"):
        assert part in out, part
    counts = {line[:34].strip(): line[34:].split()[1] for line in out.splitlines() if line.startswith("games")}
    # random and greedy, baselines both: one game a seating on each stage, and on the unseen one two more
    # a seating among the baselines (3 reference games a seating, the format's one among them)
    assert counts == {"games": "8", "games, the format's": "4", "games, adaptation": "0", "games, reference": "4"}
