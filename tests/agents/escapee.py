"""At its first move, leaves a process spinning, which the referee stops between its turns. The
test sets it running again while the agent is not asked anything, as a process of the agent's
that escaped the freeze would be (one not yet stopped sending SIGCONT to one that was): the CPU
it used meanwhile must be charged to the agent's next move."""
import os


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        if not os.environ.get("SPINNING") and os.fork() == 0:
            while True:
                pass
        os.environ["SPINNING"] = "1"
        return legal_moves[0]

    return strategy
