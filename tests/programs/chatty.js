// Writes each answer twice and prints to its standard error: the repeated line is dropped (never
// taken for the next answer), the printed text is kept like a Python agent's output.
const { play, writeLine } = require("./lib.js");
play((state, actions) => {
  console.error(`thinking about ${actions.length} actions`);
  writeLine(String(actions[0]));
  return actions[0];
});
