"""`ludica play STAGE --black AGENT --white AGENT [--quiet]`: one game between two agents, printed
as boards, with what the agents printed."""
from __future__ import annotations

import sys
from pathlib import Path

from ludica import gdl
from ludica.arguments import chosen_agents, episode_options, run_options, stage_path
from ludica.terminal import inert


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="one game between two agents, printed as boards")
    p.add_argument("stage", metavar="STAGE")
    p.add_argument("--black", required=True, metavar="AGENT")
    p.add_argument("--white", required=True, metavar="AGENT")
    p.add_argument("--quiet", action="store_true", help="print only the result line")
    episode_options(p, 10.0, 10.0)
    p.set_defaults(run=run, games=1)


def run(args) -> int:
    """One game: a run of one stage, one pairing and one game, in a folder of its own that goes
    when the game is shown."""
    import tempfile

    from ludica.compiler import compile as compile_stage
    from ludica.runtime import Hooks, Run, StagePlan

    options = run_options(args)  # refused options before anything is compiled
    stage = gdl.load(stage_path(args.stage))
    black, white = chosen_agents([args.black, args.white], False, args.agent_data)
    if black.name == white.name:  # an agent against itself: tell the two seats apart
        black, white = (type(black)(f"{black.name}-1", black.path), type(white)(f"{white.name}-2", white.path))
    plan = StagePlan(stage, ((black.name, white.name),), 1, stage.name, options.analysis_time)
    ended: list[dict] = []

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory() as tmp, Run.open(Path(tmp) / "run") as one_game:
        one_game.start([stage], [black, white], options)
        one_game.play([plan], [black, white], hooks=Hooks(on_game=ended.append, on_wait=say))
    record, analyses = ended[0]["record"], ended[0]["analyses"]
    game = compile_stage(stage)
    printed = [(name, "analysis", analyses[seat].get("output", ""), analyses[seat].get("outputBytes", 0))
               for seat, name in (("black", black.name), ("white", white.name))]
    printed += [(record.players[o["seat"]], "game", o["text"], o["bytes"]) for o in record.output]
    if args.quiet:
        print(inert(record.log[-1]) + f" ({record.scores[0]}-{record.scores[1]}, {len(record.plies)} plies"
              + ("" if record.reason == "normal" else f", {record.reason}") + ")")
        return 0
    _show_output(printed)
    state = game.initial_state()
    print(inert(record.log[0]))
    print(gdl.render(game, state))
    for ply in record.plies:
        state = game.apply(state, game.parse_move(ply.move))
        who = record.players[ply.player]
        took = f", taking {ply.captured}" if ply.captured else ""
        note = f"  [{ply.note}]" if ply.note else ""
        print(inert(f"\n{who} plays {ply.move}{took} ({ply.seconds:.2f} s){note}"))
        print(gdl.render(game, state))
    for line in record.log:
        if line.startswith(("Game over", "Black", "White", "Tie", "Both", "Game stopped")) or "forfeit" in line:
            print(inert(line))  # a forfeit's line holds the agent's exception text
    return 0


def _show_output(printed: list[tuple[str, str, str, int]]) -> None:
    """What the sandboxed agents printed (in their analysis, then in the game), each line after the
    agent's name, escape sequences shown, not obeyed; what was cut off beyond the kept part is counted."""
    for name, when, text, total in printed:
        if not total:
            continue
        name = inert(name)
        print(f"-- {name} printed during its {when}:")
        for line in text.splitlines():
            print(f"{name}| {inert(line)}")
        kept = len(text.encode())
        if total > kept:
            print(f"{name}| ... {total - kept:,} more bytes not kept ({total:,} in all)")
