"""A stand-in for an OpenAI-compatible chat endpoint, for tests: a real HTTP server on 127.0.0.1
(an ephemeral port, in a thread) that speaks what the `openai` client uses of the API, `POST
/v1/chat/completions` (with and without `tools`) and `GET /v1/models`, answering from a script.

    with Standin([Scripted("move: a1"), Scripted(status=429), Scripted(text="b2", delay=0.2)]) as server:
        config = ModelConfig(model=server.model, base_url=server.url, api_key_env="")
        ...
        server.chats        # the body of every chat request it got, in order (the prompts, the feedback)

A script entry is a Scripted answer or a function of the request's body that returns one (to
answer from the position in the prompt). A hostile endpoint is scripted too: `drip` sends the
answer a byte at a time, `raw` sends a body that is not a chat completion. Each chat request takes the next entry; when the script
is spent, `default` answers (a function or a Scripted), or an HTTP 500 says the script ran out.
Every answer carries usage numbers: as scripted, or counted (characters / 4) from the request and
the answer. `reasoning=True` acts as OpenAI's reasoning models do: a chat request with `max_tokens`
is refused (HTTP 400, in their words, REFUSED_MAX_TOKENS) before the script is read. Nothing listens
beyond the loopback.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "standin-model"
REFUSED_MAX_TOKENS = ("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                      "'max_completion_tokens' instead.")


@dataclass
class Scripted:
    """One scripted answer: `text`, and/or `tool_calls` ((name, arguments) pairs: a dict of
    arguments is sent as JSON, a string as it is), or an HTTP error `status` (429, 500...) with
    `headers` (such as retry-after) and the error's `message`; after `delay` seconds; `usage`: (prompt, completion) tokens
    to report (None: counted); `drip`: seconds between the answer's bytes, sent one at a time (0:
    at once); `raw`: the body sent instead of a completion (with `content_type`)."""

    text: str | None = None
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int | None = None
    delay: float = 0.0
    usage: tuple[int, int] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    message: str = ""
    drip: float = 0.0
    raw: bytes | None = None
    content_type: str = "application/json"


Entry = Scripted | Callable[[dict], Scripted]


@dataclass
class Request:
    """A request the stand-in got: method, path, headers and body (parsed JSON; None without one)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def counted(text: str) -> int:
    """The stand-in's token count: one token per 4 characters, at least 1."""
    return max(1, len(text) // 4)


class Standin:
    """The server (see the module's docstring); a context manager that starts and stops it."""

    def __init__(self, script: Iterable[Entry] = (), models: Iterable[str] = (MODEL,), default: Entry | None = None,
                 lists_models: bool = True, reasoning: bool = False):
        """`lists_models` False: GET /v1/models is a 404, as on servers without it; `reasoning`: see
        the module's docstring."""
        self.script: list[Entry] = list(script)
        self.reasoning = reasoning
        self.models = list(models)
        self.lists_models = lists_models
        self.model = self.models[0] if self.models else MODEL
        self.default = default
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def chats(self) -> list[dict]:
        """The bodies of the chat requests, in order."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def add(self, *entries: Entry) -> None:
        with self.lock:
            self.script.extend(entries)

    def __enter__(self) -> Standin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def next_answer(self, body: dict) -> Scripted | None:
        with self.lock:
            entry = self.script.pop(0) if self.script else self.default
        if entry is None:
            return None
        return entry(body) if callable(entry) else entry


def _handler(standin: Standin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # the headers and the body go out as two writes: without TCP_NODELAY the second waits for the
        # client's delayed acknowledgement (40 ms a request on the loopback), which is no model's time
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows what a test prints
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionResetError:
                pass  # the client dropped the connection (an answer it would not read to the end)

        def _send(self, status: int, payload: dict | bytes, headers: dict[str, str] | None = None,
                  drip: float = 0.0, content_type: str = "application/json") -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                if not drip:
                    self.wfile.write(data)
                for i in range(len(data) if drip else 0):  # a byte at a time: each read of the client gets one
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(drip)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer

        def _record(self, body: Any) -> None:
            with standin.lock:
                standin.requests.append(Request(self.command, self.path, dict(self.headers.items()), body))

        def do_GET(self) -> None:
            self._record(None)
            if self.path.rstrip("/").endswith("/v1/models") and standin.lists_models:
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                             "owned_by": "standin"} for m in standin.models]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"null")
            except json.JSONDecodeError:
                body = None
            self._record(body)
            if not self.path.rstrip("/").endswith("/v1/chat/completions") or not isinstance(body, dict):
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            if body.get("model") not in standin.models:
                self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist",
                                           "type": "invalid_request_error", "code": "model_not_found"}})
                return
            if standin.reasoning and "max_tokens" in body:
                self._send(400, {"error": {"message": REFUSED_MAX_TOKENS, "type": "invalid_request_error",
                                           "param": "max_tokens", "code": "unsupported_parameter"}})
                return
            answer = standin.next_answer(body)
            if answer is None:
                self._send(500, {"error": {"message": "the stand-in's script is spent", "type": "server_error"}})
                return
            if answer.delay:
                time.sleep(answer.delay)
            if answer.status is not None:
                self._send(answer.status, {"error": {"message": answer.message or f"scripted status {answer.status}",
                                                     "type": "scripted", "code": answer.status}}, answer.headers)
                return
            self._send(200, answer.raw if answer.raw is not None else _completion(body, answer), answer.headers,
                       answer.drip, answer.content_type)

    return Handler


def _completion(body: dict, answer: Scripted) -> dict:
    calls = [{"id": f"call_{i}", "type": "function",
              "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
             for i, (name, args) in enumerate(answer.tool_calls)]
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if calls:
        message["tool_calls"] = calls
    if answer.usage is not None:
        prompt, completion = answer.usage
    else:
        prompt = counted(json.dumps(body.get("messages", [])))
        completion = counted((answer.text or "") + "".join(c["function"]["arguments"] for c in calls))
    return {"id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}
