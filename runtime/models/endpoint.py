"""One OpenAI-compatible chat endpoint, through the official `openai` client: a chat call with
retries, and a check that the endpoint is up and serves the model, made before a run starts.

    endpoint = Endpoint(config)
    reply = endpoint.chat([{"role": "user", "content": "..."}], tools=None, limit=9.5)
    reply.text, reply.tool_calls, reply.tokens_in, reply.tokens_out, reply.latency

The retries are this module's loop, not the client's (`max_retries=0`): each attempt is timed on
its own, so a model is charged the wall seconds of the attempt that answered and never the
back-off between attempts nor the attempts that failed in transport (which the client's own loop
would fold into one duration), and the attempts are counted. Retried: a dropped or refused
connection, a request timeout, 408, 409, 429 and 5xx (as the client itself would), waiting
`backoff`·2^k seconds (or what a Retry-After header asks, up to MAX_WAIT). Anything else (400,
401, 404: a wrong model, a refused key) fails at once: asking again would get the same answer,
save a 400 that names a parameter the endpoint takes instead (`max_completion_tokens` for
`max_tokens`, no temperature): asked again so at once, and remembered for the run (Accepts).
The evaluator's parameters (--endpoint-param, config.params) go with every request.

What the endpoint can do to the referee is bounded below the client, at the sockets (_Guard): each
request has a total wall deadline (httpx's timeouts are per read, so an endpoint that drips a byte
every second would never reach one) and may read MAX_ANSWER_BYTES at most (the answer is read
whole before it is parsed, and sent back in the conversation). And what leaves for the endpoint
is bounded there too (_Transport): requests go to its origin alone, with the key the evaluator
gave for it and a few plain headers, whatever the `openai` client picks up from the environment
(OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_CUSTOM_HEADERS...).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpcore2
import httpx2
import openai

from ...gdl.diagnostics import LudicaError
from .config import NO_KEY, ModelConfig, ModelConfigError

BACKOFF = 1.0  # seconds before the first retry; doubled each time
MAX_WAIT = 30.0  # the longest wait between two attempts, whatever a server asks
CLOCK_MARGIN = 0.05  # an attempt bounded by the clock may run this much past it: its charge is then surely over
RETRIED_STATUS = (408, 409, 429)  # and every 5xx
# a request bound by the model's clock retries only while the whole of it, failed attempts and
# waits, can end within the clock's seconds left and this many more: failures of the line are
# not charged, but they may not hold the run either
FORGIVEN = 60.0
MAX_ANSWER_BYTES = 1 << 20  # bytes one answer may take on the wire (a move's answer is a few hundred)
SENT_BACK = 16_000  # characters of an answer's text sent back in the conversation
MAX_TOOL_CALLS = 32  # tool calls of one answer read (the analysis allows 20 in all by default)
# the only headers a request carries (and Authorization, set by _Transport): nothing the client
# adds from the environment or about this machine
PLAIN_HEADERS = frozenset({"host", "accept", "accept-encoding", "connection", "content-type", "content-length",
                           "user-agent"})


class EndpointError(LudicaError):
    """A chat request that failed for good: refused (a 4xx), or a transport failure that outlasted
    the retries. `status` is the HTTP status (None: no answer at all); `failure`: what happened,
    without the URL ("HTTP 404: ...")."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 1, failure: str = ""):
        super().__init__(message)
        self.status, self.attempts, self.failure = status, attempts, failure or message


class EndpointDown(LudicaError):
    """The endpoint cannot serve a run: not answering, refusing the key, or not serving the model.
    The message names the URL, what happened and what to check."""


