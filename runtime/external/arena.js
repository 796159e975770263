// ludica's adapter for an Othello AI Arena intelligent system, run by ludica as
//
//     node arena.js SYSTEM.js            (in /agent, the system's folder in its sandbox)
//
// It speaks ludica's line protocol (docs/protocol.md) on its standard input and output, and hosts
// the system's file unchanged: the file is run as a browser script would be, its
// `analyzeStage(stageConfig, initialBoard, validMoves, api)` is called once per stage with the
// Arena's arguments (their API answered by ludica's rules, over the protocol's analysis level),
// and the strategy it returns, `strategy(board, player, validMoves, makeMove)`, is asked for each
// move. See /work/shared/ARENA.md ("Agents, clocks and built-ins") for the Arena's interface.
//
// Conventions (the Arena's side ↔ ludica's side):
// - a board is an array of rows, 0 empty, 1 black, 2 white, 3 blocked ↔ the cells row-major of a
//   state, -1 blocked, 0 empty, 1 black, 2 white;
// - `player` is 1 (black) or 2 (white) ↔ `to_move` 0 or 1;
// - a move `{row, col}` ↔ the action `row * cols + col`; a pass is the action -1, which the Arena
//   never shows (dropped from every list of moves);
// - a board and a player become the state: its cells (3 → -1), `to_move = player - 1`, `mover =
//   2 - player` (the other side made the last move), `ply = max(0, pieces on the board - pieces at
//   the start)`, `roll = 0` (no dice);
// - `stageConfig` is `{name, boardSize, initialBlocked, initialPlayer1, initialPlayer2}` (lists of
//   `{r, c}`, row-major) read from the initial position. The rule flags (`ignoreOcclusion`,
//   `fewerPiecesContinue`) are given only when the rules are revealed (GGP mode, where ludica's
//   `stage` answer carries the Arena config under `arena`: that whole object is then the
//   stageConfig): otherwise the system must find the rules out, as ludica's systems do. The API
//   always simulates the stage's true rules.
// - every API function is a synchronous call of ludica's API (one JSON line out, one in: about
//   10,000 a second), so answers are cached by board and player (a Map of bounded size), and the
//   legal moves of the position after a simulated move, which come with ludica's answer to it, are
//   kept for the getValidMoves call a search makes next.
//
// Choices (where ARENA.md is silent or ludica's rules differ):
// - makeMove(row, col) or makeMove({row, col}) records a move; it is played if the strategy returns
//   nothing (undefined or null). A move the strategy returns wins over a recorded one.
// - a stage the Arena cannot show (a hex board, rows != cols, a first move that is not a
//   placement, a piece that is not black's or white's) is refused: one line on standard error and
//   exit code 2, which ludica records as a failed analysis (no strategy on that stage).
// - an analyzeStage that throws, or does not return a function, is a failed analysis too (exit
//   code 3): ludica's rule for every agent, not the Arena's random fallback strategy.
// - an answer that is not a move on the board is written `none`, and the referee's illegal-move
//   rule judges it (in ludica: a random legal move, the third illegal move loses); an exception in
//   the strategy is printed to standard error and answered `none` too. No move with a pass legal
//   is a pass. A forced pass never reaches the system (the referee plays it), as in the Arena.
// - the system is frozen between its turns and charged CPU time, not wall-clock time: a system
//   that times itself with performance.now() or Date.now() sees time pass while it was stopped,
//   so wall-clock timing in a system is unreliable here (its clock in ludica is the CPU clock).
// - everything the system prints (console.log, console.error..., process.stdout.write) goes to
//   standard error, kept by ludica as the system's output: it is never read as a move.
//
// Plain JavaScript for node 20, no dependencies.
"use strict";

const fs = require("fs");
const path = require("path");
const { StringDecoder } = require("string_decoder");
const util = require("util");
const vm = require("vm");
const { createRequire } = require("module");
const { pathToFileURL } = require("url");

// --- the protocol's own channel: fd 1, written by this file only ------------------------------

function writeLine(text) {
  const data = Buffer.from(text + "\n", "utf8");
  for (let done = 0; done < data.length;) {
    try {
      done += fs.writeSync(1, data, done, data.length - done);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
    }
  }
}

