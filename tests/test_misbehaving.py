"""Agents that misbehave on purpose, each against the random built-in on a small Othello board in
a sandboxed tournament: each gives exactly the outcome the README documents, the tournament goes
on, and the results store holds every game."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from ludica import gdl, stages
from ludica.compiler import compile as compile_stage
from ludica.runtime import entrants as agents, tournament
from ludica.runtime.sandbox import AgentProcess, Settings
from ludica.runtime.records import ResultsStore

HERE = Path(__file__).parent / "agents"
STAGE = stages.path("small-board-6x6")
OPTIONS = dict(games=1, analysis_time=2.0, game_time=1.0, seed=5)


def run(tmp_path: Path, agent_file: Path, **options) -> tuple[list[dict], list[dict], list[dict]]:
    """A round robin of the agent and `random` (two games, one per seat): (games, analyses, logs)."""
    out = tmp_path / "out"
    entrants = [agents.resolve(str(agent_file)), agents.resolve("random")]
    tournament.run([STAGE], entrants, out, tournament.Options(**{**OPTIONS, **options}))
    store = ResultsStore(out / "results.sqlite")
    games, analyses = store.games(), store.analyses()
    store.close()
    logs = [json.loads(p.read_text()) for p in sorted((out / "logs").rglob("*.json"))]
    assert len(games) == 2 and {(g["black"], g["white"]) for g in games} == {
        (entrants[0].name, "random"), ("random", entrants[0].name)}
    assert len(logs) == 2
    return games, analyses, logs


def analysis_of(analyses: list[dict], name: str) -> dict:
    """The one analysis of agent `name`."""
    (mine,) = [a for a in analyses if a["agent"] == name]
    return mine


def skip_without_namespaces(analysis: dict) -> None:
    isolation = json.loads(analysis["lockdown"] or "{}").get("isolation", "")
    if isolation.startswith("none ("):
        pytest.skip("this machine allows no namespaces: the README documents the weaker fallback")


def lost_by(games: list[dict], name: str) -> list[str]:
    """The reasons of the games `name` lost (asserting it lost every game)."""
    reasons = []
    for g in games:
        seat = "black" if g["black"] == name else "white"
        assert g["result"] not in (seat, "draw"), f"{name} did not lose: {g}"
        reasons.append(g["reason"])
    return reasons


def test_a_crash_at_move_five_loses_the_game_and_the_next_game_starts_afresh(tmp_path):
    games, analyses, _ = run(tmp_path, HERE / "crash_at_5.py")
    assert lost_by(games, "crash_at_5") == ["crash", "crash"]
    assert all("crash at move 5" in g["detail"] for g in games)
    # both games reached the crasher's fifth move: each game process started from the analysed strategy
    assert all(g["plies"] >= 8 for g in games)
    assert len(analyses) == 2  # one analysis each: the crash did not cost the worker


def test_sleeping_past_the_move_clock_is_stopped_by_the_idle_backstop(tmp_path):
    games, _, logs = run(tmp_path, HERE / "sleeper.py")
    assert lost_by(games, "sleeper") == ["time", "time"]
    assert all("exceeded the time limit of 1s" in log["logText"] for log in logs)
    assert all("in which it neither ran nor waited for a CPU" in log["logText"] for log in logs)


def test_cpu_time_on_every_thread_is_charged(tmp_path):
    games, _, logs = run(tmp_path, HERE / "spinner.py")
    assert lost_by(games, "spinner") == ["time", "time"]
    assert all("of CPU time, over" in log["logText"] for log in logs)


@pytest.mark.parametrize("agent, failure, detail", [
    ("slow_analysis.py", "timeout", "CPU time"),
    ("bad_analysis.py", "crash", "cannot analyse, on purpose"),
    ("not_callable.py", "crash", "not a callable strategy"),
])
def test_a_failed_analysis_leaves_no_strategy_and_every_game_is_lost(tmp_path, agent, failure, detail):
    games, analyses, logs = run(tmp_path, HERE / agent)
    name = Path(agent).stem
    assert lost_by(games, name) == ["no-strategy", "no-strategy"]
    mine = analysis_of(analyses, name)
    assert not mine["ok"] and mine["failure"] == failure and detail in mine["detail"]
    assert all(g["plies"] == 0 for g in games)
    assert all("has no strategy" in log["logText"] for log in logs)


def test_illegal_and_malformed_moves_are_replaced_then_the_third_loses(tmp_path):
    games, _, logs = run(tmp_path, HERE / "illegal.py")
    assert lost_by(games, "illegal") == ["illegal", "illegal"]
    for g, log in zip(games, logs):
        penalties = json.loads(g["penalties"])
        assert len(penalties) == 3 and "'z99'" in penalties[0] and "12345" in penalties[1]
        assert "made 3 illegal moves" in penalties[2]
        replaced = [m for m in log["moves"] if "note" in m]
        assert len(replaced) == 2  # the first two were replaced by random legal moves


def test_output_floods_are_cut_off_and_the_game_goes_on(tmp_path):
    games, analyses, logs = run(tmp_path, HERE / "flood.py")
    assert all(g["reason"] == "normal" for g in games)
    for log in logs:
        mine = [o for o in log["output"] if log["metadata"][("black" if o["seat"] == 0 else "white") + "Strategy"] == "flood"]
        assert mine and mine[0]["bytes"] > 1_000_000 and len(mine[0]["text"]) <= 16 << 10
    flood = analysis_of(analyses, "flood")
    assert flood["output_bytes"] >= 16_000 and flood["ok"]


def test_forking_repeatedly_is_stopped_at_the_process_limit(tmp_path):
    games, _, _ = run(tmp_path, HERE / "forker.py", limits={"processes": 16})
    assert lost_by(games, "forker") == ["crash", "crash"]
    assert all("processes, over the limit of 16" in g["detail"] or "processes" in g["log"] for g in games)


def test_a_process_that_kills_itself_loses_the_game(tmp_path):
    games, _, _ = run(tmp_path, HERE / "exits.py")
    assert lost_by(games, "exits") == ["crash", "crash"]
    assert all("signal 9" in g["log"] for g in games)


def test_no_network_no_results_no_signals(tmp_path):
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda *a: received.append(1))
    try:
        source = (HERE / "snoop.py").read_text()
        out = tmp_path / "out"
        agent = tmp_path / "snoop.py"
        agent.write_text(source.replace("REFEREE_PID = 0", f"REFEREE_PID = {__import__('os').getpid()}")
                         .replace('RESULTS = ""', f"RESULTS = {str(out / 'results.sqlite')!r}"))
        games, analyses, logs = run(tmp_path, agent)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    snoop = analysis_of(analyses, "snoop")
    skip_without_namespaces(snoop)
    assert all(g["reason"] == "normal" for g in games)
    said = snoop["output"]
    for what in ("socket", "socket-out", "read", "signal", "proc"):
        assert f"{what}: blocked" in said, said
    assert not received


def test_cpu_time_of_processes_reaped_at_once_is_charged(tmp_path):
    games, _, logs = run(tmp_path, HERE / "autoreap.py")
    assert lost_by(games, "autoreap") == ["time", "time"]
    assert all("of CPU time, over" in log["logText"] for log in logs)


def charged_on_its_own_clock(games: list[dict], name: str) -> None:
    """An agent whose spinners run, and are charged, on its turns only: it loses on time, and its
    opponent paid for none of them."""
    assert lost_by(games, name) == ["time", "time"]
    for g in games:
        other = "white" if g["black"] == name else "black"
        assert g[f"{other}_time"] < 0.5, f"the opponent paid for the processes {name} left running"


def test_processes_left_running_are_stopped_between_turns_and_charged_on_their_own(tmp_path):
    games, _, _ = run(tmp_path, HERE / "hog.py")
    charged_on_its_own_clock(games, "hog")


def test_processes_whose_first_thread_exited_are_stopped_charged_and_killed_too(tmp_path):
    games, _, logs = run(tmp_path, HERE / "zombie_hog.py")
    charged_on_its_own_clock(games, "zombie_hog")
    said = sorted(line for log in logs for seat in log["output"] for line in seat["text"].splitlines()
                  if line.startswith("survivors:"))
    assert said == ["survivors: gone", "survivors: none"], said  # the first game's were killed when it ended


def test_cpu_used_while_frozen_by_a_process_that_escaped_the_freeze_is_charged_to_the_next_move():
    """Between its turns every process of an agent is stopped; one that gets going again anyway
    (a sibling not yet stopped sent it SIGCONT) thinks on the opponent's time: what it used is
    charged to the agent's next request. The test plays the sibling: it continues the spinner."""
    game = compile_stage(gdl.load(STAGE))
    seat = AgentProcess(str(HERE / "escapee.py"), STAGE.read_text(), Settings())
    try:
        assert seat.start().failure is None and seat.analyze(5.0).failure is None
        assert seat.start_game(1, 10.0, 0).failure is None
        state, legal = game.initial_state().tolist(), [str(m) for m in game.legal_moves(game.initial_state())]
        assert seat.think(state, legal, 10.0).failure is None  # it forks its spinner, which is then stopped
        frozen = seat.tree.cpu_seconds()
        for pid in seat.tree.members(rescan=True):
            os.kill(pid, signal.SIGCONT)
        deadline = time.monotonic() + 60  # a busy machine gives the spinner its 0.3 s of CPU later
        while seat.tree.cpu_seconds() - frozen < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
        answer = seat.think(state, legal, 10.0)
        assert answer.failure is None and answer.seconds >= 0.3, answer  # charged: before, about 0
    finally:
        seat.close()


