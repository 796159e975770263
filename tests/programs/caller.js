// Calls the API while preparing and on every turn, and checks the answers; any mismatch is
// written to standard error and answered with an illegal move, so a test sees it.
const { play, readLine, writeLine } = require("./lib.js");
function call(request) {
  writeLine(JSON.stringify(request));
  return JSON.parse(readLine());
}
let stage;
play((state, actions) => {
  const legal = call({ call: "legal_actions", state });
  const clock = call({ call: "clock" });
  const bad = call({ call: "apply_action", state, action: 9999 });
  if (JSON.stringify(legal.value) !== JSON.stringify(actions) || !(clock.value.remaining > 0) || bad.ok) {
    console.error("mismatch", JSON.stringify([legal, clock, bad]));
    return "nonsense";
  }
  const moves = call({ call: "legal_moves", state }).value;
  return moves[moves.length - 1]; // as text
}, () => {
  stage = call({ call: "stage" }).value;
  const playouts = call({ call: "playouts", state: null, n: 10, seed: 1 }).value;
  console.error(`prepared: ${stage.name} ${stage.rows}x${stage.cols}, ${playouts.lengths.length} playouts`);
});
