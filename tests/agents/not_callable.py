"""analyze returns something that is not a strategy."""


def analyze(stage, api, clock):
    return {"not": "a strategy"}
