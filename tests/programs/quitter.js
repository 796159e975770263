// Plays three moves, then exits in the middle of the game: a crash.
require("./lib.js").play((state, actions, n) => {
  if (n > 3) process.exit(3);
  return actions[0];
});
