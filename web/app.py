"""The application of `ludica serve`: create_app(folders) is a Starlette (ASGI) application that
uvicorn runs; each page's data is gathered by its module (stages.py, runs.py), laid out by the
report's Jinja environment (evaluation/page.py: autoescaped) with the templates
evaluation/templates/serve_*.html.j2, and refreshed live by live.py's server-sent events.

Every page carries the report's Content-Security-Policy: the only scripts that run are our static
files, inlined and allowed by their hash; nothing is loaded from elsewhere, so the pages work with no
network; the one connection a page may open is to this server (its live events). A request that
names another host than this machine's loopback names is refused (HostGuard): a page elsewhere
cannot reach the server by rebinding its own name to 127.0.0.1."""
from __future__ import annotations

import functools
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..evaluation.page import content_security_policy, render
from ..gdl.diagnostics import LudicaError
from . import live, play
from .folders import Folders
from .runs import RunWatch
from .stages import MANIFEST_NUMBERS, StageSet, shown, stage_sets, stage_view

__all__ = ["LOOPBACK_NAMES", "HostGuard", "create_app"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # the names a browser on this machine reaches it by

# every page's own: its tables' scroll cue, boards drawn, a run's views kept live
PAGE_SCRIPTS = ("tables.js", "serve.js")


def scripts(*names: str) -> tuple[str, ...]:
    """The static files `names` a page inlines (board.js, the one board renderer; replay.js), then
    the page's own scripts."""
    return (*names, *PAGE_SCRIPTS)


def render_page(template: str, scripts: tuple[str, ...] = (), **context) -> HTMLResponse:
    """A page of evaluation/templates/; its policy allows `scripts` (static files it inlines). The
    context's `play`: whether the navigation offers the Play pages."""
    policy = content_security_policy(list(scripts)) + "; connect-src 'self'"
    return HTMLResponse(render(template, scripts=scripts, policy=policy, **context),
                        headers={"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff"})


class HostGuard:
    """ASGI middleware: answer only requests whose Host header names one of `hosts` (any port),
    else 421 saying why. Without it a web page elsewhere could make its own name resolve to
    127.0.0.1 (DNS rebinding) and read or play through this server as if it were one of its pages."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]):
        self.app, self.hosts = app, frozenset(h.lower() for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            named = host_name(dict(scope["headers"]).get(b"host", b"").decode("latin-1"))
            if named not in self.hosts:
                answer = PlainTextResponse(
                    f"refused: this server answers to {', '.join(sorted(self.hosts))} alone, not to "
                    f"{named[:80]!r}: open it as http://127.0.0.1:PORT/ (or serve with --allow-remote)",
                    status_code=421)
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


UNREADABLE = 422  # a run folder's store (or a stage set) that cannot be read: its message, never a 500


async def unreadable(request: Request, error: Exception) -> PlainTextResponse:
    """A page whose run folder holds a store that is damaged or was edited (a StoreError, or any
    LudicaError of what it holds): what is wrong and where, as text (it may quote what a hand put
    in the store, so it is never markup)."""
    return PlainTextResponse(f"this page cannot be shown: {error}", status_code=UNREADABLE,
                             headers={"X-Content-Type-Options": "nosniff"})


def host_name(header: str) -> str:
    """The host a Host header names, without its port ("[::1]:8000" -> "[::1]"), in lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[:header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def create_app(folders: Folders, *, resamples: int = 200, poll: float = 1.0,
               room: play.PlayRoom | None = None, hosts: Sequence[str] | None = LOOPBACK_NAMES) -> ASGIApp:
    """The application over the stage folders and run folders `folders` (web/folders.sort_folders);
    `resamples`: the bootstrap's for the runs' ratings; `poll`: seconds between looks at a run's store;
    `room`: the Play pages' games (web/play.py; None: no Play pages); `hosts`: the names a request
    may call it by (HostGuard; None: any, for a server reachable from elsewhere)."""
    page = functools.partial(render_page, play=room is not None)  # the navigation offers Play with a room
    sets = stage_sets(folders.stage_sets)
    watches = [RunWatch(f, resamples, replay_page=f"/runs/{k}/replay") for k, f in enumerate(folders.runs)]

    def stage_set(request: Request) -> tuple[int, StageSet]:
        k = request.path_params["set"]
        if not 0 <= k < len(sets):
            raise HTTPException(404, f"no stage set {k}")
        return k, sets[k]

    def watch(request: Request) -> tuple[int, RunWatch]:
        k = request.path_params["run"]
        if not 0 <= k < len(watches):
            raise HTTPException(404, f"no run {k}")
        return k, watches[k]

    async def index(request: Request):
        return page("serve_index.html.j2", sets=sets, runs=[w.folder for w in watches])

    async def stages_page(request: Request):
        return page("serve_stages.html.j2", scripts(), sets=sets, shown=shown, k_means=MANIFEST_NUMBERS["K"])

    async def stage_page(request: Request):
        k, chosen = stage_set(request)
        path = next((p for p in chosen.files if p.name == request.path_params["file"]), None)
        if path is None:
            raise HTTPException(404, "no such stage in this set")
        view = await run_in_threadpool(stage_view, chosen, path)
        return page("serve_stage.html.j2", scripts("board.js"), set_index=k, stage_set=chosen, stage=view,
                    shown=shown)

    async def runs_page(request: Request):
        return page("serve_runs.html.j2", runs=[w.folder for w in watches])

    async def run_page(request: Request):
        k, w = watch(request)
        held = await run_in_threadpool(w.views)
        return page("serve_run.html.j2", scripts("board.js"), run_index=k, folder=w.folder, live=held, **held.context())

    async def run_views(request: Request):
        k, w = watch(request)
        held = await run_in_threadpool(w.views)
        return page("serve_run_views.html.j2", run_index=k, folder=w.folder, live=held, **held.context())

    async def run_events(request: Request):
        _, w = watch(request)
        return live.response(live.events(w.folder, request.is_disconnected, poll))

    async def replay_page(request: Request):
        k, w = watch(request)
        held = await run_in_threadpool(w.views)
        return page("serve_replay.html.j2", scripts("board.js", "replay.js"), run_index=k, folder=w.folder,
                    title=held.context()["title"], replay=held.context()["replay"])

    app = Starlette(routes=[
        Route("/", index),
        Route("/stages", stages_page),
        Route("/stages/{set:int}/{file}", stage_page),
        Route("/runs", runs_page),
        Route("/runs/{run:int}", run_page),
        Route("/runs/{run:int}/views", run_views),
        Route("/runs/{run:int}/events", run_events),
        Route("/runs/{run:int}/replay", replay_page),
        *(play.routes(room, sets, page, scripts, resamples) if room is not None else ()),
    ], exception_handlers={LudicaError: unreadable})
    return app if hosts is None else HostGuard(app, hosts)
