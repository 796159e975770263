"""Machine load never decides a game: an evaluation of deterministic agents that spend most of
their budgets (tests/agents/steady.py) plays the very same games, with no forfeit, idle and beside
CPU burners (three per core, each in a session of its own, as users' programs are); an agent that
sleeps (tests/agents/sleeper.py) is still forfeited, loaded or not."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ludica.cli import main
from ludica.runtime import accounting
from ludica.runtime.records import ResultsStore

HERE = Path(__file__).parent / "agents"
# each agent's analysis and game budget, CPU seconds: the loaded run takes about four times as long in
# real time (six burners share two cores with it), and slows the suite's other workers meanwhile
BUDGET = 0.5


def _burners() -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(3 * len(os.sched_getaffinity(0)))]


def _stop(burners: list[subprocess.Popen]) -> None:
    for b in burners:
        b.kill()
        b.wait()


def _evaluate(agents: list[Path], out: Path) -> tuple[dict, list[dict]]:
    """((black, white) → (result, reason, moves)), and the analyses."""
    code = main(["evaluate", *map(str, agents), "--no-builtins", "--stage", "small-board-6x6", "--no-unseen",
                 "--games", "1", "--adaptation", "none", "--analysis-time", str(BUDGET), "--game-time", str(BUDGET),
                 "--resamples", "20", "--jobs", "1", "--out", str(out)])
    assert code == 0
    games = {}
    for path in (out / "logs").rglob("*.json"):
        log = json.loads(path.read_text())
        m = log["metadata"]
        games[(m["blackStrategy"], m["whiteStrategy"])] = (m["result"], m.get("reason"),
                                                           [x["move"] for x in log["moves"]])
    store = ResultsStore(out / "results.sqlite")
    try:
        reasons = {(g["black"], g["white"]): g["reason"] for g in store.games()}
        analyses = store.analyses()
    finally:
        store.close()
    return {pair: (result, reasons[pair], moves) for pair, (result, _, moves) in games.items()}, analyses


def test_a_busy_machine_changes_no_game_and_forfeits_no_agent_within_budget(tmp_path):
    steady_b = tmp_path / "steady_b.py"
    steady_b.write_text((HERE / "steady.py").read_text().replace('NAME = "steady"', 'NAME = "steady-b"')
                        .replace("% len(legal_moves)]", "* 7 % len(legal_moves)]"))
    agents = [HERE / "steady.py", steady_b, HERE / "sleeper.py"]
    idle, _ = _evaluate(agents, tmp_path / "idle")
    burners = _burners()
    try:
        loaded, analyses = _evaluate(agents, tmp_path / "loaded")
    finally:
        _stop(burners)
    # the burners took their share: the steady agents' analyses took far longer in real time than in CPU
    steady = [a for a in analyses if a["agent"].startswith("steady")]
    assert all(a["ok"] and a["wall"] > 2.0 * a["seconds"] for a in steady), steady
    assert all(a["seconds"] > BUDGET / 2 for a in steady), "the steady agents did not spend most of their budget"
    pairs = [("steady", "steady-b"), ("steady-b", "steady")]
    for pair in pairs:
        assert idle[pair][1] == "normal" and loaded[pair] == idle[pair], (pair, idle[pair], loaded[pair])
    for games in (idle, loaded):  # the sleeper loses on time in every game, loaded or not
        for (black, white), (result, reason, _) in games.items():
            if "sleeper" in (black, white):
                assert reason == "time" and result == ("white" if black == "sleeper" else "black"), games
            else:
                assert reason == "normal"


def test_a_thread_blocked_on_the_disk_is_not_idle_within_its_allowance(monkeypatch):
    """A busy disk stalls an agent as a busy CPU does (a forfeit beside burners and a disk-heavy job,
    issue 34): a thread in state D counts as blocked, not idle, until the allowance is used up, to
    the hundredth (polls do not overshoot it); asleep (S) it is idle at once. The allowance is the
    agent's for a stage (its worker's): each request gets what the last ones left."""
    if not accounting.SCHEDSTAT:
        pytest.skip("this kernel keeps no per-thread run times: the backstop is a wall clock")
    now, state = [0.0], [{b"D"}]
    monkeypatch.setattr(accounting.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(accounting, "_busy_ns", lambda pid: (0, state[0]))
    idle = accounting.Idle(accounting.ProcessTree(os.getpid()), allowance=accounting.DISK_WAIT)
    idle.update([1])
    for _ in range(50):  # 0.7 s at a time, blocked, no CPU used: 35 s
        now[0] += 0.7
        idle.update([1])
    assert idle.blocked == pytest.approx(accounting.DISK_WAIT) and idle.seconds == pytest.approx(5.0)
    state[0] = {b"S"}
    now[0] += 2.0
    assert idle.update([1]) == pytest.approx(7.0)
    state[0] = {b"S", b"R"}  # one thread runnable: busy
    now[0] += 2.0
    assert idle.update([1]) == pytest.approx(7.0)
    spent = accounting.Idle(accounting.ProcessTree(os.getpid()), allowance=0.0)  # a stage's allowance used up
    state[0] = {b"D"}
    spent.update([1])
    now[0] += 3.0
    assert spent.update([1]) == 3.0 and spent.blocked == 0.0
