"""Writes forged replies straight onto the worker's channel: an analysis reply with a non-string
error, then, as its first move, a message nested too deep for any JSON reader."""
import json
import os
import struct
import sys
import time


def _raw(data: bytes):
    os.write(int(sys.argv[1]), struct.pack(">I", len(data)) + data)


def analyze(stage, api, clock):
    _raw(json.dumps({"op": "analysed", "seq": 2, "ok": False, "error": {"x": 1}}).encode())
    _raw(json.dumps({"op": "analysed", "seq": 2, "ok": True, "error": 12345678}).encode())

    def strategy(state, legal_moves, clock):
        _raw(b"[" * 200_000 + b"]" * 200_000)
        time.sleep(30)

    return strategy
