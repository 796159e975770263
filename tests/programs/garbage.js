// Answers every turn with text that is no move: the illegal-move rule (the third loses the game).
require("./lib.js").play(() => "hello, referee");
