"""What each kind of agent costs per move beyond its own thinking, against a Python agent, measured
in one run.

Every kind plays the same trivial strategy (the first legal action; with `--calls K`, after K
`apply_action` calls of the API on each turn), sandboxed, against an in-process Python agent doing
the same, on one stage; each move's charged and wall seconds are the referee's own (its Answer):

- python: a Python agent file (its game process forked from the analysed strategy; a call is a
  kernel call in its own process);
- javascript, c: agent programs over the line protocol (docs/protocol.md), relayed by the worker;
  a call is a JSON line there and back;
- arena: an Othello AI Arena system under ludica's node adapter (runtime/external/arena.js), if
  this ludica has it;
- model: a language-model agent (runtime/models) against the tests' stand-in endpoint on the
  loopback (tests/llm_standin.py), which answers at once, if the `openai` client is installed: the
  harness's own cost (prompts, parsing, HTTP), with no model behind it; its clock is the wall time
  of its requests, and it makes no API calls in a game.

It prints, per kind, the median CPU seconds charged per move (what the agent's clock pays; a
model's clock is wall time) and per API call, and the median wall seconds per move as the referee
sees it (the request, the relaying, the freeze after it), each with its ratio to the Python agent's.

    python benchmarks/agent_kinds.py [--stage small-board-6x6] [--games 3] [--calls 200]
"""
from __future__ import annotations

import argparse
import contextlib
import math
import re
import shutil
import sys
import statistics
import subprocess
import tempfile
from pathlib import Path

from ludica import gdl, stages
from ludica.compiler import compile as compile_stage
from ludica.runtime import entrants as agents
from ludica.runtime.local import LocalSeat
from ludica.runtime.plans import Options
from ludica.runtime.referee import play_game
from ludica.runtime.stage_entrant import model_seat, sandboxed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the stand-in endpoint, in a checkout
try:
    from llm_standin import Standin
    import openai  # noqa: F401  (the models extra)
except ImportError:
    Standin = None  # type: ignore[assignment, misc]

PYTHON = '''
NAME = "first-python"
CALLS = {calls}

def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        actions = api.legal_actions(state)
        for _ in range(CALLS):
            api.apply_action(state, actions[0])
        return api.move_of(actions[0])
    return strategy
'''

JAVASCRIPT = r'''
"use strict";
const fs = require("fs");
const CALLS = {calls};
let buffered = "";
const chunk = Buffer.alloc(1 << 16);
function readLine() {
  for (;;) {
    const end = buffered.indexOf("\n");
    if (end >= 0) { const line = buffered.slice(0, end).trim(); buffered = buffered.slice(end + 1); if (line) return line; continue; }
    const n = fs.readSync(0, chunk, 0, chunk.length, null);
    if (n === 0) return null;
    buffered += chunk.toString("utf8", 0, n);
  }
}
const writeLine = (text) => fs.writeSync(1, text + "\n");
readLine(); readLine(); writeLine("ready");
for (let line = readLine(); line !== null && line !== "quit"; line = readLine()) {
  if (line.startsWith("start")) continue;
  if (line === "end of game") { readLine(); continue; }
  const state = line.split(" ").map(Number);
  const actions = readLine().split(" ").map(Number);
  for (let i = 0; i < CALLS; i++) {
    writeLine(JSON.stringify({ call: "apply_action", state, action: actions[0] }));
    readLine();
  }
  writeLine(String(actions[0]));
}
'''

C = r'''
#include <stdio.h>
#include <string.h>
#define LINE (1 << 20)
static char line[LINE], state[LINE], actions[LINE];
static int read_line(char *into) {
    for (;;) { if (!fgets(into, LINE, stdin)) return 0; into[strcspn(into, "\r\n")] = 0; if (into[0]) return 1; }
}
int main(void) {
    read_line(line); read_line(line); printf("ready\n"); fflush(stdout);
    while (read_line(line)) {
        if (!strcmp(line, "quit")) break;
        if (!strncmp(line, "start ", 6)) continue;
        if (!strcmp(line, "end of game")) { read_line(line); continue; }
        strcpy(state, line);
        read_line(actions);
        long first = 0;
        sscanf(actions, "%ld", &first);
        for (int i = 0; i < {calls}; i++) {
            printf("{\"call\":\"apply_action\",\"state\":[");
            for (const char *p = state; *p; p++) putchar(*p == ' ' ? ',' : *p);
            printf("],\"action\":%ld}\n", first);
            fflush(stdout);
            read_line(line);
        }
        printf("%ld\n", first);
        fflush(stdout);
    }
    return 0;
}
'''

ARENA = r'''
const NAME = "first-arena";
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  return function (board, player, moves) {
    for (let i = 0; i < {calls}; i++) api.simulateMove(board, player, moves[0].row, moves[0].col);
    return moves[0];
  };
}
'''


class Timed:
    """A seat that keeps the charged and the wall seconds of every move it is asked for."""

    def __init__(self, seat):
        self.seat, self.name = seat, seat.name
        self.charged: list[float] = []
        self.wall: list[float] = []

    def start_game(self, seed, budget, seat):
        return self.seat.start_game(seed, budget, seat)

    def think(self, state, legal, remaining):
        answer = self.seat.think(state, legal, remaining)
        self.charged.append(answer.seconds)
        self.wall.append(answer.wall)
        return answer

    def end_game(self, score=None):
        return self.seat.end_game(score)