class OutOfTime(LudicaError):
    """An attempt bounded by the model's clock (`limit`) that took longer: `seconds` of it, charged."""

    def __init__(self, seconds: float):
        super().__init__(f"no answer within {seconds:.2f} s")
        self.seconds = seconds


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for: its id (to answer it), the function and its arguments
    (JSON text, as the model wrote it: data, parsed with json.loads and checked by the caller)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """A chat answer: its text ("" if none), the tool calls asked for, the tokens the endpoint
    counted (in: the prompt; out: the answer), `latency` (wall seconds of the attempt that
    answered), `attempts` (requests sent: 1 + retries) and `waited` (seconds of back-off), and
    `finish` (the endpoint's finish reason)."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    tokens_in: int
    tokens_out: int
    latency: float
    attempts: int = 1
    waited: float = 0.0
    finish: str = ""

    def message(self, tools: bool = True) -> dict[str, Any]:
        """The answer as the assistant's message of the conversation (to send it back): its text cut
        at SENT_BACK characters, and its tool calls unless `tools` is False (a move's feedback:
        calls nobody offered would need answers of their own)."""
        text = self.text if len(self.text) <= SENT_BACK else \
            self.text[:SENT_BACK] + f"\n[... {len(self.text) - SENT_BACK} more characters cut]"
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tools and self.tool_calls:
            message["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments}}
                                     for c in self.tool_calls]
        return message


class _Guard:
    """The bounds of the request in hand, for every connection of one client: a wall deadline and
    the bytes it may still read (none between requests: a pooled connection idles unbounded)."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.left = 0
        self.refused = ""  # why the answer in hand is refused for good (asking again would get it again)

    @contextmanager
    def bounded(self, seconds: float, max_bytes: int = MAX_ANSWER_BYTES) -> Iterator[None]:
        self.deadline, self.left, self.refused = time.monotonic() + seconds, max_bytes, ""
        try:
            yield
        finally:
            self.deadline = None

    def timeout(self, asked: float | None, error: type[Exception]) -> float | None:
        """The timeout of one socket operation: what httpx asked, within the deadline (`error` when it is past)."""
        if self.deadline is None:
            return asked
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise error("the request's deadline passed")
        return left if asked is None else min(asked, left)

    def count(self, size: int) -> None:
        if self.deadline is None:
            return
        self.left -= size
        if self.left < 0:
            self.refused = (f"the answer is over {MAX_ANSWER_BYTES} bytes (the most one answer may take): lower "
                            "max_tokens, or check the server")
            raise httpcore2.ReadError(f"the answer is over {MAX_ANSWER_BYTES} bytes")


class _Stream(httpcore2.NetworkStream):
    """A connection whose every read and write keeps within the guard's bounds."""

    def __init__(self, inner: httpcore2.NetworkStream, guard: _Guard):
        self.inner, self.guard = inner, guard

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self.inner.read(max_bytes, self.guard.timeout(timeout, httpcore2.ReadTimeout))
        self.guard.count(len(data))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, self.guard.timeout(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        timeout = self.guard.timeout(timeout, httpcore2.ConnectTimeout)
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, timeout), self.guard)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    """httpcore's sockets, each connection a _Stream."""

    def __init__(self, guard: _Guard):
        self.inner, self.guard = httpcore2.SyncBackend(), guard

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        timeout = self.guard.timeout(timeout, httpcore2.ConnectTimeout)
        return _Stream(self.inner.connect_tcp(host, port, timeout, local_address, socket_options), self.guard)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _Transport(httpx2.HTTPTransport):
    """Requests to the endpoint's origin alone (no redirect elsewhere), carrying PLAIN_HEADERS and
    the endpoint's own key, over _Backend's bounded sockets."""

    def __init__(self, config: ModelConfig, guard: _Guard):
        super().__init__()
        # httpx takes no network backend: its pool is made again with ours (the attribute is httpx's own)
        self._pool = httpcore2.ConnectionPool(ssl_context=httpx2.create_ssl_context(), network_backend=_Backend(guard))
        url = httpx2.URL(config.base_url)
        self.origin, self.guard = (url.scheme, url.host, url.port), guard
        self.key = config.api_key() if config.api_key_env else ""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        if (url.scheme, url.host, url.port) != self.origin:
            raise httpx2.ConnectError(f"not sent to {url.scheme}://{url.host}: only the endpoint's own origin is "
                                      "contacted", request=request)
        for name in list(request.headers):
            if name.lower() not in PLAIN_HEADERS:
                del request.headers[name]
        if self.key:
            request.headers["Authorization"] = f"Bearer {self.key}"
        # MAX_ANSWER_BYTES counts the bytes on the wire: a compressed answer would decode past it (1 MiB
        # of gzip is a gigabyte of text), so none is asked for, and one sent all the same is refused
        request.headers["Accept-Encoding"] = "identity"
        response = super().handle_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            response.close()
            self.guard.refused = (f"the answer is compressed ({encoding[:40]!r}), which ludica does not ask for: an "
                                  f"answer is read {MAX_ANSWER_BYTES} bytes at most, uncompressed; check the server")
            raise httpx2.DecodingError(self.guard.refused, request=request)
        return response


