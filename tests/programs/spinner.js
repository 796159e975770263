// Answers its first move, then loops for ever on the second: it must lose on time.
require("./lib.js").play((state, actions, n) => {
  if (n >= 2) for (;;) {}
  return actions[0];
});
