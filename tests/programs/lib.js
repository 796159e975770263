// Line input and output for the test programs (synchronous: one question, one answer).
"use strict";
const fs = require("fs");
let buffered = "";
const chunk = Buffer.alloc(1 << 16);
exports.readLine = function readLine() {
  for (;;) {
    const end = buffered.indexOf("\n");
    if (end >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line) return line;
      continue;
    }
    const n = fs.readSync(0, chunk, 0, chunk.length, null);
    if (n === 0) return null;
    buffered += chunk.toString("utf8", 0, n);
  }
};
exports.writeLine = (text) => fs.writeSync(1, text + "\n");
// Play: prepare with `prepare(stage)`, then answer each turn with `turn(state, actions, n)` (n: the
// turn's number in the game, from 1).
exports.play = function play(turn, prepare = () => {}) {
  const { readLine, writeLine } = exports;
  readLine(); // the stage's name
  readLine(); // prepare B
  prepare();
  writeLine("ready");
  let n = 0;
  for (let line = readLine(); line !== null && line !== "quit"; line = readLine()) {
    if (line.startsWith("start")) { n = 0; continue; }
    if (line === "end of game") { readLine(); continue; }
    const state = line.split(" ").map(Number);
    const actions = readLine().split(" ").map(Number);
    writeLine(String(turn(state, actions, ++n)));
  }
};
