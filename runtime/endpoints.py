"""The model endpoints a run may contact, and with which key: the evaluator's table, never a
participant's (docs/protocol.md, "Model endpoints and trust").

    table = allowed(["openai=https://api.openai.com/v1", "local=http://127.0.0.1:8080/v1"],
                    ["openai=OPENAI_API_KEY"])
    table == {"local": {"url": "http://127.0.0.1:8080/v1", "key_env": ""},
              "openai": {"url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"}}

A submitted `.model` file names one of these by NAME (runtime/models/config.py); its URL and key
come from here. The table is part of the run's options (runtime/plans.Options.endpoints), stored in
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


class EndpointOptionError(LudicaError, ValueError):
    """An --endpoint or --endpoint-key that cannot be used: the message names the option and the fix."""


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


def allowed(endpoints: Sequence[str], keys: Sequence[str] = ()) -> dict[str, dict[str, str]]:
    """The endpoint table from `--endpoint NAME=URL` and `--endpoint-key NAME=ENVVAR` options
    (checked: EndpointOptionError says which option and how to fix it)."""
    urls = _pairs(endpoints, "--endpoint", "URL")
    envs = _pairs(keys, "--endpoint-key", "ENVVAR")
    table = {name: {"url": url, "key_env": envs.get(name, "")} for name, url in sorted(urls.items())}
    for name in envs:
        if name not in urls:
            raise EndpointOptionError(f"--endpoint-key {name}=...: no --endpoint {name}=URL is given; "
                                      "give the endpoint's URL too")
    check(table)
    return table


def check(table: Mapping[str, Mapping[str, str]]) -> None:
    """A table fit to use (as `allowed` makes, or as a run folder stored it): good names and URLs,
    and a key only where it crosses no network in clear text (https, or this machine)."""
    for name, entry in table.items():
        url, env = entry.get("url", ""), entry.get("key_env", "")
        if not NAME.fullmatch(name) or set(entry) != {"url", "key_env"}:
            raise EndpointOptionError(f"the endpoint table's entry {name!r} is not NAME: {{url, key_env}}")
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
