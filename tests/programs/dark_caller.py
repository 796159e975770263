"""A program (docs/protocol.md) for stages with hidden information: on each turn it reads its
information state and tries, asks the API for its observation, its tries and a sampled world, says
on standard error what it got, and answers the first try the world allows (else the first try)."""
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
    say(f"hidden: {stage['hidden']}")
    print("ready", flush=True)
    turn = 0
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            return
        words = line.split()
        if words[0] == "observe":  # what it saw on the opponent's turn (see observer.py): nothing to do
            print("ponder", flush=True)
            continue
        if words[0] == "start" or line.startswith("end of game"):
            if line.startswith("end of game"):
                sys.stdin.readline()
            continue
        state = [int(v) for v in words]
        tries = [int(a) for a in sys.stdin.readline().split()]
        turn += 1
        planes = call(call="observe", state=state)
        listed = call(call="legal_actions", state=state)
        world = call(call="sample_world", state=state, seed=turn, budget=5000)
        allowed = call(call="legal_actions", state=world) if isinstance(world, list) else []
        say(f"turn {turn}: planes {len(planes)}x{len(planes[0])}x{len(planes[0][0])} tries-match {listed == tries} "
            f"world {len(world) if isinstance(world, list) else world.get('error')}")
        choice = next((a for a in tries if a in allowed), tries[0])
        print(choice, flush=True)


main()
