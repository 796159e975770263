"""analyze raises."""


def analyze(stage, api, clock):
    raise ValueError("cannot analyse, on purpose")
