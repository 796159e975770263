// Corners, the Arena's way: the first legal corner (row-major), else a random legal edge move,
// else greedy (the most discs flipped, the first maximum).
window.analyzeStage = function (stageConfig, initialBoard, validMoves, api) {
  const n = stageConfig.boardSize;
  const isCorner = (m) => (m.row === 0 || m.row === n - 1) && (m.col === 0 || m.col === n - 1);
  const isEdge = (m) => m.row === 0 || m.row === n - 1 || m.col === 0 || m.col === n - 1;
  const started = performance.now();
  console.log("corners: ready in", (performance.now() - started).toFixed(3), "ms");
  return (board, player, validMoves) => {
    const corner = validMoves.find(isCorner);
    if (corner) return corner;
    const edges = validMoves.filter(isEdge);
    if (edges.length > 0) return edges[Math.floor(Math.random() * edges.length)];
    let best = validMoves[0];
    let most = -1;
    for (const move of validMoves) {
      const result = api.simulateMove(board, player, move.row, move.col);
      if (result.valid && result.capturedCount > most) {
        most = result.capturedCount;
        best = move;
      }
    }
    return best;
  };
};
