"""The Play pages: one game at a time chosen on /play (a stage, its two players: a person, a
built-in or an agent file named with `ludica serve --agent FILE`, the clocks), played in this
server by a background thread running a one-game Run (runtime/run.py) into a folder of its own
in the play store, and watched on /play/{id} over server-sent events, ply by ply.

A person's moves come from the page: a POST of the move is checked against the game's last
position (the legal moves of the side to move, a person's) and put in that seat's WebSource, a
queue its HumanSeat (runtime/human.py) waits on. A game whose pages have all been closed for
`abandon_after` seconds is resigned by its people: it does not hold an agent's process (and a
thread) for the rest of a person's clock. The store is a run folder per game, so a person's
games are recorded like any agent's (name, moves, time), and replayed like any run's."""
from __future__ import annotations

import asyncio
import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, quote

import numpy as np

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from ..budgets import BUDGETS
from ..compiler import playable
from ..files import bounded_json
from ..gdl import ast as A
from ..gdl import load
from ..gdl.ending import counts_pieces
from ..gdl.diagnostics import LudicaError
from ..runtime import Hooks, Run, StagePlan, guarded
from ..runtime.entrants import BUILTINS, HIDDEN_BUILTINS, HUMAN, AgentSpec, check_compiles, resolve, seated
from ..runtime.human import HUMAN_TIME, Turn
from ..runtime.plans import Options
from ..runtime.referee import headline
from . import live
from .runs import RunWatch
from .stages import board_spec

__all__ = ["PlayGame", "PlayRoom", "Refused", "WebSource", "routes"]

_RESIGN = object()  # what the resign button puts in a person's queue
# the new game form's clocks (ludica/budgets.py): a person's 30 minutes (ludica play's too)
FORM = {"game_time": BUDGETS["serve Play page"].game_time, "human_time": HUMAN_TIME,
        "analysis_time": BUDGETS["serve Play page"].analysis_time}
ABANDON_AFTER = 60.0  # seconds with no page following a person's game before they resign it
_LOOK_S = 0.1  # how often a game's event stream looks for new moments (a ply is shown within it)


class Refused(Exception):
    """A move or a game the page asked for that cannot be: `status` the HTTP answer, the message why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class WebSource:
    """A person on the Play page: a MoveSource (runtime/human.py) whose moves the page POSTs. It
    waits for one no longer than the person's time left (then the game is lost on time)."""

    def __init__(self):
        self.moves: queue.Queue = queue.Queue()

    def move(self, turn: Turn) -> str | None:
        try:
            entry = self.moves.get(timeout=max(turn.remaining, 0.0) + 0.05)
        except queue.Empty:
            return None  # past their time: the seat sees it and scores a loss on time
        return None if entry is _RESIGN else entry


# A player's pieces drawn in the colour its name says, for the common colour words; a stage that names
# its players otherwise (x and o, white and black reversed...) gets the discs of a first and a second.
COLOUR_WORDS = {"black": "#111111", "white": "#f4f4f4", "red": "#d32f2f", "blue": "#1e5bd6", "yellow": "#f5c518",
                "green": "#2e7d32", "orange": "#ef7d00", "purple": "#7b3fa0", "pink": "#e91e8c", "brown": "#7a4a24",
                "grey": "#8a8a8a", "gray": "#8a8a8a", "gold": "#d4a017", "silver": "#c0c0c0"}
DEFAULT_COLOURS = (COLOUR_WORDS["black"], COLOUR_WORDS["white"])


def side_colours(names: tuple[str, ...]) -> tuple[str, str]:
    """The two players' piece colours: each its name's colour where both names are distinct colour
    words, else black for the first and white for the second."""
    first, second = (COLOUR_WORDS.get(n.lower()) for n in names[:2])
    if first is None or second is None or first == second:
        return DEFAULT_COLOURS
    return first, second


def sides_of(stage: A.Stage) -> list[dict]:
    """The players as the page shows them: the stage's names, in turn order, with their colours."""
    return [{"name": name, "colour": colour} for name, colour in zip(stage.player_names, side_colours(stage.player_names))]


