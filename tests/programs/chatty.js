// Writes each answer twice (in one write, so both lines are there before the answer is read) and
// prints to its standard error: the repeated line is dropped, never taken for the next answer; the
// printed text is kept like a Python agent's output.
const { play } = require("./lib.js");
play((state, actions) => {
  console.error(`thinking about ${actions.length} actions`);
  return `${actions[0]}\n${actions[0]}`;
});