function say(text) { // a line on standard error, the adapter's own
  try {
    fs.writeSync(2, `arena.js: ${text}\n`);
  } catch (e) {
    // standard error closed: nothing more to say
  }
}

function fail(code, text) {
  say(text);
  process.exit(code);
}

let buffered = "";
const chunk = Buffer.alloc(1 << 16);
const decoder = new StringDecoder("utf8"); // a character split between two reads stays whole
function readLine() { // the next non-empty line, or null at the end of the input
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
      if (e.code === "EOF") return null;
      throw e;
    }
    if (n === 0) return null;
    buffered += decoder.write(chunk.subarray(0, n));
  }
}

let turnPending = false; // a strategy is choosing a move

function call(request) { // one analysis-level call: its answer, {ok, value} or {ok: false, error, message}
  writeLine(JSON.stringify(request));
  const line = readLine();
  if (line === null) { // the referee is gone
    turnPending = false;
    process.exit(0);
  }
  return JSON.parse(line);
}

function value(request) {
  const answer = call(request);
  if (!answer.ok) throw new Error(`ludica's ${request.call}: ${answer.error}: ${answer.message}`);
  return answer.value;
}

// --- what the system prints goes to standard error ---------------------------------------------

function toStderr(...args) {
  try {
    fs.writeSync(2, util.format(...args) + "\n");
  } catch (e) {
    // standard error closed
  }
}
for (const name of ["log", "info", "warn", "error", "debug"]) console[name] = toStderr;
console.trace = (...args) => toStderr(`Trace: ${util.format(...args)}\n${new Error().stack.split("\n").slice(2).join("\n")}`);
console.table = (data) => toStderr(util.inspect(data, { depth: 4 }));
console.dir = (data, options) => toStderr(util.inspect(data, options));
process.stdout.write = function write(data, encoding, callback) {
  return process.stderr.write(data, encoding, callback);
};

// --- the stage, as the Arena shows it ----------------------------------------------------------

let rows = 0, cols = 0, startPieces = 0;

function cellsOf(state) { return state.slice(0, rows * cols); }

function boardOf(cells) { // the Arena's board: rows of 0/1/2/3
  const board = [];
  for (let r = 0; r < rows; r++) {
    const row = [];
    for (let c = 0; c < cols; c++) {
      const v = cells[r * cols + c];
      row.push(v < 0 ? 3 : v);
    }
    board.push(row);
  }
  return board;
}

function pieces(cells) {
  let n = 0;
  for (const v of cells) if (v > 0) n++;
  return n;
}

function movesOf(actions) { // actions → [{row, col}], the pass dropped
  const moves = [];
  for (const a of actions) if (a >= 0) moves.push({ row: Math.floor(a / cols), col: a % cols });
  return moves;
}

function cellList(cells, want) { // [{r, c}] of the cells holding `want`, row-major
  const out = [];
  for (let i = 0; i < cells.length; i++) if (cells[i] === want) out.push({ r: Math.floor(i / cols), c: i % cols });
  return out;
}

const PLACEMENT = /^[a-z][1-9][0-9]*$/;

function refusal(stage) { // why the Arena cannot show this stage, or "" if it can
  if (stage.shape !== "square") return `the board is ${stage.shape}, and the Arena's boards are square grids`;
  if (stage.rows !== stage.cols) return `the board is ${stage.rows}x${stage.cols}, and the Arena's boards are square`;
  if (stage.players && stage.players.length !== 2) return `the stage has ${stage.players.length} players, and the Arena two`;
  // every placement's action is row * cols + col: a larger action is some other kind of move, which
  // may come later in a game whose first moves are placements
  if (stage.action_bound > stage.rows * stage.cols) return "its moves are not all placements of a new piece, the Arena's only move";
  const moves = stage.legal_first_moves || [];
  for (let i = 0; i < moves.length; i++) {
    if (moves[i] !== "pass" && !PLACEMENT.test(moves[i])) {
      return `its first move ${moves[i]} is not a placement of a new piece, the Arena's only move`;
    }
  }
  const cells = cellsOf(stage.initial_state);
  for (const v of cells) {
    if (v < -1 || v > 2) return `a cell holds ${v}, which is none of the Arena's empty, black, white and blocked`;
  }
  return "";
}