def first_listed(body: dict):
    """The stand-in model's answer: the first legal move its prompt lists (notes in its analysis)."""
    from llm_standin import Scripted

    found = re.search(r"legal moves: ([^\n]+)", body["messages"][-1]["content"])
    return Scripted(f"move: {found.group(1).split()[0]}" if found else "Notes: the first legal move.")


def measure(spec, text: str, game, games: int, opponent_file: Path, model_url: str = "") -> tuple[float, float, int]:
    """(median charged seconds per move, median wall seconds per move, moves) of `spec`, sandboxed
    (a model: on the referee's side, its endpoint at `model_url`), over `games` games in each seat
    against an in-process Python agent."""
    if spec.kind == "model":
        seat = model_seat(spec, game, text, Options(endpoints={"standin": {"url": model_url, "key_env": ""}}))
    else:
        seat = sandboxed(spec, text, Options(analysis_time=10.0, game_time=60.0))
        if seat.start().failure:
            raise SystemExit(f"{spec.name} did not start: {seat.drain.mark()[0][-500:]}")
    try:
        analysed = seat.analyze(10.0)
        if analysed.failure:
            raise SystemExit(f"{spec.name} did not analyse: {analysed.detail[-500:]}")
        timed = Timed(seat)
        opponent = LocalSeat("opponent", str(opponent_file), game)
        opponent.analyze(10.0)
        for i in range(games):
            for seats in ((timed, opponent), (opponent, timed)):
                record = play_game(game, seats, seed=i, game_time=60.0)
                if record.reason != "normal":
                    raise SystemExit(f"{spec.name}: a game ended by {record.reason}: {record.detail[:300]}")
    finally:
        seat.close()
    return statistics.median(timed.charged), statistics.median(timed.wall), len(timed.charged)


def kinds(folder: Path, calls: int, model_url: str | None) -> dict[str, agents.AgentSpec]:
    """The agents of each kind this machine can run, each playing the first legal action (a model:
    the stand-in at `model_url`, if given)."""
    found = {}
    (folder / "first.py").write_text(PYTHON.replace("{calls}", str(calls)))
    found["python"] = agents.resolve(str(folder / "first.py"))
    if shutil.which("node"):
        (folder / "first.js").write_text(JAVASCRIPT.replace("{calls}", str(calls)))
        found["javascript"] = agents.program(["node", "first.js"], folder, "first-javascript")
        if agents.ARENA_ADAPTER.is_file():
            (folder / "arena").mkdir()
            (folder / "arena" / "first.js").write_text(ARENA.replace("{calls}", str(calls)))
            found["arena"] = agents.resolve(str(folder / "arena" / "first.js"))
    if shutil.which("gcc"):
        (folder / "first.c").write_text(C.replace("{calls}", str(calls)))
        subprocess.run(["gcc", "-O2", "-o", str(folder / "first-c"), str(folder / "first.c")], check=True)
        found["c"] = agents.program(["./first-c"], folder, "first-c")
    if model_url is not None:
        (folder / "first.model").write_text('model = "standin-model"\nlist_legal = true\n')
        found["model"] = agents.resolve(str(folder / "first.model"))
    return found


def found_kinds(rows: dict) -> set[str]:
    return {kind for kind, _ in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="small-board-6x6", help="a bundled stage (default small-board-6x6)")
    parser.add_argument("--games", type=int, default=3, help="games in each seat (default 3)")
    parser.add_argument("--calls", type=int, default=200, help="API calls per move, for the per-call cost (default 200)")
    args = parser.parse_args()
    text = stages.path(args.stage).read_text()
    game = compile_stage(gdl.loads(text))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        server = stack.enter_context(Standin(default=first_listed)) if Standin is not None else None
        for calls in (0, args.calls):
            folder = Path(tmp) / f"calls-{calls}"
            folder.mkdir()
            found = kinds(folder, calls, server.url if server is not None and calls == 0 else None)
            for kind, spec in found.items():
                rows[kind, calls] = measure(spec, text, game, args.games, folder / "first.py",
                                            server.url if server is not None else "")
    print(f"stage {args.stage}, {args.games} games in each seat against an in-process Python agent; medians per "
          f"move; per API call: (a move with {args.calls} calls - a move with none) / {args.calls}")

    def figures(kind: str) -> tuple[float, float, float]:
        charged, wall, _ = rows[kind, 0]
        calls = rows.get((kind, args.calls))  # a model has no API calls in a game
        return charged, (calls[0] - charged) / args.calls if calls else math.nan, wall

    base = figures("python")
    print(f"{'kind':<11} {'charged/move':>13} {'x python':>9} {'per API call':>13} {'x python':>9} "
          f"{'wall/move':>11} {'x python':>9}")
    for kind in dict.fromkeys(kind for kind, _ in rows):
        charged, per_call, wall = figures(kind)
        calls = "—" if math.isnan(per_call) else f"{per_call * 1e6:.1f} us"
        ratio = "—" if math.isnan(per_call) else f"{per_call / base[1]:.1f}x"
        print(f"{kind:<11} {charged * 1e3:>10.3f} ms {charged / base[0]:>8.1f}x {calls:>13} {ratio:>9} "
              f"{wall * 1e3:>8.3f} ms {wall / base[2]:>8.1f}x")
    if "arena" in found_kinds(rows):
        print("arena: the adapter caches simulateMove by board and player, and the benchmark asks the same one: "
              "its per-call figure is a cached call's (a new board costs what a javascript call does)")
    if "model" in found_kinds(rows):
        print("model: its clock is the wall time of its requests, to a stand-in that answers at once (the "
              "harness's own cost: prompt, HTTP on the loopback, parsing)")


if __name__ == "__main__":
    main()