def client(config: ModelConfig, timeout: float | None = None, guard: _Guard | None = None) -> openai.OpenAI:
    """The openai client of an endpoint the evaluator allowed (config resolved: ModelConfig.resolved),
    no retries of its own (see the module's docstring), its sockets bounded by `guard`."""
    if not config.base_url:
        raise ModelConfigError(f"{config.source or config.name}: no endpoint: the model's config is not resolved "
                               "against the run's endpoints (ModelConfig.resolved)")
    transport = _Transport(config, guard or _Guard())
    return openai.OpenAI(base_url=config.base_url, api_key=NO_KEY, max_retries=0,
                         timeout=config.request_timeout if timeout is None else timeout,
                         http_client=openai.DefaultHttpxClient(transport=transport, follow_redirects=False))


@dataclass
class Accepts:
    """What an endpoint turned out to take from a model's requests, learnt from its 400s: OpenAI's
    reasoning models refuse `max_tokens` for `max_completion_tokens`, and any temperature but their
    own (a temperature the evaluator set is never left out: its refusal is an error)."""

    tokens_key: str = "max_tokens"
    temperature: bool = True


# What each endpoint (its name, URL, model and the evaluator's params there) takes, learnt once for a run:
# the run holds one (runtime/run.Run.learnt), which every seat's Endpoint and the check before the run
# share, so a reasoning model's 400 is met once, not once a stage; never the process's (`ludica serve`
# plays many runs, whose endpoints and params may differ).
Learnt = dict[tuple, Accepts]


def _learnt_key(config: ModelConfig) -> tuple:
    return (config.endpoint, config.base_url, config.model, tuple(sorted((k, repr(v)) for k, v in config.params.items())))

# the evaluator's parameters (runtime/endpoints.PARAMS) sent as they are; the others are the config's own
# temperature and max_tokens (ModelConfig.resolved)
AS_GIVEN = ("top_p", "reasoning_effort")


