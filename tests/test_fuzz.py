"""Hostile input through the command line's own entry points, in process: stage files and Arena
configs mutated by a seeded mutator. Each case must end with an exit status and, on failure, a
message — never an exception that is not ludica's — within a time limit; a mutated stage that
`ludica check` accepts must also compile, play random games on the reference interpreter and in
the kernels, without a crash.

The regular run tries CASES mutants of each kind; `pytest -m slow` tries SLOW_CASES and prints, per
kind, the cases, how many were refused, the distinct error messages among them (numbers and quoted
text set aside) and the time per case at the 99th percentile (`pytest -m slow tests/test_fuzz.py -s`).
"""
from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import numpy as np
import pytest

from ludica import compiler, gdl, stages
from ludica.cli import main

CASES, SLOW_CASES = 120, 2000
TIME_LIMIT = 10.0  # CPU seconds per case, compile and games included (CPU, not real time: a busy
# machine stretches real time, and a case that is really slow burns CPU)

TOKENS = ["board", "square", "rect", "hex", "wrap", "blocked", "setup", "move", "place", "empty", "flip", "remove",
          "custodial", "convert", "adjacent", "require", "capture", "turn", "pass", "forced", "end", "line", "connect",
          "no-moves", "most-pieces", "fewest-pieces", "draw", "mover", "wins", "after", "plies", "players", "game",
          ":", "..", "#", '"', "0", "1", "3", "26", "27", "999999", "1000001", "9" * 5000, "-1", "a1", "z99", "h8",
          "a1..z999999", "\t", "\u00e9", "\ufeff", "\x00", "over-blocked", "all", "n", "ne", "step", "jump", "slide"]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        if kind == 0 and lines:  # drop a line
            del lines[rng.randrange(len(lines))]
        elif kind == 1 and lines:  # repeat a line, up to many times
            i = rng.randrange(len(lines))
            lines[i:i] = [lines[i]] * rng.choice((1, 2, 70))
        elif kind == 2 and len(lines) > 1:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind in (3, 4) and lines:  # replace or insert a word
            i = rng.randrange(len(lines))
            words = lines[i].split(" ")
            k = rng.randrange(len(words) + (kind == 4))
            if kind == 3 and k < len(words):
                words[k] = rng.choice(TOKENS)
            else:
                words.insert(k, rng.choice(TOKENS))
            lines[i] = " ".join(words)
        elif kind == 5 and lines:  # cut a line short
            i = rng.randrange(len(lines))
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        else:  # a line of random characters
            lines.insert(rng.randrange(len(lines) + 1), "".join(rng.choice("ab19 :.#\"-\\\n") for _ in range(12)))
    return "\n".join(lines) + rng.choice(("\n", ""))


def _play(stage) -> None:
    """A stage that checks must compile and play: random games on both engines, no exception."""
    game = compiler.playable(stage)
    if isinstance(game, compiler.CompiledDarkGame):  # a hidden stage: its games of tries, in the kernel too
        game.playouts(8, seed=1, max_tries=2000)
    else:
        game.playouts(8, seed=1)
    ref = gdl.reference(stage)
    rng = random.Random(0)
    state = ref.initial_state()
    for _ in range(200):
        if ref.is_terminal(state):
            break
        state = ref.apply(state, rng.choice(ref.legal_moves(state)))
    start = game.initial_state()
    assert np.array_equal(game.board(start), ref.board(ref.initial_state()))


def _stage_cases(n: int, seed: int):
    sources = [p.read_text(encoding="utf-8") for p in stages.bundled()]
    rng = random.Random(f"ludica/fuzz/stages/{seed}")
    return [mutate(rng.choice(sources), rng) for _ in range(n)]


class Tally:
    """Per case: its time, and the error message it got (None when accepted)."""

    def __init__(self):
        self.times: list[float] = []
        self.messages: list[str | None] = []

    def add(self, seconds: float, said: str | None) -> None:
        self.times.append(seconds)
        self.messages.append(None if said is None else _template(said))

    def summary(self, kind: str) -> str:
        refused = [m for m in self.messages if m is not None]
        p99 = float(np.percentile(self.times, 99)) if self.times else 0.0
        return (f"{kind}: {len(self.times)} cases, {len(refused)} refused with {len(set(refused))} distinct error "
                f"messages, {p99 * 1000:.0f} ms of CPU per case at the 99th percentile (longest {max(self.times) * 1000:.0f} ms)")