def _cells_of(move: str) -> list[str]:
    """The cells a move names, for the last-move marker ("d3", "b2-b3" both ends, a pass none)."""
    return [] if move == "pass" else move.split("-")


@dataclass
class PlayGame:
    """One game of the Play page: its seats' names, the moments seen so far (each a dict the page
    reads), and, for a person's seat, the source their moves go to."""

    number: int
    title: str
    players: tuple[str, str]
    folder: Path
    sources: dict[int, WebSource]  # seat -> a person's source
    moments: list[dict] = field(default_factory=list)
    end: dict | None = None  # {"result", "reason", "log"} when the game is over (or failed)
    awaiting: bool = False  # a person's move is on its way to their seat: a second one is refused
    changed: threading.Condition = field(default_factory=threading.Condition)
    abandon_after: float = ABANDON_AFTER
    watchers: int = 0  # the pages following the game now (their event streams)
    unwatched_since: float = field(default_factory=time.monotonic)  # since when none has (a new game: none yet)
    abandoned: bool = False
    sides: list[dict] = field(default_factory=lambda: [{"name": "black", "colour": DEFAULT_COLOURS[0]},
                                                       {"name": "white", "colour": DEFAULT_COLOURS[1]}])
    counts: bool = True  # the stage's results count pieces: the page shows each player's
    stage_file: Path | None = None  # for the link to its rules

    def watch(self, game, title: str, number: int, moment) -> None:
        """Hooks.on_ply: the position the page draws next. On a stage with hidden information a game
        with a person shows (and sends the page) only a person's view and their own tries, until it
        is over: with two people at one page, the view of the one to move."""
        ply = moment.last
        truth = getattr(game, "truth", game)
        viewer = self._viewer(moment)
        if viewer is None:
            spec = board_spec(truth, moment.state)
        else:
            spec = board_spec(truth, np.array(moment.view_cells(viewer), dtype=np.int32))
        # a person to move, asked for it (a forced pass is played for them, unasked)
        people = moment.to_move is not None and moment.to_move in self.sources and list(moment.legal) != ["pass"]
        hidden_try = viewer is not None and ply is not None and ply.player != viewer
        spec["last"] = _cells_of(ply.move) if ply and not hidden_try else []
        # a person's legal moves: the page lights their cells (a move's from cell, then its to cells)
        move = None if ply is None else "a try" if hidden_try else ply.move + (" (refused)" if "refused" in ply.note else "")
        # a person on a hidden stage is told the tries they know of, not how many the opponent made:
        # an opponent's try that leaves the opponent to move and tells the person nothing is not sent
        count = moment.ply if viewer is None or moment.known is None else moment.known[viewer]
        if viewer is not None and moment.tells_nothing_to(viewer, self.moments[-1]["ply"] if self.moments else None):
            return
        # nor the opponent's clock: the time its tries took would count them
        remaining = [r if viewer is None or seat == viewer else None for seat, r in enumerate(moment.remaining)]
        shown = {"ply": count, "board": spec, "remaining": remaining, "to_move": moment.to_move,
                 "person": people, "legal": list(moment.legal) if people else [], "move": move,
                 "mover": None if ply is None else ply.player, "roll": moment.roll}
        with self.changed:
            self.moments.append(shown)
            self.awaiting = False
            self.changed.notify_all()

    def _viewer(self, moment) -> int | None:
        """Whose view a hidden-information game shows now: a person's (None: the truth, for a game of
        agents alone, or once it is over)."""
        if moment.seen is None or not self.sources or moment.to_move is None:
            return None
        if len(self.sources) == 1:
            return next(iter(self.sources))
        return moment.to_move

    def finish(self, end: dict) -> None:
        with self.changed:
            if self.abandoned:
                end = end | {"log": [*end["log"], f"(the game's page was closed for {self.abandon_after:g} s: "
                                                  "the person resigned)"]}
            self.end = end
            self.changed.notify_all()

    def joined(self) -> None:
        """A page began to follow the game."""
        with self.changed:
            self.watchers += 1

    def left(self) -> None:
        """A page stopped following it: once none has for `abandon_after` seconds, its people resign."""
        with self.changed:
            self.watchers -= 1
            if self.watchers:
                return
            self.unwatched_since = time.monotonic()
        self.abandon_if_unwatched()

    def abandon_if_unwatched(self) -> None:
        """In `abandon_after` seconds: if no page has followed the game since now (none opened, or
        all closed), its people resign it. A game of agents alone is never abandoned."""
        if self.sources and self.end is None:
            timer = threading.Timer(self.abandon_after, self._abandon)
            timer.daemon = True
            timer.start()

    def _abandon(self) -> None:
        with self.changed:
            if self.watchers or self.end is not None or self.abandoned:
                return  # a page came back (a reload), or the game ended meanwhile
            if time.monotonic() - self.unwatched_since < self.abandon_after * 0.999:
                return  # a page came and went since: the timer its leaving started decides
            self.abandoned = True
            for source in self.sources.values():  # each person resigns at their next move (or now)
                source.moves.put(_RESIGN)

    def play_move(self, text: str) -> None:
        """A person's move from the page, checked against the last position; else Refused."""
        with self.changed:
            now = self._person_to_move()
            move = text.strip().lower()
            if move not in now["legal"]:
                raise Refused(422, f"{text.strip()[:40]} is not a legal move now")
            self.awaiting = True
            self.sources[now["to_move"]].moves.put(move)

    def resign(self) -> None:
        """The person to move gives up."""
        with self.changed:
            now = self._person_to_move()
            self.awaiting = True
            self.sources[now["to_move"]].moves.put(_RESIGN)

    def _person_to_move(self) -> dict:
        """The last position, where a person is to move and has not answered yet; else Refused."""
        if self.end is not None:
            raise Refused(409, "the game is over")
        now = self.moments[-1] if self.moments else None
        if now is None or not now["person"]:
            raise Refused(409, "it is not a person's turn")
        if self.awaiting:
            raise Refused(409, "a move is already on its way")
        return now


