// A system that finds out the stage's rules during its analysis, by asking api.simulateMove about
// boards it makes up, and says what it learned with console.log:
// - do captures run over blocked cells (the Arena's ignoreOcclusion)? black plays next to a
//   blocked cell, with a white disc and then a black one beyond it: "X O P";
// - must a move flip a disc? black plays on a board with nothing to flip.
// It then plays the move flipping the most discs, preferring corners.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  const n = stageConfig.boardSize;
  const empty = () => Array.from({ length: n }, () => new Array(n).fill(0));
  const blocked = stageConfig.initialBlocked.filter((b) => b.r >= 0 && b.r < n && b.c >= 0 && b.c < n);
  const rules = [];

  // a line of four cells starting next to a blocked cell: place, blocked, white, black
  const directions = [[0, 1], [0, -1], [1, 0], [-1, 0]];
  const inside = (r, c) => r >= 0 && r < n && c >= 0 && c < n;
  const own = blocked.length === 0; // no blocked cell on the stage: make one up
  const cells = own ? [{ r: 0, c: 1 }] : blocked;
  let asked = false;
  for (const b of cells) {
    for (const [dr, dc] of directions) {
      const place = { r: b.r - dr, c: b.c - dc };
      const white = { r: b.r + dr, c: b.c + dc };
      const black = { r: b.r + 2 * dr, c: b.c + 2 * dc };
      if (asked || !inside(place.r, place.c) || !inside(black.r, black.c)) continue;
      const board = empty();
      for (const x of blocked) board[x.r][x.c] = 3;
      board[b.r][b.c] = 3;
      if (board[place.r][place.c] !== 0 || board[white.r][white.c] !== 0 || board[black.r][black.c] !== 0) continue;
      board[white.r][white.c] = 2;
      board[black.r][black.c] = 1;
      const result = api.simulateMove(board, 1, place.r, place.c);
      rules.push(`captures run over blocked cells: ${result.valid ? "yes" : "no"}` +
                 (result.valid ? ` (flipped ${result.capturedCount})` : "") + (own ? " (asked on a blocked cell of my own)" : ""));
      asked = true;
    }
  }
  if (!asked) rules.push("captures run over blocked cells: could not ask");

  const lonely = empty();
  lonely[0][0] = 1;
  lonely[n - 1][n - 1] = 2;
  const flipless = api.simulateMove(lonely, 1, Math.floor(n / 2), Math.floor(n / 2));
  rules.push(`a move must flip a disc: ${flipless.valid ? "no" : "yes"}`);
  const opening = api.getValidMoves(initialBoard, 1).map((m) => String.fromCharCode(97 + m.col) + (m.row + 1));
  rules.push(`black's first moves: ${opening.join(" ")}`);
  for (const line of rules) console.log(`probe learned: ${line}`);

  const corner = (m) => (m.row === 0 || m.row === n - 1) && (m.col === 0 || m.col === n - 1);
  return function strategy(board, player, validMoves) {
    let best = null;
    let score = -Infinity;
    for (const move of validMoves) {
      const result = api.simulateMove(board, player, move.row, move.col);
      if (!result.valid) continue;
      const value = result.capturedCount + (corner(move) ? 100 : 0);
      if (value > score) {
        score = value;
        best = move;
      }
    }
    return best;
  };
}
