"""A program (docs/protocol.md) that reads the observations it is sent on the opponent's turns, as a
bot of the OpenSpiel competition does: it asks the API about each one (its call must be answered)
and answers `ponder`, but the first of each game, which it answers with a move out of turn (which
must be logged and ignored); on its turn it says on standard error how many observations came
since its last turn and whether the last one is where its information state now begins."""
import json
import sys


def call(**request):
    print(json.dumps(request), flush=True)
    answer = json.loads(sys.stdin.readline())
    return answer["value"] if answer["ok"] else answer


def say(text):
    print(text, file=sys.stderr, flush=True)


def main():
    sys.stdin.readline()  # the stage's name
    sys.stdin.readline()  # prepare B
    stage = call(call="stage")
    cells = stage["rows"] * stage["cols"]
    print("ready", flush=True)
    observed, answered, blurted = [], 0, False
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            return
        words = line.split()
        if words[0] == "start":
            blurted = False
            continue
        if line.startswith("end of game"):
            sys.stdin.readline()
            observed, answered = [], 0
            continue
        if words[0] == "observe":
            state = [int(v) for v in words[1:]]
            planes = call(call="observe", state=state)
            answered += isinstance(planes, list)
            observed.append(state)
            print("ponder" if blurted else "a1", flush=True)  # a1: a move out of turn, which changes nothing
            blurted = True
            continue
        state = [int(v) for v in words]
        tries = [int(a) for a in sys.stdin.readline().split()]
        # an information state is the view's cells, four numbers, the player and the number of
        # entries, then the entries of its history: the last observation's are where these begin
        head = cells + 6
        begins = all(o[head:] == state[head:len(o)] for o in observed[-1:])
        say(f"turn: {len(observed)} observed, calls answered {answered}, history continues {begins}")
        observed, answered = [], 0
        print(tries[0], flush=True)


main()
