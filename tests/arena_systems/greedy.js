// Greedy, written the way an Othello AI Arena participant writes a system: the move that flips the
// most discs (api.simulateMove), the first such in the row-major order of validMoves, as the
// Arena's built-in Greedy.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  console.log(`Greedy analysing ${stageConfig.name}: ${stageConfig.boardSize}x${stageConfig.boardSize}, ` +
              `${validMoves.length} first moves`);
  return function strategy(board, player, validMoves, makeMove) {
    let best = null;
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
}
