"""A hostile program (docs/protocol.md) for stages with hidden information: it plays the first try of
every turn and answers `ponder` to every observation, and meanwhile tries to read the memory of
every other process it can see (its worker holds the compiled rules; under --isolate-rules a rules
oracle does too; the truth of the game is the referee's, outside its sandbox). On standard error it
says each state it was sent (`given: VALUES` on its turn, `observed: VALUES` on the opponent's) and,
once a game, what each process's memory gave it (`memory: PID denied` or `memory: PID read N`)."""
import os
import sys


def say(text):
    print(text, file=sys.stderr, flush=True)


def dig():
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/maps") as maps:
                regions = [line.split()[0].split("-") for line in maps if line.split()[1].startswith("r")]
            with open(f"/proc/{name}/mem", "rb") as mem:
                got = 0
                for start, end in regions[:50]:
                    mem.seek(int(start, 16))
                    got += len(mem.read(min(int(end, 16) - int(start, 16), 1 << 16)))
            say(f"memory: {name} read {got}")
        except (OSError, ValueError, OverflowError):
            say(f"memory: {name} denied")


def main():
    sys.stdin.readline()  # the stage's name
    sys.stdin.readline()  # prepare B
    print("ready", flush=True)
    dug = False
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            return
        words = line.split()
        if words[0] == "start":
            dug = False
            continue
        if line.startswith("end of game"):
            sys.stdin.readline()
            continue
        if words[0] == "observe":
            say("observed: " + " ".join(words[1:]))
            print("ponder", flush=True)
            continue
        say("given: " + line.strip())
        tries = sys.stdin.readline().split()
        if not dug:
            dig()
            dug = True
        print(tries[0], flush=True)


main()
