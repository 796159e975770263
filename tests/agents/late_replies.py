"""Keeps the referee busy with replies to no request (a wrong sequence number, as fast as it can
write them) while it thinks for ever: the dropped replies must not stop the clocks."""
import json
import os
import struct
import sys


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        data = json.dumps({"op": "move", "seq": -1, "move": str(legal_moves[0])}).encode()
        while True:
            os.write(int(sys.argv[1]), struct.pack(">I", len(data)) + data)
            sum(range(2000))

    return strategy
