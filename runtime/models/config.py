"""A language model as an entrant: its `.model` file (a small TOML file) read into a ModelConfig.

    # gpt.model
    model = "gpt-4o-mini"
    endpoint = "openai"           # one the evaluator allows: --endpoint openai=https://api.openai.com/v1
    max_tokens = 400
    [prices]                      # optional: currency units per million tokens
    input = 0.15
    output = 0.60

    config = load_config("gpt.model", endpoints)   # ModelConfigError names the file, the key and the fix

A `.model` file is a participant's, so it decides only what is the participant's to decide: the
model, how it plays, and which of the evaluator's endpoints serves it (by the evaluator's NAME;
none: the run's only one). Where a request goes, with which key, with which provider parameters
(--endpoint-param: they replace the file's `temperature` and `max_tokens`), and how much of the
rules the model is told are the evaluator's (runtime/endpoints.py, --rules): `base_url`,
`api_key_env` and `rules` in a file are refused with the option that took their place. Every key but `model` has
a default; an unknown key is an error (a typo must not silently fall back to a default).
"""
from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ...gdl.diagnostics import LudicaError
from ..endpoints import MAX_ANSWER_TOKENS, PARAMS, url_problem

RULE_TIERS = ("text", "gdl", "none")
SUFFIX = ".model"
NO_KEY = "no-key"  # what the client is given for an endpoint that takes no key (it insists on one)


class ModelConfigError(LudicaError, ValueError):
    """A `.model` file (or a ModelConfig) that cannot be used: the message names the file, the key,
    what is wrong and how to fix it."""


@dataclass(frozen=True)
class Prices:
    """What a model's tokens cost, in currency units per million tokens."""

    input: float
    output: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1e6


@dataclass(frozen=True)
class ModelConfig:
    """One language model behind an OpenAI-compatible chat endpoint, and how it plays.

    name: the entrant's name (default: the file's stem); model: the model's name at the endpoint;
    endpoint: the evaluator's name of the endpoint ("": the run's only one, or made in code);
    base_url: the endpoint (`.../v1`) and api_key_env: the environment variable holding its key (""
    if it takes none), both from the evaluator's table (`resolved`), never from the file ("" until
    resolved); temperature (0 to 2); max_tokens: the most tokens of one answer (MAX_ANSWER_TOKENS at
    most); params: the evaluator's provider parameters at its endpoint (runtime/endpoints.PARAMS; its
    temperature and max_completion_tokens are also the config's own, resolved); list_legal: whether the move
    prompts list the legal moves (the LLM arenas do not); analysis_calls: the tool calls it may make while
    analysing; analysis_tokens: the tokens (in and out) the analysis conversation may use;
    game_tokens: the tokens one game may use (0: no limit); request_timeout: seconds one request may
    take; retries: transport retries of one request (429, 5xx, timeouts, a dropped connection);
    prices: what its tokens cost (None: not counted); source: the file it was read from ("" if made
    in code), for messages.
    """

    model: str
    base_url: str = ""
    name: str = "model"
    endpoint: str = ""
    api_key_env: str = ""
    temperature: float = 0.0
    max_tokens: int = 400
    list_legal: bool = False
    analysis_calls: int = 20
    analysis_tokens: int = 60_000
    game_tokens: int = 0
    request_timeout: float = 60.0
    retries: int = 3
    prices: Prices | None = None
    source: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = self.source or "the model's settings"
        if not self.model.strip():
            raise ModelConfigError(f"{where}: `model` is empty: give the model's name at the endpoint, "
                                   'such as model = "gpt-4o-mini"')
        problem = url_problem(self.base_url) if self.base_url else None
        if problem is not None:
            raise ModelConfigError(f"{where}: the endpoint's URL {self.base_url!r}: {problem}")
        for key, low in (("temperature", 0.0), ("max_tokens", 1), ("analysis_calls", 0), ("analysis_tokens", 0),
                         ("game_tokens", 0), ("retries", 0)):
            if getattr(self, key) < low:
                raise ModelConfigError(f"{where}: `{key}` is {getattr(self, key)}: it must be at least {low}")
        # what one request may cost is bounded as the evaluator's own parameters are (runtime/endpoints.PARAMS)
        for key, high in (("temperature", PARAMS["temperature"][1][1]), ("max_tokens", MAX_ANSWER_TOKENS)):
            if not getattr(self, key) <= high:
                raise ModelConfigError(f"{where}: `{key}` is {getattr(self, key)}: it must be at most {high:g}")
        if not self.request_timeout > 0 or not math.isfinite(self.request_timeout):
            raise ModelConfigError(f"{where}: `request_timeout` is {self.request_timeout}: give a number of "
                                   "seconds above 0")

    def api_key(self, environ: Mapping[str, str] | None = None) -> str:
        """The key the client sends: read from `api_key_env` (a placeholder if the endpoint takes
        none). ModelConfigError says which variable to export when it is not set."""
        if not self.api_key_env:
            return NO_KEY
        key = (os.environ if environ is None else environ).get(self.api_key_env, "")
        if not key:
            raise ModelConfigError(
                f"{self.source or self.name}: the key of the endpoint {self.endpoint or self.base_url} is read from "
                f"${self.api_key_env}, which is not set: export {self.api_key_env}=<your key> (or leave out "
                f"--endpoint-key {self.endpoint or 'NAME'}=... if the endpoint takes no key)")
        return key

    def resolved(self, endpoints: Mapping[str, Mapping[str, Any]]) -> ModelConfig:
        """This model at the endpoint it names in the evaluator's table `endpoints` (runtime/endpoints.py:
        NAME -> {url, key_env, params}): its URL, key variable and parameters are the table's (the
        evaluator's temperature and max_completion_tokens replace the file's temperature and
        max_tokens). ModelConfigError when the run allows no endpoint, or not the one named."""
        where = self.source or self.name
        how = ("the evaluator allows an endpoint with --endpoint NAME=URL (and its key, if it takes one, with "
               "--endpoint-key NAME=ENVVAR)")
        if not endpoints:
            raise ModelConfigError(f"{where}: the run allows no model endpoint: {how}")
        names = ", ".join(sorted(endpoints))
        name = self.endpoint
        if not name:
            if len(endpoints) > 1:
                raise ModelConfigError(f"{where}: the run allows several endpoints ({names}): say which serves the "
                                       'model with endpoint = "NAME"')
            (name,) = endpoints
        if name not in endpoints:
            raise ModelConfigError(f"{where}: `endpoint` is {name!r}, which the run does not allow (it allows: "
                                   f"{names}): {how}")
        entry = endpoints[name]
        params = dict(entry.get("params", {}))
        return replace(self, endpoint=name, base_url=entry["url"], api_key_env=entry["key_env"], params=params,
                       temperature=params.get("temperature", self.temperature),
                       max_tokens=params.get("max_completion_tokens", self.max_tokens))