def test_memory_no_address_space_limit_sees_is_capped_for_the_agent_as_a_whole(tmp_path):
    games, analyses, _ = run(tmp_path, HERE / "memfd_hog.py", limits={"memory_mb": 512})
    mine = analysis_of(analyses, "memfd_hog")
    if "no memory control group" in json.loads(mine["lockdown"])["memory"]:
        pytest.skip("no memory control group on this machine: README says only the address space is capped")
    assert lost_by(games, "memfd_hog") == ["no-strategy", "no-strategy"]
    held = [int(line.split()[1]) for line in mine["output"].splitlines() if line.startswith("held ")]
    # it got well past what its address space would allow, and was stopped at the group's cap (512 +
    # 2 x 64 MiB of /tmp and /dev/shm), by the kernel: killed, not a MemoryError of its own
    assert mine["failure"] == "crash" and "MemoryError" not in mine["detail"], mine["detail"][-300:]
    assert 256 <= max(held, default=0) < 512 + 2 * 64, held[-3:]


def test_work_done_while_the_file_loads_is_analysis_time(tmp_path):
    games, analyses, _ = run(tmp_path, HERE / "import_time.py")
    assert lost_by(games, "import_time") == ["no-strategy", "no-strategy"]
    mine = analysis_of(analyses, "import_time")
    assert mine["failure"] == "timeout" and mine["seconds"] >= OPTIONS["analysis_time"]