class PlayRoom:
    """The games of the Play page, numbered from 1, each played in its own thread into a run
    folder `store/game-N`; `agents`: the agent files the page offers besides the built-ins."""

    def __init__(self, store: Path, agents: tuple[Path, ...] = (), sandbox: bool = True,
                 abandon_after: float = ABANDON_AFTER, served: tuple[Path, ...] = ()):
        self.store, self.sandbox, self.abandon_after = Path(store), sandbox, abandon_after
        self.served = served  # the folders the pages show (runs, stage sets): no agent's, as the store is not
        chosen = [resolve(str(p)) for p in agents]
        models = [str(a.path) for a in chosen if a.kind == "model"]
        if models:  # the endpoints a model may use are the evaluator's (--endpoint), which the page does not take
            raise LudicaError(f"--agent {models[0]}: the Play page plays no language model (its endpoint and key are "
                              "given with --endpoint and --endpoint-key, which serve does not take); play it with "
                              "ludica play STAGE --black FILE.model --white AGENT --endpoint NAME=URL")
        self.agents = {a.name: a for a in (check_compiles(a) for a in chosen)}
        self.games: dict[int, PlayGame] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def choices(self) -> list[str]:
        """Whom a seat may hold: a person, the built-ins, the agent files given."""
        return [HUMAN, *BUILTINS, *HIDDEN_BUILTINS, *self.agents]

    def entrant(self, choice: str) -> AgentSpec:
        if choice == HUMAN:
            return AgentSpec(HUMAN, None, source=WebSource())
        if choice in BUILTINS or choice in HIDDEN_BUILTINS:
            return resolve(choice)
        if choice in self.agents:
            return self.agents[choice]
        raise Refused(400, f"no agent {choice[:40]!r} to play: choose one of {', '.join(self.choices())}")

    def start(self, stage_file: Path, black: str, white: str, game_time: float, human_time: float,
              analysis_time: float) -> PlayGame:
        """A game begun in a thread of its own; its page watches it."""
        stage = load(stage_file)
        seats = list(seated(self.entrant(black), self.entrant(white)))
        with self._lock:
            number = next(self._numbers)
            folder = self.store / f"game-{number}"
            while folder.exists():  # a store used before: its games stay
                number = next(self._numbers)
                folder = self.store / f"game-{number}"
        sources = {k: s.source for k, s in enumerate(seats) if isinstance(s.source, WebSource)}  # the people
        game = PlayGame(number, stage.name, (seats[0].name, seats[1].name), folder, sources,
                        abandon_after=self.abandon_after, sides=sides_of(stage), counts=counts_pieces(stage),
                        stage_file=stage_file)
        self.games[number] = game
        game.abandon_if_unwatched()  # a game whose page is never opened does not wait out a person's clock
        options = Options(games=1, analysis_time=analysis_time, game_time=game_time, human_time=human_time,
                          sandbox=self.sandbox)
        threading.Thread(target=self._play, args=(game, stage, seats, options, stage_file), name=f"ludica-play-{number}",
                         daemon=True).start()
        return game

    def _play(self, game: PlayGame, stage, seats: list[AgentSpec], options: Options, stage_file: Path) -> None:
        compiled = playable(stage)
        plan = StagePlan(stage, ((seats[0].name, seats[1].name),), 1, stage.name, options.analysis_time)
        ended: list[dict] = []
        try:
            with Run.open(game.folder) as one_game:
                one_game.start([stage], seats, options, secrets=guarded.of_run(self.store, stage_files=[stage_file])
                               + tuple(guarded.Secret(f, "a folder the pages show", True) for f in self.served))
                one_game.play([plan], seats, hooks=Hooks(
                    on_game=ended.append, on_ply=lambda title, n, moment: game.watch(compiled, title, n, moment)))
        except Exception as error:  # the page says what went wrong rather than waiting for ever
            game.finish({"result": "the game could not be played", "reason": "error", "log": [str(error)]})
            return
        record = ended[0]["record"]
        ending = record.ending
        said = headline(stage.player_names, record.players, record.result, record.reason, len(record.plies), ending)
        game.finish({"result": said, "reason": record.reason,
                     "shown": list(ending.cells) if ending else [], "log": list(record.log)}
                    | ({"scores": list(record.scores)} if game.counts else {}))


