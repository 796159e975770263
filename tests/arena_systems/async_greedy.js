// Greedy with an async strategy, as a system that awaits something on every move: it answers
// through a Promise (resolved after a timer), and also records the move with makeMove.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
  return async function strategy(board, player, validMoves, makeMove) {
    await pause();
    let best = validMoves[0];
    let most = -1;
    for (const move of validMoves) {
      const { valid, capturedCount } = api.simulateMove(board, player, move.row, move.col);
      if (valid && capturedCount > most) {
        most = capturedCount;
        best = move;
      }
    }
    await pause();
    return best;
  };
}
