"""Does its work when its file is loaded, before analyze: that is analysis time too."""
import time

t = time.process_time()
while time.process_time() - t < 30:
    pass


def analyze(stage, api, clock):
    return lambda state, legal_moves, clock: legal_moves[0]
