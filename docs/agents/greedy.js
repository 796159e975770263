// Greedy, as a program: the move that captures the most pieces (the first such in the order of the
// legal actions), found by asking ludica's API to apply each one. A reference agent for the line
// protocol (docs/protocol.md); run it with `ludica evaluate --agent-cmd "node greedy.js"`.
"use strict";
const fs = require("fs");

// Synchronous line input: the protocol is one question, one answer.
let buffered = "";
const chunk = Buffer.alloc(1 << 16);
function readLine() {
  for (;;) {
    const end = buffered.indexOf("\n");
    if (end >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line) return line;
      continue;
    }
    let n;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") continue;
      throw e;
    }
    if (n === 0) return null; // the referee closed our input
    buffered += chunk.toString("utf8", 0, n);
  }
}
function writeLine(text) {
  fs.writeSync(1, text + "\n");
}
function call(request) {
  writeLine(JSON.stringify(request));
  const answer = JSON.parse(readLine());
  if (!answer.ok) throw new Error(`${request.call}: ${answer.error}: ${answer.message}`);
  return answer.value;
}

const stageName = readLine();
const budget = Number(readLine().split(" ")[1]); // "prepare B"
const stage = call({ call: "stage" });
console.error(`greedy.js: ${stageName}, ${stage.rows}x${stage.cols}, ${budget} s to prepare`);
writeLine("ready");

for (let line = readLine(); line !== null && line !== "quit"; line = readLine()) {
  if (line.startsWith("start") ) continue; // start SEAT BUDGET SEED
  if (line === "end of game") { readLine(); continue; } // the score
  if (line.startsWith("observe ")) { writeLine("ponder"); continue; } // a hidden stage, the opponent's turn
  const state = line.split(" ").map(Number);
  const actions = readLine().split(" ").map(Number);
  let best = actions[0], most = -1;
  for (const action of actions) {
    const child = call({ call: "apply_action", state, action });
    if (child.captured > most) { most = child.captured; best = action; }
  }
  writeLine(String(best));
}