# key: (the types a TOML value may have, how to say them); `prices` is a table, checked apart
_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "name": ((str,), "a string"),
    "model": ((str,), "a string"),
    "endpoint": ((str,), "a string: the evaluator's name of an endpoint"),
    "temperature": ((int, float), "a number"),
    "max_tokens": ((int,), "an integer"),
    "list_legal": ((bool,), "true or false"),
    "analysis_calls": ((int,), "an integer"),
    "analysis_tokens": ((int,), "an integer"),
    "game_tokens": ((int,), "an integer (0: no limit)"),
    "request_timeout": ((int, float), "a number of seconds"),
    "retries": ((int,), "an integer"),
}
_REQUIRED = ("model",)
# keys a .model file once had, now the evaluator's: what took their place
_EVALUATORS = {
    "base_url": "where requests go is the evaluator's choice, not a .model file's: the evaluator allows an "
                "endpoint with --endpoint NAME=URL, and the file names it with endpoint = \"NAME\"",
    "api_key_env": "which key is sent is the evaluator's choice, not a .model file's: the evaluator gives an "
                   "endpoint's key with --endpoint-key NAME=ENVVAR; remove the line",
    "rules": "how much of the rules a model is told is now the evaluator's choice (--rules text|gdl|none, "
             "default text), not a .model file's: remove the line",
    **{key: f"the provider parameter {key} is the evaluator's to set (it pays for the requests), not a .model "
            f"file's: the evaluator gives it with --endpoint-param NAME {key}=VALUE; remove the line"
       for key in PARAMS if key not in _KEYS},
}


def load_config(path: str | Path, endpoints: Mapping[str, Mapping[str, Any]] | None = None) -> ModelConfig:
    """The ModelConfig of a `.model` file, at its endpoint in the evaluator's table `endpoints`
    (None: not resolved, base_url ""; to check the file alone); ModelConfigError for anything wrong
    in it, or an endpoint the run does not allow."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ModelConfigError(f"{path}: cannot read the model file ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ModelConfigError(f"{path}: not valid TOML ({e}): a .model file holds lines like "
                               'model = "gpt-4o-mini"') from None
    config = config_from(data, str(path), default_name=path.stem)
    return config if endpoints is None else config.resolved(endpoints)


def config_from(data: Mapping[str, object], source: str, default_name: str = "model") -> ModelConfig:
    """A ModelConfig from a `.model` file's table (`source` names it in messages)."""
    known = sorted([*_KEYS, "prices"])
    for key in data:
        if key in _EVALUATORS:
            raise ModelConfigError(f"{source}: `{key}`: {_EVALUATORS[key]}")
        if key not in _KEYS and key != "prices":
            raise ModelConfigError(f"{source}: unknown key `{key}`: the keys are {', '.join(known)}")
    for key in _REQUIRED:
        if key not in data:
            raise ModelConfigError(f"{source}: `{key}` is missing: add a line such as model = \"gpt-4o-mini\"")
    values: dict[str, object] = {}
    for key, value in data.items():
        if key == "prices":
            values["prices"] = _prices(value, source)
            continue
        types, said = _KEYS[key]
        # TOML's true is a bool, and bool is an int in Python: a flag is not a number
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ModelConfigError(f"{source}: `{key}` is {_shown(value)}: it must be {said}")
        values[key] = float(value) if float in types and isinstance(value, int) else value  # 60 means 60.0
    values.setdefault("name", default_name)
    names = {f.name for f in fields(ModelConfig)}
    return ModelConfig(**{k: v for k, v in values.items() if k in names}, source=source)  # type: ignore[arg-type]


def _prices(value: object, source: str) -> Prices:
    if not isinstance(value, dict) or set(value) != {"input", "output"}:
        raise ModelConfigError(f"{source}: `prices` must be a table with `input` and `output` (currency units per "
                               "million tokens), such as: [prices] input = 0.15 output = 0.60")
    numbers = []
    for key in ("input", "output"):
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, (int, float)) or number < 0:
            raise ModelConfigError(f"{source}: `prices.{key}` is {_shown(number)}: it must be a number, at least 0")
        numbers.append(float(number))
    return Prices(numbers[0], numbers[1])


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
