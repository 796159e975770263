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
- model: a language-model agent (runtime/models) against a stand-in endpoint on the loopback that
  answers at once, if the `openai` client is installed: the harness's own cost, prompts and
  parsing and HTTP, with no model behind it.

It prints, per kind, the median CPU seconds charged per move (what the agent's clock pays; a
model's clock is wall time) and per API call, and the median wall seconds per move as the referee
sees it (the request, the relaying, the freeze after it), each with its ratio to the Python agent's.

    python benchmarks/agent_kinds.py [--stage small-board-6x6] [--games 3] [--calls 200]
"""
from __future__ import annotations

import argparse
import shutil
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
from ludica.runtime.stage_entrant import sandboxed

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


def measure(spec, text: str, game, games: int, opponent_file: Path) -> tuple[float, float, int]:
    """(median charged seconds per move, median wall seconds per move, moves) of `spec`, sandboxed,
    over `games` games in each seat against an in-process Python agent."""
    seat = sandboxed(spec, text, Options(analysis_time=10.0, game_time=60.0))
    try:
        if seat.start().failure or seat.analyze(10.0).failure:
            raise SystemExit(f"{spec.name} did not start: {seat.drain.mark()[0][-500:]}")
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


def kinds(folder: Path, calls: int) -> dict[str, agents.AgentSpec]:
    """The agents of each kind this machine can run, each playing the first legal action."""
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
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="small-board-6x6", help="a bundled stage (default small-board-6x6)")
    parser.add_argument("--games", type=int, default=3, help="games in each seat (default 3)")
    parser.add_argument("--calls", type=int, default=200, help="API calls per move, for the per-call cost (default 200)")
    args = parser.parse_args()
    text = stages.path(args.stage).read_text()
    game = compile_stage(gdl.loads(text))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for calls in (0, args.calls):
            folder = Path(tmp) / f"calls-{calls}"
            folder.mkdir()
            for kind, spec in kinds(folder, calls).items():
                rows[kind, calls] = measure(spec, text, game, args.games, folder / "first.py")
    print(f"stage {args.stage}, {args.games} games in each seat against an in-process Python agent; medians per "
          f"move; per API call: (a move with {args.calls} calls - a move with none) / {args.calls}")

    def figures(kind: str) -> tuple[float, float, float]:
        charged, wall, _ = rows[kind, 0]
        return charged, (rows[kind, args.calls][0] - charged) / args.calls, wall

    base = figures("python")
    print(f"{'kind':<11} {'charged/move':>13} {'x python':>9} {'per API call':>13} {'x python':>9} "
          f"{'wall/move':>11} {'x python':>9}")
    for kind in dict.fromkeys(kind for kind, _ in rows):
        charged, per_call, wall = figures(kind)
        print(f"{kind:<11} {charged * 1e3:>10.3f} ms {charged / base[0]:>8.1f}x {per_call * 1e6:>10.1f} us "
              f"{per_call / base[1]:>8.1f}x {wall * 1e3:>8.3f} ms {wall / base[2]:>8.1f}x")


if __name__ == "__main__":
    main()
