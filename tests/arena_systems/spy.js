// A hostile but fair Othello AI Arena system: from analyzeStage it searches, with node's fs, the
// routes outside the API that the Python spy (tests/agents/spy.py) takes and that JavaScript can
// take: the file system, its own environment, the other processes' command lines, environments
// and memory (where it opens), the mount table. It prints (console.log: standard error, kept as
// its analysis output) `tried: ROUTE`, `leak: ROUTE: WHAT` for anything found, `saw: ...` for what
// it could see (the hashes of the .gdl files it read, the processes' command lines and
// environments: a test that learns a secret only after the run, such as a drawn seed or stage,
// looks for it there), then `done`; it plays the first legal move. The test fills in TOKEN (in the
// name of every secret file and folder it plants, in the unseen stages' text, in a variable of the
// referee's environment), and narrows ROOTS, MAX_DEPTH and PIDS for its control, run outside the
// sandbox.
const NAME = "spy-arena";
const TOKEN = "";
const ROOTS = ["/"];
const MAX_DEPTH = -1; // -1: no limit
const PIDS = null; // the processes searched (null: every one in /proc)
const SKIP = new Set(["/proc", "/sys", "/dev"]);
const SUSPECT = [".gdl", ".sqlite", ".json", ".npz", ".txt", ".csv", ".html", ".log", ".env"];
const RUN_FILES = ["results.sqlite", "manifest.json", "draw-seed.json"]; // a run folder's store, draw and seed

function spy() {
  const fs = require("fs");
  const path = require("path");
  const crypto = require("crypto");
  const say = (line) => console.log(line);
  const leak = (route, what) => say(`leak: ${route}: ${JSON.stringify(what)}`);
  const read = (file, limit) => {
    try {
      const data = fs.readFileSync(file);
      return limit ? data.subarray(0, limit) : data;
    } catch (e) {
      return null;
    }
  };

  say("tried: files");
  let walked = 0;
  const stages = new Set();
  const look = (file, name) => {
    walked++;
    if (file.includes(TOKEN)) return leak("files", file);
    if (!SUSPECT.some((s) => name.endsWith(s)) && !RUN_FILES.includes(name)) return;
    let size;
    try {
      size = fs.statSync(file).size;
    } catch (e) {
      return;
    }
    if (size > 4 << 20) return;
    const data = read(file);
    if (data === null) return;
    if (data.includes(TOKEN)) leak("files", file);
    else if (name === "manifest.json" && data.includes("levin_weight")) leak("files", `a sampler manifest: ${file}`);
    else if (name === "results.sqlite") leak("files", `a results store: ${file}`);
    else if (name === "draw-seed.json") leak("files", `a draw seed: ${file}: ${data.subarray(0, 200)}`);
    if (name.endsWith(".gdl")) stages.add(crypto.createHash("sha256").update(data).digest("hex").slice(0, 16));
  };
  const walk = (folder, depth) => {
    let entries;
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch (e) {
      return;
    }
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      look(file, entry.name);
      if (entry.isDirectory() && !SKIP.has(file) && (MAX_DEPTH < 0 || depth < MAX_DEPTH)) walk(file, depth + 1);
    }
  };
  for (const root of ROOTS) walk(root, 0);
  say(`saw: ${walked} files and folders; / holds ${fs.readdirSync("/").sort().join(" ")}`);
  say(`saw: ${stages.size} stages (sha256) ${[...stages].sort().join(" ")}`);

  say("tried: mounts");
  for (const line of String(read("/proc/self/mountinfo") || "").split("\n")) {
    if (line.includes(TOKEN)) leak("mounts", line);
  }

  say("tried: environment");
  say(`saw: environment ${Object.keys(process.env).sort().join(" ")}`);
  for (const [name, value] of Object.entries(process.env)) {
    if (name.includes(TOKEN) || String(value).includes(TOKEN)) leak("environment", name);
  }

  say("tried: processes");
  const pids = PIDS || fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  for (const pid of pids) {
    for (const what of ["environ", "cmdline"]) {
      const data = read(`/proc/${pid}/${what}`, 1 << 20);
      if (data === null || data.length === 0) continue;
      if (data.includes(TOKEN)) leak("processes", `/proc/${pid}/${what}`);
      say(`saw: process ${pid} ${what} ${JSON.stringify(String(data.subarray(0, 1000)))}`);
    }
    let mem;
    try {
      mem = fs.openSync(`/proc/${pid}/mem`, "r");
    } catch (e) {
      continue;
    }
    say(`saw: process ${pid} memory opens`);
    try {
      for (const line of String(read(`/proc/${pid}/maps`) || "").split("\n")) {
        const [where, perms] = line.split(" ");
        if (!where || !perms.startsWith("r")) continue;
        const [start, end] = where.split("-").map((x) => BigInt(`0x${x}`));
        if (end - start > 64n << 20n) continue;
        const region = Buffer.alloc(Number(end - start));
        try {
          fs.readSync(mem, region, 0, region.length, start);
        } catch (e) {
          continue;
        }
        if (region.includes(TOKEN)) {
          leak("processes", `/proc/${pid}/mem holds the token`);
          break;
        }
      }
    } finally {
      fs.closeSync(mem);
    }
  }
  say("done");
}

function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  try {
    spy();
  } catch (e) {
    console.log(`error: spy: ${e && e.stack ? e.stack : e}`);
  }
  return (board, player, moves) => moves[0];
}
