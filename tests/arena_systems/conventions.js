// A system that shows what it is given, for tests/test_arena_systems.py to check against ludica's
// rules: one line `seen {...}` (JSON) for the analysis and one per turn, on console.log. Its
// answers take every form the adapter reads, by the turn's number: a move returned, makeMove(row,
// col) and nothing returned, makeMove({row, col}) and null returned, a Promise of a move, an
// exception, and something that is no move.
function analyzeStage(stageConfig, initialBoard, validMoves, api) {
  const first = validMoves[0];
  const simulated = api.simulateMove(initialBoard, 1, first.row, first.col);
  const taken = initialBoard.flatMap((row, r) => row.map((v, c) => ({ v, r, c }))).find((x) => x.v === 1);
  console.log("seen " + JSON.stringify({
    stageConfig, initialBoard, validMoves,
    black: api.getValidMoves(initialBoard, 1),
    white: api.getValidMoves(initialBoard, 2),
    bad: api.getValidMoves([[1, 2]], 1),
    simulated,
    occupied: api.simulateMove(initialBoard, 1, taken.r, taken.c),
    outside: api.simulateMove(initialBoard, 1, -1, 0),
    fractional: api.simulateMove(initialBoard, 1, 0.5, 0),
    evaluated: [api.evaluateBoard(initialBoard, 1), api.evaluateBoard(initialBoard, 2),
                api.evaluateBoard(simulated.resultingBoard, 1), api.evaluateBoard(simulated.resultingBoard, 2)],
    afterFirst: [api.getValidMoves(simulated.resultingBoard, 2), api.getValidMoves(simulated.resultingBoard, 1)],
  }));
  let turn = 0;
  return function strategy(board, player, validMoves, makeMove) {
    turn += 1;
    const again = api.getValidMoves(board, player);
    console.log("seen " + JSON.stringify({ turn, board, player, validMoves, again }));
    const last = validMoves[validMoves.length - 1];
    switch (turn % 6) {
      case 1: return last;
      case 2: makeMove(last.row, last.col); return undefined;
      case 3: makeMove(last); return null;
      case 4: return Promise.resolve(last);
      case 5: throw new Error("on purpose");
      default: return "e4";
    }
  };
}
