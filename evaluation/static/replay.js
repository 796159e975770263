// The replay of a game, board by board, over the games in the page's #replay-data JSON.
// Every name, move and stage title goes into the page as text (textContent, setAttribute), never
// as markup, and the board is built with createElementNS: nothing in the data can become an element
// or a script. The report inlines this file as its only script, allowed by its hash in the page's
// Content-Security-Policy.
(function () {
  const games = JSON.parse(document.getElementById("replay-data").textContent);
  const pick = document.getElementById("replay-game"), where = document.getElementById("replay-where");
  const boardBox = document.getElementById("replay-board"), movesBox = document.getElementById("replay-moves");
  const SVG = "http://www.w3.org/2000/svg";
  let game = null, ply = 0;
  function element(tag, text) {
    const e = document.createElement(tag);
    e.textContent = text;
    return e;
  }
  function shape(tag, attributes) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    return e;
  }
  games.forEach((g, i) => {
    const o = element("option", g.stage + ": " + g.black + " vs " + g.white + " → " + g.result +
      (g.reason === "normal" ? "" : " (" + g.reason + ")"));
    o.value = i;
    pick.appendChild(o);
  });
  const colour = {".": "#3f8f4f", "1": "#111", "2": "#f4f4f4", "#": "#777"};
  function draw() {
    const cells = game.boards[ply], n = game.rows, m = game.cols, s = 30;
    const w = game.hex ? s * (m + n / 2 + 1) : s * (m + 1), h = game.hex ? s * (n * 0.866 + 1.2) : s * (n + 1);
    const svg = shape("svg", {viewBox: "0 0 " + w + " " + h});
    for (let r = 0; r < n; r++) for (let c = 0; c < m; c++) {
      const v = cells[r * m + c], fill = v === "#" ? "#777" : "#3f8f4f";
      let x, y;
      if (game.hex) {
        x = s * (c + r / 2) + s; y = s * r * 0.866 + s;
        const pts = [];
        for (let k = 0; k < 6; k++) {
          const a = Math.PI / 180 * (60 * k - 30);
          pts.push((x + s * 0.577 * Math.cos(a)).toFixed(1) + "," + (y + s * 0.577 * Math.sin(a)).toFixed(1));
        }
        svg.appendChild(shape("polygon", {class: "cell", points: pts.join(" "), fill: fill, stroke: "#1b3d22"}));
      } else {
        x = s * c + s; y = s * r + s;
        svg.appendChild(shape("rect", {class: "cell", x: x - s / 2, y: y - s / 2, width: s, height: s, fill: fill,
                                       stroke: "#1b3d22"}));
      }
      if (v === "1" || v === "2")
        svg.appendChild(shape("circle", {class: "piece piece-" + v, cx: x, cy: y, r: s * 0.38, fill: colour[v],
                                         stroke: "#000"}));
    }
    boardBox.replaceChildren(svg);
    const total = game.boards.length - 1;
    where.textContent = "ply " + ply + " of " + total + (ply > 0 ? ": " + game.moves[ply - 1] : " (the start)");
    movesBox.querySelectorAll("li").forEach((li, i) => {
      li.classList.toggle("current", i === ply - 1);
      if (i === ply - 1) li.scrollIntoView({block: "nearest"});
    });
  }
  function load(i) {
    game = games[i]; ply = 0;
    const list = document.createElement("ol");
    game.moves.forEach((mv, k) => {
      const t = game.seconds[k], who = t ? (t[0] === 0 ? game.black : game.white) : "";
      list.appendChild(element("li", who + ": " + mv + (game.captured[k] ? " ×" + game.captured[k] : "") +
        (t ? " (" + t[1].toFixed(3) + " s)" : "")));
    });
    movesBox.replaceChildren(element("p", "● " + game.black + " (first) – ○ " + game.white + " (second)"),
      list, element("p", game.black + " " + game.score[0] + " – " + game.score[1] + " " + game.white));
    draw();
  }
  const step = d => { if (game) { ply = Math.max(0, Math.min(game.boards.length - 1, ply + d)); draw(); } };
  document.getElementById("replay-next").onclick = () => step(1);
  document.getElementById("replay-back").onclick = () => step(-1);
  document.getElementById("replay-first").onclick = () => step(-1e9);
  document.getElementById("replay-last").onclick = () => step(1e9);
  pick.onchange = () => load(+pick.value);
  // report.html#game=G&ply=P opens game G at ply P (a link to a position; tests use it too)
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (games.length) {
    const g = Math.min(games.length - 1, Math.max(0, +(wanted.get("game") || 0)));
    pick.value = g; load(g); step(+(wanted.get("ply") || 0));
  }
})();
