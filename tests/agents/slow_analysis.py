"""Analyses for ever (busy), past the analysis budget."""


def analyze(stage, api, clock):
    while True:
        api.playouts(stage.initial_state, 10, seed=0)
