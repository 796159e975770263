"""The model endpoints a run may contact, and with which key: the evaluator's table, never a
participant's (docs/protocol.md, "Model endpoints and trust").

    table = allowed(["openai=https://api.openai.com/v1", "local=http://127.0.0.1:8080/v1"],
                    ["openai=OPENAI_API_KEY"])
    table == {"local": {"url": "http://127.0.0.1:8080/v1", "key_env": ""},
              "openai": {"url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"}}

With `--endpoint-param NAME KEY=VALUE` the evaluator sets a provider parameter of every request to
endpoint NAME, one of PARAMS, each bounded (a participant cannot raise what the evaluator pays):

    allowed(["openai=https://api.openai.com/v1"], [], [("openai", "reasoning_effort=low")])
    == {"openai": {"url": "https://api.openai.com/v1", "key_env": "", "params": {"reasoning_effort": "low"}}}

A submitted `.model` file names one of these by NAME (runtime/models/config.py); its URL, key and
parameters come from here. The table is part of the run's options (runtime/plans.Options.endpoints), stored in
the run folder and checked on --resume: the URLs and the names of the environment variables are
stored, never a key's value. Only the standard library here: checking the table needs no `openai`.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from ..gdl.diagnostics import LudicaError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
LOOPBACK_NAMES = ("localhost",)
MAX_ANSWER_TOKENS = 128_000  # the most tokens one answer may be allowed, reasoning included (OpenAI's largest)
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
# the provider parameters the evaluator may set per endpoint: KEY -> (the value's type, its bounds or
# choices, how to say them). Sent with every request to that endpoint, each in the key the API names.
PARAMS: dict[str, tuple[type, tuple, str]] = {
    "temperature": (float, (0.0, 2.0), "a number from 0 to 2"),
    "top_p": (float, (0.0, 1.0), "a number from 0 to 1"),
    "reasoning_effort": (str, REASONING_EFFORTS, "one of " + ", ".join(REASONING_EFFORTS)),
    "max_completion_tokens": (int, (1, MAX_ANSWER_TOKENS),
                              f"an integer from 1 to {MAX_ANSWER_TOKENS} (MAX_ANSWER_TOKENS), the most tokens of one "
                              "answer, reasoning included"),
}


class EndpointOptionError(LudicaError, ValueError):
    """An --endpoint, --endpoint-key or --endpoint-param that cannot be used: the message names the
    option and the fix."""


def is_loopback(url: str) -> bool:
    """Whether the URL's host is this machine (127.0.0.0/8, ::1, localhost): what goes there does
    not leave the machine."""
    host = urlsplit(url).hostname or ""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str | None:
    """What is wrong with an endpoint's URL (None: nothing): it must be an http(s) URL with a host,
    on one line, and without a user or password (the URL is stored in the run folder: a secret
    goes in an environment variable, --endpoint-key)."""
    if any(not ch.isprintable() or ch.isspace() for ch in url):
        return "it holds a blank or a control character (a newline?)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises on a port that is not a number
    except ValueError as e:
        return f"it is not a URL ({e})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "it is not an http(s) URL with a host, such as https://api.openai.com/v1"
    if parts.username is not None or parts.password is not None:
        return "it holds a user or a password, and the URL is stored in the run folder: give the key with " \
               "--endpoint-key NAME=ENVVAR instead"
    if parts.query or parts.fragment:
        return "it holds a query (?...) or a fragment, and the URL is stored in the run folder (a key such as " \
               "?api-key= would be too): give the endpoint's base URL, and its key with --endpoint-key NAME=ENVVAR"
    return None


def _pairs(items: Sequence[str], option: str, value: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        name, sep, rest = item.partition("=")
        # a key's variable is not repeated: what follows NAME= may be the key itself, pasted by mistake
        said = repr(item) if value != "ENVVAR" else repr(f"{name[:40]}=..." if sep else "...")
        if not sep or not NAME.fullmatch(name) or not rest:
            raise EndpointOptionError(f"{option} {said}: give NAME={value}, NAME of letters, digits, '_', '-' or "
                                      "'.' (at most 40)")
        if name in found:
            raise EndpointOptionError(f"{option} {said}: {name} is given twice")
        found[name] = rest
    return found


def param(name: str, key: str, value: object) -> float | int | str:
    """The value of provider parameter `key` of endpoint `name` (text from the command line, or as a
    run folder stored it), checked against PARAMS: EndpointOptionError names the option, the value
    and what it may be."""
    option = f"--endpoint-param {name[:40]} {key[:40]}={str(value)[:40]}"
    if key not in PARAMS:
        raise EndpointOptionError(f"{option}: unknown parameter {key[:40]!r}: the parameters are {', '.join(PARAMS)}")
    kind, bounds, said = PARAMS[key]
    typed: object = value
    if isinstance(value, str) and kind is not str:
        try:
            typed = kind(value)
        except ValueError:
            typed = None
    if kind is float and isinstance(typed, int) and not isinstance(typed, bool):
        typed = float(typed)
    fits = isinstance(typed, kind) and not isinstance(typed, bool) and (
        typed in bounds if kind is str else bounds[0] <= typed <= bounds[1])  # type: ignore[operator]
    if not fits:  # NaN fails the bounds too
        raise EndpointOptionError(f"{option}: {key} must be {said}")
    return typed  # type: ignore[return-value]


def allowed(endpoints: Sequence[str], keys: Sequence[str] = (),
            params: Sequence[Sequence[str]] = ()) -> dict[str, dict]:
    """The endpoint table from `--endpoint NAME=URL`, `--endpoint-key NAME=ENVVAR` and
    `--endpoint-param NAME KEY=VALUE` options (checked: EndpointOptionError says which option and
    how to fix it). An entry has `params` only when some are given (a run made before them reads
    the same)."""
    urls = _pairs(endpoints, "--endpoint", "URL")
    envs = _pairs(keys, "--endpoint-key", "ENVVAR")
    table: dict[str, dict] = {name: {"url": url, "key_env": envs.get(name, "")} for name, url in sorted(urls.items())}
    for name in envs:
        if name not in urls:
            raise EndpointOptionError(f"--endpoint-key {name}=...: no --endpoint {name}=URL is given; "
                                      "give the endpoint's URL too")
    for name, setting in params:
        key, sep, value = setting.partition("=")
        if not sep:
            raise EndpointOptionError(f"--endpoint-param {name[:40]} {setting[:40]}: give KEY=VALUE, KEY one of "
                                      f"{', '.join(PARAMS)}")
        if name not in urls:
            raise EndpointOptionError(f"--endpoint-param {name[:40]} {key[:40]}=...: no --endpoint {name[:40]}=URL is "
                                      "given; give the endpoint's URL too")
        held = table[name].setdefault("params", {})
        if key in held:
            raise EndpointOptionError(f"--endpoint-param {name} {key}=...: {key} is given twice")
        held[key] = param(name, key, value)
    check(table)
    return table


def check(table: Mapping[str, Mapping[str, object]]) -> None:
    """A table fit to use (as `allowed` makes, or as a run folder stored it): good names and URLs,
    a key only where it crosses no network in clear text (https, or this machine), and parameters
    within PARAMS' bounds."""
    for name, entry in table.items():
        url, env, params = entry.get("url", ""), entry.get("key_env", ""), entry.get("params", {})
        if not NAME.fullmatch(name) or not {"url", "key_env"} <= set(entry) <= {"url", "key_env", "params"} or \
                not isinstance(url, str) or not isinstance(env, str) or not isinstance(params, Mapping):
            raise EndpointOptionError(f"the endpoint table's entry {name!r} is not NAME: {{url, key_env, params}}")
        for key, value in params.items():
            param(name, str(key), value)
        problem = url_problem(url)
        if problem is not None:
            raise EndpointOptionError(f"--endpoint {name}={url!r}: {problem}")
        if env and not ENV_NAME.fullmatch(env):
            # its value is not repeated: it may be the key itself, pasted by mistake
            raise EndpointOptionError(f"--endpoint-key {name}=...: give the name of an environment variable "
                                      "(letters, digits and '_'), not the key itself")
        if env and urlsplit(url).scheme == "http" and not is_loopback(url):
            raise EndpointOptionError(f"--endpoint {name}={url}: the key (${env}) would cross the network in clear "
                                      "text: give the endpoint's https:// URL (plain http is for this machine, "
                                      "127.0.0.1 or localhost)")