def _same_origin(request: Request) -> bool:
    """A POST from one of this server's own pages: its Origin is this server (a local tool's CSRF guard)."""
    origin = request.headers.get("origin")
    return origin is not None and origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


# The Play page's POSTs are a new game's form (a stage, two players, three clocks) or a move: a few
# hundred bytes. A body past this is refused, and never read whole: memory stays that of a form.
MAX_BODY = 16 * 1024
MAX_FIELDS_DEPTH = 4  # a JSON body is one flat object


async def _body(request: Request) -> bytes:
    """A POST's body, read up to MAX_BODY bytes (by its Content-Length before a byte is read, and
    as it streams in for a body that does not say); Refused(413) past it."""
    too_large = Refused(413, f"the request's body is past {MAX_BODY:,} bytes, the most a form or a move of "
                             "the Play page needs: send only its fields")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def _fields(request: Request) -> dict[str, str]:
    """A POST's fields: a form's (urlencoded) or a JSON object's."""
    body = await _body(request)
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = bounded_json(body.decode("utf-8") or "{}", max_chars=MAX_BODY, max_depth=MAX_FIELDS_DEPTH)
        except ValueError as err:  # UnicodeDecodeError too
            raise Refused(400, f"the body is not a JSON object of fields ({str(err)[:120]})") from None
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    return {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}


def _number(fields: dict, name: str, default: float) -> float:
    try:
        value = float(fields.get(name, default))
    except ValueError:
        raise Refused(400, f"{name}: give a number of seconds") from None
    if not 0 < value <= 86400:
        raise Refused(400, f"{name}: give seconds between 0 and 86400")
    return value


