// A system with a syntax error: refused before any run.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  return function (board, player, validMoves) {
    return validMoves[0]
  ;
