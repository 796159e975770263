"""A hostile agent for stages with hidden information: it plays the first try of every turn, and
meanwhile looks through its own process for anything that would tell it the truth. It prints each
state it was given (`given: PLY-INDEX VALUES`) and, at every move, how many positions of the game
of tries its process holds that have been played past the start (`dark-states: N`: the referee's
are in another process, so this should always be 0) and the referee's game records it found
(`referee-objects: N`, also 0)."""
import gc

seen = []


def _count():
    positions = referee = 0
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name == "DarkState" and getattr(obj, "record", ()):
            positions += 1
        if name == "GameRecord":
            referee += 1
    return positions, referee


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        seen.append(state)
        print(f"given: {len(seen)} " + " ".join(str(int(v)) for v in state), flush=True)
        positions, referee = _count()
        print(f"dark-states: {positions}", flush=True)
        print(f"referee-objects: {referee}", flush=True)
        return legal_moves[0]

    return strategy
