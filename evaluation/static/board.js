// board.js: THE board renderer of ludica's pages (the report's replay, the live pages of `ludica
// serve`): nothing else draws a board. It builds SVG with createElementNS and sets every text with
// textContent, so nothing in the data can become markup or a script.
//
//   ludicaBoard.draw(element, spec) -> {counts: [first, second], svg}
//     replaces element's children with the board. spec:
//       rows, cols     the board's size
//       cells          a string (or array) of rows * cols cells, row by row from the top:
//                      "." empty, "1" the first player's piece, "2" the second's, "#" blocked
//       hex            true: hexagons (row r shifted right by r/2 cells), else squares
//       last           cell names of the last move ("d3", or both ends of "b2-b3"): marked
//       taken          row-major indices of the cells the last move captured: marked
//       highlight      cell names to offer (legal moves for a person): drawn lit, clickable
//       selected       the cell name of a piece chosen to move: drawn apart from the lit cells, clickable
//       onCell         function(name): called with a lit or selected cell's name when it is clicked
//       shown          cell names the end of the game shows (its line, its chain): ringed
//       colours        [first, second]: the players' piece colours (default black and white discs)
//       coordinates    false: leave out the a-h / 1-8 labels (default: shown)
//   ludicaBoard.cellName(row, col) -> "a1" ...   the language's names (gdl/ast.py cell_name): the
//                                                column's letter, then the row's number counted
//                                                from the top row = 1
//   ludicaBoard.counts(cells) -> [first, second] the pieces of each player
//
// The SVG's classes, for pages and tests: "cell" (every cell; "cell blocked" where blocked),
// "piece piece-1" / "piece piece-2", "last" (last-move marker), "taken" (a captured cell's marker),
// "lit" (a highlighted cell), "selected" (the chosen piece's cell), "shown" (a ring the end shows),
// "coordinate" (the edge labels).
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const LETTERS = "abcdefghijklmnopqrstuvwxyz";
  const COLOURS = {empty: "#3f8f4f", blocked: "#6b6b6b", line: "#1b3d22", first: "#111", second: "#f4f4f4",
                   last: "#ffcc00", taken: "#e4572e", lit: "#9fe0a8", selected: "#4a90d9", shown: "#d81b60"};

  function cellName(row, col) {
    return LETTERS[col] + (row + 1);
  }

  function counts(cells) {
    let first = 0, second = 0;
    for (const v of cells) {
      if (v === "1") first++;
      else if (v === "2") second++;
    }
    return [first, second];
  }

  function shape(tag, attributes, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // the centre of a cell and the board's size, for squares or hexagons of side `s`
  function layout(spec, s) {
    const pad = spec.coordinates === false ? s * 0.2 : s * 0.8;
    if (spec.hex) {
      const dy = s * 0.866;
      return {
        centre: (r, c) => [pad + s * (c + r / 2) + s / 2, pad + dy * r + s / 2],
        width: 2 * pad + s * (spec.cols + (spec.rows - 1) / 2), height: 2 * pad + dy * (spec.rows - 1) + s, pad};
    }
    return {centre: (r, c) => [pad + s * c + s / 2, pad + s * r + s / 2],
            width: 2 * pad + s * spec.cols, height: 2 * pad + s * spec.rows, pad};
  }

  function outline(spec, x, y, s, attributes) {
    if (!spec.hex)
      return shape("rect", Object.assign({}, attributes, {x: x - s / 2, y: y - s / 2, width: s, height: s}));
    const points = [];
    for (let k = 0; k < 6; k++) {
      const a = Math.PI / 180 * (60 * k - 30);
      points.push((x + s * 0.577 * Math.cos(a)).toFixed(1) + "," + (y + s * 0.577 * Math.sin(a)).toFixed(1));
    }
    return shape("polygon", Object.assign({}, attributes, {points: points.join(" ")}));
  }

  function draw(element, spec) {
    const s = 30, rows = spec.rows, cols = spec.cols, cells = spec.cells;
    const at = layout(spec, s);
    const last = new Set(spec.last || []), taken = new Set(spec.taken || []), lit = new Set(spec.highlight || []);
    const ended = new Set(spec.shown || []), pieces = spec.colours || [COLOURS.first, COLOURS.second];
    const svg = shape("svg", {viewBox: "0 0 " + at.width.toFixed(1) + " " + at.height.toFixed(1),
                              class: "ludica-board", role: "img"});
    svg.style.maxWidth = (2.4 * at.width / s).toFixed(1) + "em";  // a small board is not blown up
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const i = r * cols + c, v = cells[i], name = cellName(r, c), [x, y] = at.centre(r, c);
      const blocked = v === "#", chosen = spec.selected === name && !blocked;
      const offered = (lit.has(name) || chosen) && !blocked;
      const kind = blocked ? "blocked" : chosen ? "selected" : offered ? "lit" : "";
      const cell = outline(spec, x, y, s, {class: kind ? "cell " + kind : "cell", fill: COLOURS[kind || "empty"],
                                           stroke: COLOURS.line, "data-cell": name});
      if (blocked) cell.appendChild(shape("title", {}, name + ": blocked"));
      svg.appendChild(cell);
      if (offered && spec.onCell) {
        cell.style.cursor = "pointer";
        cell.addEventListener("click", () => spec.onCell(name));
      }
      if (last.has(name))
        svg.appendChild(outline(spec, x, y, s * 0.9, {class: "last", fill: "none", stroke: COLOURS.last,
                                                       "stroke-width": 3, "pointer-events": "none"}));
      if (v === "1" || v === "2")
        svg.appendChild(shape("circle", {class: "piece piece-" + v, cx: x, cy: y, r: s * 0.38,  // a click is its cell's
                                         fill: pieces[v === "1" ? 0 : 1], stroke: "#000",
                                         "pointer-events": "none"}));
      if (ended.has(name))
        svg.appendChild(shape("circle", {class: "shown", cx: x, cy: y, r: s * 0.44, fill: "none", stroke: COLOURS.shown,
                                         "stroke-width": 3, "pointer-events": "none"}));
      if (taken.has(i))
        svg.appendChild(shape("circle", {class: "taken", cx: x, cy: y, r: s * 0.12, fill: COLOURS.taken,
                                         stroke: "#fff", "stroke-width": 1, "pointer-events": "none"}));
    }
    if (spec.coordinates !== false) labels(svg, spec, at, s);
    element.replaceChildren(svg);
    return {counts: counts(cells), svg};
  }

  // column letters above and below the board, row numbers left and right of it
  function labels(svg, spec, at, s) {
    const text = (x, y, t) => svg.appendChild(shape("text", {class: "coordinate", x: x.toFixed(1), y: y.toFixed(1),
      "text-anchor": "middle", "dominant-baseline": "central", "font-size": s * 0.42, fill: "#444"}, t));
    for (let c = 0; c < spec.cols; c++) {
      const [xTop, yTop] = at.centre(0, c), [xBottom, yBottom] = at.centre(spec.rows - 1, c);
      text(xTop, yTop - s * 0.5 - at.pad / 2, LETTERS[c]);
      text(xBottom, yBottom + s * 0.5 + at.pad / 2, LETTERS[c]);
    }
    for (let r = 0; r < spec.rows; r++) {
      const [xLeft, y] = at.centre(r, 0), [xRight] = at.centre(r, spec.cols - 1);
      text(xLeft - s * 0.5 - at.pad / 2, y, String(r + 1));
      text(xRight + s * 0.5 + at.pad / 2, y, String(r + 1));
    }
  }

  window.ludicaBoard = Object.freeze({draw, cellName, counts});
})();
