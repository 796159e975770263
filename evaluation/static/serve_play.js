// serve_play.js: the Play page's form, and a game of the Play page (templates/serve_play.html.j2) watched live. Each moment
// the server sends (web/play.py: board spec, clocks, side to move) is drawn with board.js; the side
// to move's clock counts down in the page, and on a stage with dice the status says its roll; on a person's turn the legal moves are lit and a click
// POSTs the move (a refusal's message shown). Every text is set with textContent.
(function () {
  "use strict";
  // the new game's form: sent by fetch (the pages' policy allows no form to be submitted), then its page opened
  const form = document.getElementById("play-new");
  if (form) form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const said = document.getElementById("play-new-problem");
    said.textContent = "";
    try {
      const answer = await fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form))});
      if (answer.ok) location.assign(answer.url);
      else said.textContent = (await answer.json()).error || ("refused: " + answer.status);
    } catch (error) {
      said.textContent = "the server did not answer: " + error;
    }
  });
  const root = document.getElementById("play-game");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const board = $("play-board"), status = $("play-status"), problem = $("play-problem"), plyShown = $("play-ply");
  // the players as the stage names them, their colours, and whether the stage counts pieces (web/play.py)
  const shown = JSON.parse($("play-shown").textContent);
  const SIDES = shown.sides.map((side) => side.name), COLOURS = shown.sides.map((side) => side.colour);
  let now = null, since = 0;

  // a position drawn in the stage's colours (`extra`: what a person is offered, what the end shows)
  function drawBoard(spec, extra) {
    const drawn = ludicaBoard.draw(board, Object.assign({}, spec, {colours: COLOURS}, extra || {}));
    if (shown.counts) for (const seat of [0, 1])
      $("clock-" + seat).querySelector(".pieces").textContent = drawn.counts[seat] + " pieces";
  }

  function clock(seconds) {
    const s = Math.max(0, seconds), m = Math.floor(s / 60);
    return m + ":" + (s - 60 * m).toFixed(1).padStart(4, "0");
  }

  function showClocks() {
    if (!now) return;
    for (const seat of [0, 1]) {
      const running = now.to_move === seat;
      const row = $("clock-" + seat);
      row.classList.toggle("to-move", running);
      if (now.remaining[seat] === null) {  // a hidden stage's opponent: its time would count its tries
        row.querySelector(".clock").textContent = "hidden";
        continue;
      }
      const left = now.remaining[seat] - (running ? (performance.now() - since) / 1000 : 0);
      row.querySelector(".clock").textContent = clock(left);
    }
  }

  async function post(fields) {
    problem.textContent = "";
    try {
      const answer = await fetch(root.dataset.move, {method: "POST", headers: {"Content-Type": "application/json"},
                                                     body: JSON.stringify(fields)});
      if (!answer.ok) problem.textContent = (await answer.json()).error || ("refused: " + answer.status);
    } catch (e) {
      problem.textContent = "the server did not answer: " + e;
    }
  }

  // a person's turn: the cells that start a legal move lit; a move of one cell is played by its
  // click, a move "from-to" by its from cell (then: itself selected, to choose again, and its to cells lit)
  function offer(moment, from) {
    const starts = (move) => move.split("-")[0];
    if (from === null) {
      drawBoard(moment.board, {highlight: [...new Set(moment.legal.map(starts))], onCell: (name) => {
        if (moment.legal.some((m) => m.startsWith(name + "-"))) offer(moment, name);
        else post({move: name});
      }});
    } else {
      drawBoard(moment.board, {selected: from,
                               highlight: moment.legal.filter((m) => starts(m) === from).map((m) => m.split("-").pop()),
                               onCell: (name) => name === from ? offer(moment, null) : post({move: from + "-" + name})});
    }
  }

  function show(moment) {
    now = moment;
    since = performance.now();
    if (moment.person) offer(moment, null);
    else drawBoard(moment.board);
    plyShown.dataset.redraws = String(Number(plyShown.dataset.redraws) + 1);
    plyShown.dataset.ply = String(moment.ply);
    plyShown.textContent = "ply " + moment.ply;
    $("play-last").textContent = moment.move === null ? "" :
      SIDES[moment.mover] + (moment.move === "pass" ? " passed" : " played " + moment.move);
    status.textContent = moment.to_move === null ? "the game is over" :
      SIDES[moment.to_move] + " to move" + (moment.roll ? ", with a roll of " + moment.roll : "") +
      (moment.person ? ": your move, click a lit cell" : "");
    $("play-resign").hidden = !moment.person;
    showClocks();
  }

  function end(result) {
    now = now && Object.assign({}, now, {to_move: null});
    showClocks();
    status.textContent = "the game is over";
    $("play-resign").hidden = true;
    if (now) drawBoard(now.board, {shown: result.shown || []});  // nothing offered any more; the end's cells ringed
    $("play-result").textContent = result.result;
    $("play-log").textContent = (result.log || []).join("\n");
    $("play-end").hidden = false;
  }

  const events = new EventSource(root.dataset.events);
  events.addEventListener("moment", (e) => show(JSON.parse(e.data)));
  events.addEventListener("end", (e) => { events.close(); end(JSON.parse(e.data)); });
  $("play-resign").addEventListener("click", () => post({resign: "1"}));
  setInterval(showClocks, 200);
})();
