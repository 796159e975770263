"""Regenerate the golden files of the bundled stages (tests/golden/). Review the diff before committing.

    python scripts/make_golden.py            # every bundled stage
    python scripts/make_golden.py hex-11     # only some

perft.json: leaves of the move tree at depths 1..D for each stage (a forced pass is one ply; a
terminal position reached earlier is a leaf), counted by the reference interpreter. The depth of
each stage is chosen so the reference counts it in a few seconds; `FIXED` holds counts that are
known independently (published perft figures) and are checked, not regenerated.

playthroughs/STAGE.txt: one seeded random game, every position with its legal moves, the move
played and the board after it, and the final returns.
"""
from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from ludica import gdl, stages

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from playthrough import record

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"

DEPTHS = {  # deepest perft depth counted by the reference interpreter, per stage
    "standard-8x8": 6, "small-board-6x6": 6, "partial-c-squares-cw": 6, "c-squares-occlusion-agnostic": 6,
    "fewer-pieces-continue": 6, "reverse-othello": 6, "othello-10x10": 5, "othello-split-setup": 6,
    "tic-tac-toe": 9, "misere-tic-tac-toe": 9, "mnk-5-6-4": 4, "gomoku": 3, "connect-four": 6,
    "hex-11": 3, "breakthrough": 4, "ataxx": 4, "custodian": 4,
    # hidden information: the tree of tries (refused ones included), as the referee plays them
    "phantom-tic-tac-toe": 5, "phantom-tic-tac-toe-abrupt": 5, "dark-hex-3": 5, "dark-hex-5": 3, "dark-hex-11": 1,
    "phantom-connect-four": 5, "dark-othello": 5, "dark-breakthrough": 3, "othello-random-setup": 6,
    "othello-random-blocks": 5,
    # dice: every roll a branch of its own after each ply (gdl.perft)
    "dice-race": 4,
}
FIXED = {  # published figures the reference must reproduce
    "standard-8x8": [4, 12, 56, 244, 1396, 8200],
    "tic-tac-toe": [9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168],
    "connect-four": [7, 49, 343, 2401, 16807, 117649],
    "ataxx": [16, 256, 6460, 155888],
    "breakthrough": [22, 484, 11132, 256036],
}
PLAYTHROUGH_SEED = 2026


def perft_counts(game, depth: int) -> list[int]:
    return [gdl.perft(game, d) for d in range(1, depth + 1)]


def playthrough(name: str, game) -> str:
    rng = random.Random(PLAYTHROUGH_SEED)
    header = f"# ludica playthrough of {name}.gdl, seed {PLAYTHROUGH_SEED}; regenerate with scripts/make_golden.py"
    return record(game, header, rng.choice)


def main(names: list[str]) -> None:
    perft_file = GOLDEN / "perft.json"
    table = json.loads(perft_file.read_text()) if perft_file.exists() else {}
    (GOLDEN / "playthroughs").mkdir(parents=True, exist_ok=True)
    for path in stages.bundled():
        if names and path.stem not in names:
            continue
        game = gdl.reference(gdl.load(path))
        t0 = time.perf_counter()
        counts = perft_counts(game, DEPTHS[path.stem])
        fixed = FIXED.get(path.stem)
        if fixed is not None and counts[: len(fixed)] != fixed[: len(counts)]:
            sys.exit(f"{path.stem}: perft {counts} disagrees with the published {fixed}: not written")
        table[path.stem] = counts
        (GOLDEN / "playthroughs" / f"{path.stem}.txt").write_text(playthrough(path.stem, game))
        print(f"{path.stem:32s} perft {counts}  ({time.perf_counter() - t0:.1f} s)")
    perft_file.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