def test_work_done_as_a_game_process_starts_is_game_time(tmp_path):
    games, _, logs = run(tmp_path, HERE / "atfork.py")
    assert lost_by(games, "atfork") == ["time", "time"]
    assert all("starting the game" in log["logText"] for log in logs)


def test_forged_and_malformed_messages_cannot_harm_the_referee(tmp_path):
    games, analyses, _ = run(tmp_path, HERE / "forger.py")
    mine = analysis_of(analyses, "forger")
    if mine["ok"]:  # the forged analysis replies were dropped: the real one came; then the deep message
        assert lost_by(games, "forger") == ["crash", "crash"]
        assert all("not JSON" in g["log"] for g in games)
    else:
        assert lost_by(games, "forger") == ["no-strategy", "no-strategy"]


def test_replies_to_no_request_do_not_stop_the_clocks(tmp_path):
    games, _, _ = run(tmp_path, HERE / "late_replies.py")
    assert lost_by(games, "late_replies") == ["time", "time"]


def test_the_agent_cannot_change_files_or_share_memory_with_the_machine(tmp_path):
    canary = Path(__file__).parent / f".canary-{__import__('os').getpid()}"
    canary.write_text("untouched\n")
    agent = tmp_path / "vandal.py"
    agent.write_text((HERE / "vandal.py").read_text().replace('CANARY = ""', f"CANARY = {str(canary)!r}"))
    try:
        games, analyses, _ = run(tmp_path, agent)
        dropped = canary.parent / "dropped-by-agent"
        assert canary.read_text() == "untouched\n" and not dropped.exists()
    finally:
        canary.unlink()
        (canary.parent / "dropped-by-agent").unlink(missing_ok=True)
    vandal = analysis_of(analyses, "vandal")
    skip_without_namespaces(vandal)
    for what in ("append", "create"):
        assert f"{what}: blocked" in vandal["output"], vandal["output"]
    # /dev/shm and SysV shared memory work, but in the agent's own namespaces: the host sees neither
    assert not Path("/dev/shm/ludica-agent-was-here").exists()
    sysv = Path("/proc/sysvipc/shm")
    assert not sysv.exists() or f"{0x1D1CA:>10}" not in sysv.read_text()
    assert all(g["reason"] == "normal" for g in games)
