// A system whose name in the leaderboard is its NAME, as the Arena's systems name themselves.
const NAME = "Edge Hugger";

function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  console.log(NAME, "on", stageConfig.name);
  // the first legal move nearest an edge; makeMove records it and the strategy returns nothing
  return function (board, player, validMoves, makeMove) {
    const n = board.length;
    const margin = (m) => Math.min(m.row, m.col, n - 1 - m.row, n - 1 - m.col);
    let best = validMoves[0];
    for (const move of validMoves) if (margin(move) < margin(best)) best = move;
    makeMove(best.row, best.col);
  };
}