def _template(said: str) -> str:
    """An error message without its place, quoted text and numbers: one message however often it
    is met, with whatever it quotes."""
    line = next((l for l in said.splitlines() if "error" in l), said.strip().splitlines()[0] if said.strip() else "")
    line = line[line.find("error"):]
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", line))


def _check_case(text: str, folder: Path, capsys, tally: Tally) -> None:
    path = folder / "mutant.gdl"
    path.write_text(text, encoding="utf-8")
    t0 = time.process_time()
    code = main(["check", str(path)])
    said = capsys.readouterr()
    assert code in (0, 1), (code, text)
    if code == 1:
        assert "error" in said.out + said.err, text
    else:
        _play(gdl.load(path))
    seconds = time.process_time() - t0
    tally.add(seconds, said.out + said.err if code == 1 else None)
    assert seconds < TIME_LIMIT, f"slow case:\n{text}"


def _run_stages(n: int, tmp_path: Path, capsys) -> Tally:
    tally = Tally()
    for text in _stage_cases(n, seed=1):
        _check_case(text, tmp_path, capsys, tally)
    return tally


def test_mutated_stage_files(tmp_path, capsys):
    tally = _run_stages(CASES, tmp_path, capsys)
    accepted = tally.messages.count(None)
    assert 0 < accepted < CASES  # the mutator makes both kinds: the test sees accepted stages played
    assert len(set(tally.messages) - {None}) > 5  # and many kinds of mistakes


@pytest.mark.slow
def test_many_mutated_stage_files(tmp_path, capsys):
    tally = _run_stages(SLOW_CASES, tmp_path, capsys)
    with capsys.disabled():
        print("\n" + tally.summary("mutated stage files"))


ARENA = {"name": "Standard 8x8", "boardSize": 8, "initialBlocked": [{"r": 0, "c": 0}], "ignoreOcclusion": True,
         "initialPlayer1": [{"r": 3, "c": 4}, {"r": 4, "c": 3}], "initialPlayer2": [{"r": 3, "c": 3}, {"r": 4, "c": 4}]}
VALUES = [None, True, False, 0, -1, 1, 27, 10 ** 30, 2.5, "", "x", '"', "a\nb", [], {}, [[]], [{"r": 1}],
          [{"r": "1", "c": 2}], [{"r": 99, "c": -3}], {"r": 0, "c": 0}]


def mutate_config(rng: random.Random) -> object:
    config = json.loads(json.dumps(ARENA))
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(4)
        key = rng.choice(sorted(config) + ["extra"])
        if kind == 0:
            config.pop(key, None)
        elif kind == 1:
            config[key] = rng.choice(VALUES)
        elif kind == 2 and isinstance(config.get(key), list) and config[key]:
            config[key][rng.randrange(len(config[key]))] = rng.choice(VALUES)
        else:
            config["boardSize"] = rng.choice((1, 2, 3, 26, 27, 0, -5, 8))
    return rng.choice((config, [config, config], [config, 3], "just a string"))


def _run_configs(n: int, tmp_path: Path, capsys) -> Tally:
    rng, tally = random.Random("ludica/fuzz/arena/1"), Tally()
    for k in range(n):
        src = tmp_path / f"config-{k}.json"
        src.write_text(json.dumps(mutate_config(rng)))
        t0 = time.process_time()
        code = main(["import-arena", str(src), "--out", str(tmp_path / "out")])
        said = capsys.readouterr()
        assert code in (0, 1), (code, src.read_text())
        if code == 1:
            assert "error" in said.err, src.read_text()
        seconds = time.process_time() - t0
        tally.add(seconds, said.err if code == 1 else None)
        assert seconds < TIME_LIMIT
    for path in (tmp_path / "out").glob("*.gdl") if (tmp_path / "out").exists() else ():
        gdl.load(path)  # whatever was written checks
    return tally


def test_mutated_arena_configs(tmp_path, capsys):
    tally = _run_configs(CASES, tmp_path, capsys)
    assert len(set(tally.messages) - {None}) > 3


@pytest.mark.slow
def test_many_mutated_arena_configs(tmp_path, capsys):
    tally = _run_configs(SLOW_CASES, tmp_path, capsys)
    with capsys.disabled():
        print("\n" + tally.summary("mutated Arena configs"))