// --- the API: a board and a player as a ludica state, answers cached -------------------------------

const CACHE_SIZE = 200000;
const cache = new Map();

function keep(key, answer) {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value); // the oldest
  cache.set(key, answer);
  return answer;
}

function cached(key, compute) {
  return cache.has(key) ? cache.get(key) : keep(key, compute());
}

function stateOf(board, player) { // the state of a board and a player, or null if they are not the Arena's
  if ((player !== 1 && player !== 2) || !Array.isArray(board) || board.length !== rows) return null;
  const cells = [];
  for (const row of board) {
    if (!row || row.length !== cols) return null;
    for (let c = 0; c < cols; c++) {
      const v = row[c];
      if (v !== 0 && v !== 1 && v !== 2 && v !== 3) return null;
      cells.push(v === 3 ? -1 : v);
    }
  }
  return stateOfCells(cells, player);
}

function stateOfCells(cells, player) {  // (the roll last: 0, the Arena's stages throw no dice)
  return cells.concat([player - 1, 2 - player, Math.max(0, pieces(cells) - startPieces), 0]);
}

function sameState(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function legalActions(state) { // ludica's legal actions, [] when it refuses the state
  return cached(`${state.join(",")}|legal`, () => {
    const answer = call({ call: "legal_actions", state });
    return answer.ok ? answer.value : [];
  });
}

const api = {
  getValidMoves(board, player) {
    const state = stateOf(board, player);
    return state === null ? [] : movesOf(legalActions(state));
  },
  simulateMove(board, player, row, col) {
    const state = stateOf(board, player);
    if (state === null || !Number.isInteger(row) || !Number.isInteger(col) || row < 0 || row >= rows || col < 0
        || col >= cols) {
      return { valid: false };
    }
    const action = row * cols + col;
    const child = cached(`${state.join(",")}|${action}`, () => {
      const answer = call({ call: "apply_action", state, action });
      if (!answer.ok) return null;
      const next = answer.value.state, cells = cellsOf(next), toMove = next[rows * cols];
      // ludica's answer carries the next state's legal actions: they answer getValidMoves(the
      // resulting board, the side to move next) without a call, when that board and player make
      // exactly that state (a pass or the fewer-pieces turn aside, they do)
      const after = toMove === 0 || toMove === 1 ? stateOfCells(cells, toMove + 1) : [];
      if (sameState(after, next)) keep(`${after.join(",")}|legal`, answer.value.actions);
      return { cells, captured: answer.value.captured };
    });
    if (child === null) return { valid: false };
    return { valid: true, resultingBoard: boardOf(child.cells), capturedCount: child.captured };
  },
  evaluateBoard(board, player) {
    const state = stateOf(board, player);
    if (state === null) throw new TypeError("evaluateBoard(board, player): a board is rows of 0-3, a player 1 or 2");
    const scores = cached(`${state.join(",")}|evaluate`, () => value({ call: "evaluate", state, player: player - 1 }));
    return { pieceScore: scores.piece, mobilityScore: scores.mobility, cornerScore: scores.corner,
             edgeScore: scores.edge, totalScore: scores.total };
  },
};

// --- loading the system ------------------------------------------------------------------------

async function loadSystem(file) {
  const filename = path.resolve(file);
  globalThis.window = globalThis;
  if (filename.endsWith(".mjs")) { // an ES module: its export, or what it set on window
    const exported = await import(pathToFileURL(filename).href);
    return [exported.analyzeStage, exported.default, exported.default && exported.default.analyzeStage,
            globalThis.analyzeStage].find((f) => typeof f === "function");
  }
  const module = { exports: {} };
  globalThis.module = module;
  globalThis.exports = module.exports;
  globalThis.require = createRequire(filename); // relative to the system's file
  globalThis.__filename = filename;
  globalThis.__dirname = path.dirname(filename);
  vm.runInThisContext(fs.readFileSync(filename, "utf8"), { filename });
  // a top-level `function analyzeStage` (or const, let, class: the scripts' shared scope), window's,
  // or CommonJS's
  const declared = vm.runInThisContext("typeof analyzeStage === 'function' ? analyzeStage : undefined");
  const exported = globalThis.module.exports;
  return [declared, globalThis.analyzeStage, exported, exported && exported.analyzeStage]
    .find((f) => typeof f === "function");
}

// --- the conversation ----------------------------------------------------------------------------

process.on("exit", (code) => {
  if (turnPending && code === 0) say("the strategy's promise never settled, and nothing was left to run: no move");
});

function answerOf(move, actions) { // the line answering a turn
  if (move === undefined || move === null) return actions.includes(-1) ? "pass" : "none";
  if (typeof move !== "object" || !Number.isInteger(move.row) || !Number.isInteger(move.col) || move.row < 0
      || move.row >= rows || move.col < 0 || move.col >= cols) {
    let shown;
    try {
      shown = JSON.stringify(move);
    } catch (e) {
      shown = String(move);
    }
    say(`the strategy answered ${String(shown).slice(0, 100)}, not a move {row, col} on the ${rows}x${cols} board`);
    return "none";
  }
  return String(move.row * cols + move.col);
}

async function main() {
  const file = process.argv[2];
  if (!file) fail(2, "usage: node arena.js SYSTEM.js");
  const name = readLine();
  if (name === null) return;
  const prepare = readLine();
  if (prepare === null) return;

  const stage = value({ call: "stage" });
  const why = refusal(stage);
  if (why) fail(2, `the stage ${stage.name} cannot be shown to an Arena system: ${why}`);
  rows = stage.rows;
  cols = stage.cols;
  const start = cellsOf(stage.initial_state);
  startPieces = pieces(start);
  const stageConfig = stage.arena != null ? stage.arena : {
    name: stage.name, boardSize: rows, initialBlocked: cellList(start, -1), initialPlayer1: cellList(start, 1),
    initialPlayer2: cellList(start, 2),
  };
  const initialBoard = boardOf(start);
  const validMoves = movesOf(stage.legal_first_actions);

  let analyzeStage;
  try {
    analyzeStage = await loadSystem(file);
  } catch (e) {
    fail(3, `the system ${file} could not be loaded: ${e && e.stack ? e.stack : e}`);
  }
  if (typeof analyzeStage !== "function") {
    fail(3, `the system ${file} defines no analyzeStage function (a top-level function, window.analyzeStage or ` +
            "module.exports): no strategy");
  }
  let strategy;
  try {
    strategy = await analyzeStage(stageConfig, initialBoard, validMoves, api);
  } catch (e) {
    fail(3, `analyzeStage threw: ${e && e.stack ? e.stack : e}`);
  }
  if (typeof strategy !== "function") {
    // ludica's rule for every agent: an analysis that gives no strategy has failed (the Arena
    // would play a random strategy instead; ludica records the failure and forfeits the games)
    fail(3, `analyzeStage returned ${strategy === null ? "null" : typeof strategy}, not a strategy function: no strategy`);
  }
  writeLine("ready");

  for (let line = readLine(); line !== null && line !== "quit"; line = readLine()) {
    if (line.startsWith("start")) continue; // start SEAT BUDGET SEED
    if (line === "end of game") {
      readLine(); // the score
      continue;
    }
    const state = line.split(" ").map(Number);
    const actionsLine = readLine();
    if (actionsLine === null) break;
    const actions = actionsLine.split(" ").map(Number);
    const board = boardOf(cellsOf(state));
    const player = state[rows * cols] + 1;
    let recorded = null;
    const makeMove = (row, col) => {
      recorded = typeof row === "object" && row !== null ? { row: row.row, col: row.col } : { row, col };
    };
    let answer;
    try {
      turnPending = true;
      let move = await strategy(board, player, movesOf(actions), makeMove);
      if (move === undefined || move === null) move = recorded;
      answer = answerOf(move, actions);
    } catch (e) {
      toStderr("the strategy threw:", e);
      answer = "none";
    } finally {
      turnPending = false;
    }
    writeLine(answer);
  }
  process.exit(0);
}

main().catch((e) => fail(1, `the adapter failed: ${e && e.stack ? e.stack : e}`));
