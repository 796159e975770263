"""A spy agent program (docs/protocol.md), run as `python3 spy.py` by its agent file: while it
prepares it takes every route of the Python spy agent, tests/agents/spy.py, which the test copies
beside it as spy_routes.py with its TOKEN (and sockets) filled in; what they say (`tried:`,
`leak:`, `saw:`, `done`) goes to standard error, which ludica keeps as its analysis output. Then it
answers `ready` and plays the first legal action of every turn, until `quit`.

Standard output is the protocol's channel: the routes' prints are sent to standard error, and
each answer is written whole, in one write."""
import os
import sys

import spy_routes as routes

protocol, sys.stdout = sys.stdout, sys.stderr  # the routes print(); only answers go to the referee


def answer(text):
    os.write(protocol.fileno(), (text + "\n").encode())


def lines():
    for line in sys.stdin:
        line = line.strip()
        if line:
            yield line


def main():
    incoming = lines()
    next(incoming, None)  # the stage's name
    next(incoming, None)  # prepare B
    routes.analyze(None, None, None)  # every route, then `done` (no re-draw: it has no API here)
    answer("ready")
    for line in incoming:
        if line == "quit":
            return
        if line.startswith("start"):
            continue
        if line == "end of game":
            next(incoming, None)  # the score
            continue
        actions = next(incoming, "").split()  # the line after the position
        answer(actions[0] if actions else "pass")


main()