class Endpoint:
    """Chat calls to one model (`config`) with retries; `sleep` is how back-off waits (tests may
    pass one that records); `forgiven`: the wall seconds past the clock's that one request may take
    in failed attempts and back-off, which are not charged (FORGIVEN); `learnt`: the run's table of what
    its endpoints take (Learnt; none given: this Endpoint's own)."""

    def __init__(self, config: ModelConfig, backoff: float = BACKOFF, sleep: Callable[[float], None] = time.sleep,
                 forgiven: float = FORGIVEN, learnt: Learnt | None = None):
        self.config, self.backoff, self.sleep, self.forgiven = config, backoff, sleep, forgiven
        self.guard = _Guard()
        self.client = client(config, guard=self.guard)
        # the evaluator's max_completion_tokens is sent in its own name from the first request
        first = "max_completion_tokens" if "max_completion_tokens" in config.params else "max_tokens"
        self.accepts = ({} if learnt is None else learnt).setdefault(_learnt_key(config), Accepts(first))
        self.sent = 0  # chat requests sent, whatever came of them (the model's seat counts them: Usage.requests)

    def close(self) -> None:
        """Let go of the HTTP connections."""
        self.client.close()

    def chat(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None,
             limit: float | None = None, max_tokens: int | None = None) -> Reply:
        """One answer to `messages` (offering `tools`, OpenAI function specs). `limit`: the seconds
        left on the model's clock: an attempt that takes longer raises OutOfTime (not retried: the
        model was slow, the line was not). EndpointError when the request fails for good."""
        config = self.config
        waited, attempt, first = 0.0, 0, time.monotonic()
        while True:
            accepts = self.accepts
            request: dict[str, Any] = {"model": config.model, "messages": list(messages),
                                       accepts.tokens_key: config.max_tokens if max_tokens is None else max_tokens,
                                       **{k: v for k, v in config.params.items() if k in AS_GIVEN}}
            if accepts.temperature:
                request["temperature"] = config.temperature
            if tools:
                request["tools"] = list(tools)
            attempt += 1
            timeout = config.request_timeout
            bound_by_clock = limit is not None and limit + CLOCK_MARGIN < timeout
            if limit is not None:
                if limit <= 0:
                    raise OutOfTime(0.0)
                timeout = min(timeout, limit + CLOCK_MARGIN)
            started = time.monotonic()
            try:
                with self.guard.bounded(timeout):  # in wall time, whatever the endpoint does
                    self.sent += 1
                    response = self.client.chat.completions.create(**request, timeout=timeout)
                reply = _reply(response, time.monotonic() - started, attempt, waited)
            except openai.APITimeoutError:
                if bound_by_clock:
                    raise OutOfTime(time.monotonic() - started) from None
                failure, status, asked = f"no answer within {timeout:g} s (request_timeout)", None, None
            except openai.APIConnectionError as e:
                if self.guard.refused:  # asking again would read as much again
                    raise EndpointError(f"{config.base_url}: {self.guard.refused}", None, attempt) from None
                failure, status, asked = f"no connection ({_cause(e)})", None, None
            except openai.APIStatusError as e:
                status = e.status_code
                failure = f"HTTP {status}: {_said(e)}"
                if status == 400 and self._adapt(_said(e)):
                    attempt -= 1  # not a failure of the line: the same request, in the words this endpoint takes
                    continue
                if status not in RETRIED_STATUS and status < 500:
                    raise EndpointError(f"{config.base_url} refused the request ({failure})", status, attempt,
                                        failure) from None
                asked = _retry_after(e)
            except openai.APIError as e:  # an answer the client could not read
                failure, status, asked = f"a malformed answer ({str(e)[:200]})", None, None
            except ValueError as e:  # the client hands on json's own error
                failure, status, asked = f"an answer that is not an OpenAI chat completion (its body is not JSON: " \
                                         f"{str(e)[:200]})", None, None
            except Malformed as e:
                failure, status, asked = f"an answer that is not an OpenAI chat completion ({e})", None, None
            else:
                return reply
            tried = f"after {attempt} attempt{'s' if attempt > 1 else ''}"
            if attempt > config.retries:
                raise EndpointError(f"{config.base_url}: {failure}, {tried}", status, attempt, failure)
            wait = min(MAX_WAIT, asked if asked is not None else self.backoff * 2 ** (attempt - 1))
            spent = time.monotonic() - first
            if limit is not None and spent + wait > self.forgiven:  # the next attempt may take all of `limit`
                raise EndpointError(f"{config.base_url}: {failure}, {tried} in {spent:.1f} s: another would take the "
                                    f"request past the {limit:.1f} s left on the clock and {self.forgiven:g} s more "
                                    "(FORGIVEN)", status, attempt)
            self.sleep(wait)
            waited += wait

    def _adapt(self, refusal: str) -> bool:
        """Whether a 400's message says a parameter this endpoint does not take, now left out (or
        named as it asks) for the rest of the run."""
        said, accepts = refusal.lower(), self.accepts
        if "max_completion_tokens" in said and accepts.tokens_key == "max_tokens":
            accepts.tokens_key = "max_completion_tokens"
            return True
        if "temperature" in said and accepts.temperature and "temperature" not in self.config.params and \
                any(w in said for w in ("unsupported", "not support", "only the default")):
            accepts.temperature = False
            return True
        return False


class Malformed(LudicaError):
    """An answer the client read that is not a chat completion (a page of text, a JSON of another shape)."""


def _reply(response: Any, latency: float, attempts: int, waited: float) -> Reply:
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):  # the client returns a body that is not JSON as its text
        raise Malformed(f"its body is not a JSON object with `choices`: {str(response)[:100]!r}")
    message = choices[0].message if choices else None
    asked = (getattr(message, "tool_calls", None) or [])[:MAX_TOOL_CALLS]  # the rest are not read, nor answered
    calls = tuple(ToolCall(str(c.id), str(c.function.name), str(c.function.arguments or ""))
                  for c in asked if getattr(c, "function", None) is not None)
    usage = getattr(response, "usage", None)
    return Reply(text=str(getattr(message, "content", None) or ""), tool_calls=calls,
                 tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
                 tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
                 latency=latency, attempts=attempts, waited=waited,
                 finish=str(choices[0].finish_reason or "") if choices else "")


