// The replay of the games in the page's #replay-data JSON (report.replays), board by board, drawn
// by board.js (ludicaBoard, inlined before this file). Every name, move and stage title goes into
// the page as text (textContent, setAttribute), never as markup: nothing in the data can become an
// element or a script. The report inlines this file, allowed by its hash in the page's
// Content-Security-Policy.
//
// Its address (issue 22's scheme): #game=K&ply=P opens game K (its place in the data, from 0) at ply
// P (0: the start); #agent=NAME lists only NAME's games; #pair=A|B only the games between A and B,
// either seat (each name encoded with encodeURIComponent). The address follows the position as it
// changes (history.replaceState), and a changed address is followed; an address that names none of
// these (the index's #leaderboard...) is left to the browser. A game of a stage with hidden
// information (its `views` and `refused`) can be shown as either seat saw it: #seat=0 or #seat=1.
// Keys, while the replay is on screen: ← → a ply, Home End the start and the end.
(function () {
  "use strict";
  const games = JSON.parse(document.getElementById("replay-data").textContent);
  const $ = id => document.getElementById(id);
  const section = $("replay"), pick = $("replay-game"), where = $("replay-where"), status = $("replay-status");
  const boardBox = $("replay-board"), movesBox = $("replay-moves"), filterBox = $("replay-filter");
  const playButton = $("replay-play"), speed = $("replay-speed"), seatBox = $("replay-seat-box"), seatPick = $("replay-seat");
  let shown = [], game = null, index = -1, ply = 0, filter = null, timer = null;
  let seat = "";  // "" the whole board, "0" or "1" that seat's view (a hidden-information game's)

  function element(tag, text) {
    const e = document.createElement(tag);
    e.textContent = text;
    return e;
  }

  // the address's keys, each value decoded (a pair's names split on "|" before decoding)
  function readHash() {
    const out = {};
    for (const part of location.hash.slice(1).split("&")) {
      const at = part.indexOf("=");
      if (at < 0) continue;
      const key = part.slice(0, at), raw = part.slice(at + 1);
      try {
        out[key] = key === "pair" ? raw.split("|").map(decodeURIComponent) : decodeURIComponent(raw);
      } catch (e) { /* a malformed address: that key is ignored */ }
    }
    return out;
  }

  function writeHash() {
    const parts = [];
    if (filter && filter.agent !== undefined) parts.push("agent=" + encodeURIComponent(filter.agent));
    if (filter && filter.pair) parts.push("pair=" + filter.pair.map(encodeURIComponent).join("|"));
    parts.push("game=" + index, "ply=" + ply);
    if (seat !== "" && game && game.views) parts.push("seat=" + seat);
    history.replaceState(null, "", "#" + parts.join("&"));
  }

  function matches(g) {
    if (!filter) return true;
    if (filter.agent !== undefined) return g.black === filter.agent || g.white === filter.agent;
    const [a, b] = filter.pair;
    return (g.black === a && g.white === b) || (g.black === b && g.white === a);
  }

  function title(g) {
    return g.stage + ": " + g.black + " vs " + g.white + " → " + g.ending + (g.kind === "main" ? "" : " [" + g.kind + " game]");
  }

  function list() {
    shown = games.map((g, i) => i).filter(i => matches(games[i]));
    pick.replaceChildren(...shown.map(i => {
      const o = element("option", title(games[i]));
      o.value = i;
      return o;
    }));
    if (!filter) {
      filterBox.replaceChildren(element("span", "All " + games.length + " games."));
      return;
    }
    const what = filter.agent !== undefined ? "the games of " + filter.agent
      : "the games between " + filter.pair[0] + " and " + filter.pair[1];
    const all = element("a", "show all games");
    all.setAttribute("href", "#game=" + (shown.length ? shown[0] : 0) + "&ply=0");
    filterBox.replaceChildren(element("span", "Showing " + shown.length + " of " + games.length + " games: " +
      what + (shown.length ? ". " : " (none). ")), all);
  }

  function move(k) {
    return k > 0 ? game.moves[k - 1] : "";
  }

  function draw() {
    const total = game.boards.length - 1;
    const played = move(ply), viewed = seat !== "" && game.views;
    const cells = viewed ? game.views[+seat][ply] : game.boards[ply];
    const last = ply > 0 && played !== "pass" ? played.split("-") : [];
    const drawn = ludicaBoard.draw(boardBox, {rows: game.rows, cols: game.cols, hex: game.hex, cells: cells,
                                              last: last, taken: ply > 0 ? game.taken[ply - 1] : []});
    const refused = ply > 0 && game.refused && game.refused[ply - 1];
    where.textContent = (game.views ? "try " : "ply ") + ply + " of " + total +
      (ply > 0 ? ": " + played + (refused ? " (refused)" : "") : " (the start)") +
      (viewed ? ", as " + (seat === "0" ? game.black : game.white) + " saw it" : "");
    const clocks = game.clocks[Math.min(ply, game.clocks.length - 1)];
    const budget = k => game.budget && game.budget[k] ? " of " + game.budget[k] + " s" : "";
    const side = (mark, name, k) => mark + " " + name + ": " + drawn.counts[k] + " pieces, clock " +
      clocks[k].toFixed(2) + " s" + budget(k);
    status.textContent = side("●", game.black, 0) + "  –  " + side("○", game.white, 1) +
      (ply > 0 && game.captured[ply - 1] ? "  –  the last move took " + game.captured[ply - 1] : "");
    movesBox.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === ply - 1));
    const current = movesBox.querySelector("li.current");
    if (current) {  // keep the move in the list's view without scrolling the page
      const top = current.offsetTop - movesBox.offsetTop;
      if (top < movesBox.scrollTop || top > movesBox.scrollTop + movesBox.clientHeight - current.offsetHeight)
        movesBox.scrollTop = top - movesBox.clientHeight / 2;
    }
  }

  function load(i) {
    index = i; game = games[i]; ply = 0;
    pick.value = i;
    const moves = document.createElement("ol");
    game.moves.forEach((mv, k) => {
      const t = game.seconds[k], who = t ? (t[0] === 0 ? game.black : game.white) : "";
      const li = element("li", who + ": " + mv + (game.refused && game.refused[k] ? " refused" : "") +
        (game.captured[k] ? " ×" + game.captured[k] : "") + (t ? " (" + t[1].toFixed(3) + " s)" : ""));
      li.addEventListener("click", () => go(k + 1));
      moves.appendChild(li);
    });
    seatBox.hidden = !game.views;
    movesBox.replaceChildren(element("p", "● " + game.black + " (first) – ○ " + game.white + " (second)"),
      moves, element("p", "Game over: " + game.ending));  // the result once, the stage's names (referee.headline)
  }

  function go(p) {
    if (!game) return;
    ply = Math.max(0, Math.min(game.boards.length - 1, p));
    draw();
    writeHash();
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ play";
  }

  function play() {
    if (timer) return stop();
    if (!game) return;
    if (ply === game.boards.length - 1) go(0);
    playButton.textContent = "❚❚ pause";
    timer = setInterval(() => {
      if (ply >= game.boards.length - 1) stop();
      else go(ply + 1);
    }, 1000 / +speed.value);
  }

  // open what the address names; false: it names nothing of the replay's
  function follow() {
    const wanted = readHash();
    const named = "game" in wanted || "agent" in wanted || ("pair" in wanted && wanted.pair.length === 2);
    if (!named && game) return false;
    filter = "agent" in wanted ? {agent: wanted.agent} : "pair" in wanted && wanted.pair.length === 2 ?
      {pair: wanted.pair} : null;
    list();
    const k = +wanted.game;
    const open = Number.isInteger(k) && shown.includes(k) ? k : shown.length ? shown[0] : -1;
    if (open < 0) {
      game = null; index = -1;
      boardBox.replaceChildren(); movesBox.replaceChildren(); where.textContent = ""; status.textContent = "";
      return named;
    }
    if (open !== index || !game) load(open);
    seat = wanted.seat === "0" || wanted.seat === "1" ? wanted.seat : "";
    seatPick.value = seat;
    const p = +(wanted.ply || 0);
    ply = Math.max(0, Math.min(game.boards.length - 1, Number.isInteger(p) ? p : 0));
    draw();
    return named;
  }

  function step(d) {
    stop();
    go(ply + d);
  }

  $("replay-next").addEventListener("click", () => step(1));
  $("replay-back").addEventListener("click", () => step(-1));
  $("replay-first").addEventListener("click", () => step(-1e9));
  $("replay-last").addEventListener("click", () => step(1e9));
  playButton.addEventListener("click", play);
  speed.addEventListener("change", () => { if (timer) { stop(); play(); } });
  pick.addEventListener("change", () => { stop(); load(+pick.value); go(0); });
  seatPick.addEventListener("change", () => { seat = seatPick.value; go(ply); });
  document.addEventListener("keydown", e => {
    if (!game || e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    const box = section.getBoundingClientRect();
    if (box.bottom < 0 || box.top > window.innerHeight) return;  // the keys are the page's while it is away
    const d = {ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9}[e.key];
    if (d === undefined) return;
    e.preventDefault();
    step(d);
  });
  window.addEventListener("hashchange", () => {
    stop();
    if (follow()) section.scrollIntoView({block: "start"});
  });
  if (games.length && follow() && location.hash.length > 1) section.scrollIntoView({block: "start"});
})();
