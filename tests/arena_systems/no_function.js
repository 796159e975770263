// A system whose analysis gives no strategy: analyzeStage returns a number, not a function.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  console.log("I forgot to return my strategy");
  return validMoves.length;
}