def _retry_after(error: openai.APIStatusError) -> float | None:
    """The seconds the server asks to wait (retry-after-ms, as OpenAI sends it, or Retry-After in
    seconds; a date is ignored). A longer wait than MAX_WAIT is cut to it, not ignored: the
    back-off's first seconds would only be refused again."""
    for header, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        try:
            value = float(error.response.headers.get(header, "")) * scale
        except (ValueError, AttributeError):
            continue
        if value >= 0 and value == value:  # not NaN
            return min(value, MAX_WAIT)
    return None


def _said(error: openai.APIStatusError) -> str:
    return str(error.message)[:300]


def _cause(error: Exception) -> str:
    cause = error.__cause__ or error.__context__
    return str(cause or error)[:300]


def check(config: ModelConfig, timeout: float = 10.0, learnt: Learnt | None = None) -> list[str]:
    """Fail early and clearly (EndpointDown) when the endpoint does not answer, refuses the key or
    does not serve the model; returns the models it lists (empty: it lists none, and a one-token
    chat found the model). A run calls this before it starts, what the endpoint takes learnt into
    its `learnt`. A missing key is a ModelConfigError."""
    url, where = config.base_url, config.source or config.name
    option = f"--endpoint {config.endpoint or 'NAME'}={url}"
    limit, guard = min(timeout, config.request_timeout), _Guard()
    api = client(config, limit, guard)
    try:
        with guard.bounded(limit):
            listed: list[str] | None = [str(m.id) for m in api.models.list().data]
    except openai.NotFoundError:
        listed = None  # a server without GET /models: a one-token chat asks for the model instead
    except openai.APIConnectionError as e:
        raise EndpointDown(f"{url}: the model endpoint does not answer ({_cause(e)}): check that its server is "
                           f"running and reachable, and {option} (its URL usually ends in /v1)") from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
        raise EndpointDown(f"{url}: the key was refused (HTTP {e.status_code}: {_said(e)}): check the key in "
                           f"${config.api_key_env}") from None
    except openai.APIStatusError as e:
        raise EndpointDown(f"{url}: listing the models failed (HTTP {e.status_code}: {_said(e)}): check "
                           f"{option} and the server's log") from None
    except (openai.APIError, ValueError, AttributeError) as e:  # not JSON, or JSON of another shape
        raise EndpointDown(f"{url}: the answer to GET /models is not the OpenAI API's ({str(e)[:200]}): check "
                           f"that {option} is an OpenAI-compatible endpoint (its URL usually ends in /v1)") from None
    if listed is not None:
        if config.model in listed or f"{config.model}:latest" in listed:  # Ollama's implicit tag
            if config.params:  # the evaluator's parameters tried before the run, not refused at its first move
                _ping(config, limit, where, learnt)
            return listed
        shown = ", ".join(listed[:20]) + (", ..." if len(listed) > 20 else "") if listed else "none"
        raise EndpointDown(f"{url}: the endpoint does not serve the model {config.model!r} (it lists: {shown}): "
                           f"fix `model` in {where}")
    return _ping(config, limit, where, learnt)


def _ping(config: ModelConfig, limit: float, where: str, learnt: Learnt | None) -> list[str]:
    """A one-token chat, as the run's requests are made (Endpoint.chat): what the endpoint turns out
    to take is learnt for the run, and a parameter it refuses fails here, before anything is played."""
    url, given = config.base_url, ", ".join(f"{k}={v}" for k, v in config.params.items())
    endpoint = Endpoint(replace(config, request_timeout=limit, retries=0), learnt=learnt)
    try:
        endpoint.chat([{"role": "user", "content": "ping"}], max_tokens=1)
    except EndpointError as e:
        if e.status is None:
            raise EndpointDown(f"{url}: the model endpoint does not answer ({e.failure}): check that its server is "
                               "running and reachable") from None
        fix = f"check `model` in {where}" + (f", and the evaluator's --endpoint-param {config.endpoint or 'NAME'} "
                                              f"({given})" if given else "")
        raise EndpointDown(f"{url}: a one-token chat with {config.model!r} failed ({e.failure}): {fix}") from None
    finally:
        endpoint.close()
    return []
