"""`ludica play STAGE --black AGENT --white AGENT [--quiet]`: one game between two agents (or a
person, `human`, and an agent), printed move by move as it is played, with what the agents printed."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ludica import gdl
from ludica.arguments import chosen_agents, episode_options, run_options, stage_path
from ludica.terminal import clock, inert


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="one game between two agents, or you (human) and an agent, shown move by move")
    p.add_argument("stage", metavar="STAGE")
    p.add_argument("--black", required=True, metavar="AGENT", help="an agent, or human: you play at the terminal")
    p.add_argument("--white", required=True, metavar="AGENT", help="an agent, or human: you play at the terminal")
    p.add_argument("--quiet", action="store_true", help="print only the result line: who won, and why the game ended")
    episode_options(p, "play")
    p.set_defaults(run=run, games=1)


def run(args) -> int:
    """One game: a run of one stage, one pairing and one game, in a folder of its own that goes
    when the game is over; shown move by move as it is played (`--quiet`: only its result)."""
    import tempfile
    from dataclasses import replace

    from ludica.compiler import playable
    from ludica.runtime import Hooks, Run, StagePlan, TerminalSource, guarded
    from ludica.runtime.entrants import seated

    options = run_options(args)  # refused options before anything is compiled
    stage = gdl.load(stage_path(args.stage))
    black, white = chosen_agents([args.black, args.white], False, args.agent_data)
    black, white = seated(black, white)  # an agent against itself: the two seats told apart
    # a person plays at this terminal; the live game below shows them the board, --quiet does not
    black, white = (replace(a, source=TerminalSource(show_board=args.quiet)) if a.human else a for a in (black, white))
    plan = StagePlan(stage, ((black.name, white.name),), 1, stage.name, options.analysis_time)
    ended: list[dict] = []

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        with tempfile.TemporaryDirectory() as tmp, Run.open(Path(tmp) / "run") as one_game:
            one_game.start([stage], [black, white], options,
                           secrets=guarded.of_run(Path(tmp), stage_files=[stage_path(args.stage)]))
            # a person on a stage with hidden information sees their own view, never the truth
            person = next((p for p, a in enumerate((black, white)) if a.human), None) if stage.hidden else None
            live = None if args.quiet else _Live(playable(stage), one_game.store, person)
            one_game.play([plan], [black, white], hooks=Hooks(on_game=ended.append, on_wait=say, on_ply=live))
    except KeyboardInterrupt:  # Ctrl-C, at a person's prompt too: the game is abandoned, not recorded
        print("\ninterrupted: the game is abandoned", file=sys.stderr)
        return 130
    record = ended[0]["record"]
    if args.quiet:  # the referee's last line: the result once, and why (the rules' words, gdl/ending.py)
        print(inert(record.log[-1]) + f" ({len(record.plies)} plies"
              + ("" if record.reason == "normal" else f", {record.reason}") + ")")
        return 0
    _show_output([(record.players[o["seat"]], "game", o["text"], o["bytes"]) for o in record.output])
    # how it ended: a forfeit's line ("x (bot) failed ...", which holds the agent's exception text) and the result
    forfeits = tuple(f"{side} (" for side in stage.player_names)
    for line in record.log:
        if line.startswith(("Game over", "Internal error", *forfeits)):
            print(inert(line))
    return 0


class _Live:
    """The game printed as it is played (Hooks.on_ply): what the agents printed in their analysis
    and the initial board, then each ply (the move, what it took, its time) with the board after
    it and both clocks. On a stage with hidden information the board is the truth, for a spectator,
    or the view of the person playing (`person`: their seat), and the opponent's tries are not named."""

    def __init__(self, game, store, person: int | None = None):
        self.game, self.store, self.person = getattr(game, "truth", game), store, person
        self.known: int | None = None  # the tries the person knew of at the last board shown

    def __call__(self, title: str, number: int, moment) -> None:
        record, ply = moment.record, moment.last
        if ply is None:  # the game starts: the analyses are over, and stored
            _show_output([(a["agent"], "analysis", a["output"] or "", a["output_bytes"] or 0)
                          for a in self.store.analyses()])
            print(inert(record.log[0]))
        else:
            who = record.players[ply.player]
            took = f", taking {ply.captured}" if ply.captured else ""
            note = f"  [{ply.note}]" if ply.note else ""
            played = "passes" if ply.move == "pass" else f"plays {ply.move}{took} ({ply.seconds:.2f} s)"
            if self.person is not None and ply.player != self.person:
                # which, and its fate, the person was not told; nor of a retry that told them nothing
                if moment.tells_nothing_to(self.person, self.known):
                    return
                played, note = "tries a move", ""
            self.known = moment.known[self.person] if self.person is not None and moment.known else None
            print(inert(f"\n{who} {played}{note}"))
        state = moment.state
        if self.person is not None and moment.seen is not None and moment.to_move is not None:  # (over: the truth)
            cells = moment.view_cells(self.person)
            state = np.array([*cells, *moment.state[len(cells):]], dtype=np.int32)
        print(gdl.render(self.game, state))
        if moment.roll is not None:
            print(inert(f"{record.players[moment.to_move]} to move, with a roll of {moment.roll}"))
        if self.person is not None and moment.seen is not None and moment.to_move is not None:
            # a hidden stage: the opponent's clock would count its tries
            mine = ("Black", "White")[self.person]
            print(f"clock: {mine} {clock(moment.remaining[self.person])} (the opponent's is hidden)", flush=True)
            return
        print(f"clocks: Black {clock(moment.remaining[0])}, White {clock(moment.remaining[1])}", flush=True)


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
