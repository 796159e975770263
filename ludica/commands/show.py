"""`ludica show STAGE [--rules]`: a stage's initial board and its legal first moves, or its rules in
plain English (gdl/english.py)."""
from __future__ import annotations

from ludica import gdl
from ludica.arguments import stage_path
from ludica.terminal import inert


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="print a stage's initial board and legal first moves")
    p.add_argument("stage", metavar="STAGE")
    p.add_argument("--rules", action="store_true", help="print the stage's rules in plain English instead")
    p.set_defaults(run=run)


def _describe(stage: gdl.Stage) -> str:
    b = stage.board
    shape = f"{b.rows}x{b.cols} {b.keyword}" + (" (wrapped)" if b.wrap else "")
    return f"{stage.name!r}: {shape} board, players {' and '.join(stage.player_names)}"


def run(args) -> int:
    stage = gdl.load(stage_path(args.stage))
    if args.rules:
        print(inert(f"{stage.name}\n\n{gdl.rules_text(stage)}"), end="")
        return 0
    game = gdl.interpreter.ReferenceGame(stage.without_information())  # the start is public on a hidden stage too
    state = game.initial_state()
    print(_describe(stage))
    print(f"description length: {gdl.description_length(stage):.1f} bits")
    if stage.random_start:
        print("a start drawn at random for every game; this one is game 0 of seed 0's:")
    print(gdl.render(game, state))
    if stage.roll is not None:
        print(f"dice: roll {stage.roll.dice}d{stage.roll.faces} before every turn; this start's roll (game 0 of "
              f"seed 0's) is {state.roll}")
    mover = stage.player_names[game.to_move(state)]
    moves = game.legal_moves(state)
    print(f"{mover} to move; {len(moves)} legal move{'s' * (len(moves) != 1)}: " + " ".join(map(str, moves)))
    return 0