def routes(room: PlayRoom, sets: list, page: Callable, scripts: Callable, resamples: int) -> list[Route]:
    """The Play pages' routes; `page` and `scripts` are web/app.py's (a page of the templates, and
    the static scripts it inlines)."""

    watches: dict[int, RunWatch] = {}  # a finished game's replay, by its number

    def refused(error: Refused) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    def game_of(request: Request) -> PlayGame:
        game = room.games.get(request.path_params["game"])
        if game is None:
            raise HTTPException(404, "no such game")
        return game

    async def choose(request: Request):
        stages = [(f"{k}/{p.name}", f"{s.title}: {s.name(p)}") for k, s in enumerate(sets) for p in s.files]
        return page("serve_play_new.html.j2", scripts("serve_play.js"), stages=stages, choices=room.choices(), store=room.store,
                    form=FORM,
                    games=sorted(room.games.values(), key=lambda g: -g.number))

    async def start(request: Request):
        if not _same_origin(request):
            return JSONResponse({"error": "refused: not from this server's page"}, status_code=403)
        try:
            fields = await _fields(request)
            k, _, name = fields.get("stage", "").partition("/")
            chosen = sets[int(k)] if k.isdigit() and int(k) < len(sets) else None
            path = next((p for p in chosen.files if p.name == name), None) if chosen else None
            if path is None:
                raise Refused(400, "no such stage")
            game = await run_in_threadpool(
                room.start, path, fields.get("black", HUMAN), fields.get("white", "random"),
                _number(fields, "game_time", FORM["game_time"]), _number(fields, "human_time", FORM["human_time"]),
                _number(fields, "analysis_time", FORM["analysis_time"]))
        except Refused as error:
            return refused(error)
        except LudicaError as error:  # a served stage that does not load: said, not a server error
            return JSONResponse({"error": str(error)}, status_code=400)
        return RedirectResponse(f"/play/{game.number}", status_code=303)

    async def watch(request: Request):
        game = game_of(request)
        rules = next((f"/stages/{k}/{quote(p.name)}#stage-rules" for k, s in enumerate(sets) for p in s.files
                      if p == game.stage_file), None)
        return page("serve_play.html.j2", scripts("board.js", "serve_play.js"), game=game, rules=rules,
                    shown={"sides": game.sides, "counts": game.counts})

    async def events(request: Request):
        game = game_of(request)

        async def stream():
            sent, quiet = 0, 0.0
            game.joined()
            try:
                while not await request.is_disconnected():
                    with game.changed:
                        new, end = game.moments[sent:], game.end
                    for moment in new:
                        yield live.message("moment", moment)
                    sent += len(new)
                    if end is not None and sent == len(game.moments):
                        yield live.message("end", end)
                        return
                    quiet = 0.0 if new else quiet + _LOOK_S
                    if quiet >= live.KEEPALIVE_S:
                        quiet = 0.0
                        yield live.KEEPALIVE
                    await asyncio.sleep(_LOOK_S)
            finally:
                game.left()
        return live.response(stream())

    async def move(request: Request):
        if not _same_origin(request):
            return JSONResponse({"error": "refused: not from this server's page"}, status_code=403)
        game = game_of(request)
        try:
            fields = await _fields(request)
            if fields.get("resign"):
                game.resign()
            else:
                game.play_move(fields.get("move", ""))
        except Refused as error:
            return refused(error)
        return JSONResponse({"ok": True})

    async def replay(request: Request):
        game = game_of(request)
        if game.end is None:
            raise HTTPException(409, "the game is still being played")
        # a game's views, computed once and held (RunWatch recomputes only if its store changes)
        watch = watches.setdefault(game.number, RunWatch(game.folder, resamples, replay_page=f"/play/{game.number}/replay"))
        held = await run_in_threadpool(watch.views)
        return page("serve_play_replay.html.j2", scripts("board.js", "replay.js"), game=game,
                    replay=held.context()["replay"])

    return [Route("/play", choose), Route("/play", start, methods=["POST"]),
            Route("/play/{game:int}", watch), Route("/play/{game:int}/events", events),
            Route("/play/{game:int}/move", move, methods=["POST"]), Route("/play/{game:int}/replay", replay)]
