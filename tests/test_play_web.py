"""The Play pages of `ludica serve` at the ASGI level (Starlette's TestClient, no socket): the
form, a game started by a POST, its live events, a person's moves POSTed (legal, illegal, not their
turn, after the end, from another origin), resigning, and the game in its store with the person's
name, moves and time."""
from __future__ import annotations

import html
import json
import re
import sqlite3
import time
import warnings

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra installs it)")
with warnings.catch_warnings():  # newer Starlette asks for httpx's successor, which Debian and PyPI mirrors lack
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from ludica import gdl, stages
from ludica.compiler import compile as compile_stage
from ludica.runtime import entrants as agents
from ludica.runtime.referee import GameRecord, Moment, Ply
from ludica.runtime.runfolder import STORE
from ludica.web import PlayRoom, create_app, sort_folders
from ludica.web.play import PlayGame, Refused, WebSource

HOSTILE = '<img src=x onerror="alert(1)">'
LOCAL = "http://127.0.0.1"  # the server answers to its loopback names alone
ORIGIN = {"Origin": LOCAL}  # the TestClient's own origin: a POST from the page itself


@pytest.fixture
def client(tmp_path) -> TestClient:
    room = PlayRoom(tmp_path / "store", sandbox=False)
    with TestClient(create_app(sort_folders([]), resamples=20, room=room), base_url=LOCAL) as c:
        c.room = room
        yield c


def start(client, black="human", white="random", **more) -> int:
    fields = {"stage": "0/tic-tac-toe.gdl", "black": black, "white": white, "game_time": "5",
              "human_time": "60", "analysis_time": "0.5"} | more
    answer = client.post("/play", data=fields, headers=ORIGIN, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return int(answer.headers["location"].rsplit("/", 1)[1])


def wait(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def person_to_move(game) -> dict:
    wait(lambda: game.end is not None or (game.moments and game.moments[-1]["person"] and not game.awaiting))
    return game.moments[-1]


def test_form_offers_stages_seats_and_agent_files_names_as_text(tmp_path):
    agent = tmp_path / "mine.py"
    agent.write_text(f"NAME = {HOSTILE!r}\n" + agents.resolve("random").path.read_text())
    room = PlayRoom(tmp_path / "store", (agent,), sandbox=False)
    with TestClient(create_app(sort_folders([]), room=room), base_url=LOCAL) as c:
        page = c.get("/play")
        number = start(c, black=HOSTILE, white="human")
        shown = c.get(f"/play/{number}").text
    assert page.status_code == 200 and '<a href="/play">Play</a>' in page.text
    assert 'value="0/tic-tac-toe.gdl" selected' in page.text
    assert "<option selected>human</option>" in page.text and "<option>mcts</option>" in page.text
    assert HOSTILE not in page.text and html.escape(HOSTILE) in page.text
    assert HOSTILE not in shown and html.escape(HOSTILE) in shown


def test_a_person_plays_tic_tac_toe_by_posting_moves(client):
    number = start(client)
    game = client.room.games[number]
    assert client.get(f"/play/{number}").status_code == 200
    while True:
        now = person_to_move(game)
        if game.end is not None:
            break
        assert now["to_move"] == 0 and now["legal"]
        answer = client.post(f"/play/{number}/move", json={"move": now["legal"][0]}, headers=ORIGIN)
        assert answer.status_code == 200, answer.text
        wait(lambda: game.end is not None or not game.awaiting)
    wait(lambda: game.end is not None)
    assert game.end["reason"] == "normal" and game.end["log"]
    # the page's events: every moment, then the end
    stream = client.get(f"/play/{number}/events").text
    assert stream.count("event: moment") == len(game.moments) and stream.rstrip().endswith("}")
    assert "event: end" in stream
    # after the end: refused
    late = client.post(f"/play/{number}/move", json={"move": "a1"}, headers=ORIGIN)
    assert late.status_code == 409 and "over" in late.json()["error"]
    # in the store like any agent's game: the person's name, the moves, the time
    with sqlite3.connect(game.folder / STORE) as db:
        black, white, plies, moves, black_time = db.execute(
            "SELECT black, white, plies, moves, black_time FROM games").fetchone()
    assert (black, white) == ("human", "random")
    assert plies == len(game.moments) - 1 and moves and black_time > 0
    replay = client.get(f"/play/{number}/replay")
    assert replay.status_code == 200
    # the replay's clocks: the person's of the human_time, the agent's of its game time
    shown = json.loads(re.search(r'id="replay-data" type="application/json">(.*?)</script>', replay.text, re.S)[1])
    assert [g["budget"] for g in shown] == [[60.0, 5.0]]


def test_illegal_move_not_your_turn_and_other_origins_are_refused(client):
    number = start(client, black="random", white="human")
    game = client.room.games[number]
    now = person_to_move(game)
    assert now["to_move"] == 1
    taken = next(c for c, v in zip(_names(now["board"]), now["board"]["cells"]) if v != ".")
    illegal = client.post(f"/play/{number}/move", json={"move": taken}, headers=ORIGIN)
    assert illegal.status_code == 422 and "not a legal move" in illegal.json()["error"]
    nonsense = client.post(f"/play/{number}/move", json={"move": "<b>zz</b>"}, headers=ORIGIN)
    assert nonsense.status_code == 422
    foreign = client.post(f"/play/{number}/move", json={"move": now["legal"][0]},
                          headers={"Origin": "http://elsewhere.example"})
    assert foreign.status_code == 403
    assert client.post(f"/play/{number}/move", json={"move": now["legal"][0]}).status_code == 403
    assert client.post(f"/play/{number}/move", json={"move": now["legal"][0]},
                       headers=ORIGIN).status_code == 200
    now = person_to_move(game)
    assert client.post(f"/play/{number}/move", json={"resign": "1"}, headers=ORIGIN).status_code == 200
    wait(lambda: game.end is not None)
    assert game.end["reason"] == "resign"


def test_a_second_move_before_the_first_is_played_is_refused(tmp_path):
    source = WebSource()
    game = PlayGame(1, "t", ("human", "random"), tmp_path, {0: source},
                    [{"ply": 0, "person": True, "to_move": 0, "legal": ["a1", "b1"]}])
    game.play_move(" A1 ")
    with pytest.raises(Refused) as second:
        game.play_move("b1")
    assert second.value.status == 409 and source.moves.qsize() == 1 and source.moves.get() == "a1"


def test_a_game_whose_pages_all_closed_is_resigned_by_its_person(tmp_path):
    room = PlayRoom(tmp_path / "store", sandbox=False, abandon_after=0.3)
    with TestClient(create_app(sort_folders([]), room=room), base_url=LOCAL) as c:
        game = room.games[start(c)]
        game.joined(), game.joined()  # two pages (tabs) follow it
        person_to_move(game)
        game.left()
        time.sleep(0.6)
        assert game.end is None  # one page is still there
        game.left()
        game.joined()  # a reload: the page is back within the grace
        time.sleep(0.6)
        assert game.end is None and not game.abandoned
        game.left()  # closed for good
        wait(lambda: game.end is not None, timeout=30)
    assert game.abandoned and game.end["reason"] == "resign"
    assert "page was closed for 0.3 s" in game.end["log"][-1]
    with sqlite3.connect(game.folder / STORE) as db:
        assert db.execute("SELECT reason, result FROM games").fetchone()[0] == "resign"


def test_a_game_whose_page_is_never_opened_is_resigned_by_its_person(tmp_path):
    room = PlayRoom(tmp_path / "store", sandbox=False, abandon_after=0.5)
    with TestClient(create_app(sort_folders([]), room=room), base_url=LOCAL) as c:
        game = room.games[start(c)]
        wait(lambda: game.end is not None, timeout=30)
    assert game.abandoned and game.end["reason"] == "resign"


def test_a_game_of_agents_alone_is_not_abandoned(tmp_path):
    game = PlayGame(1, "t", ("random", "greedy"), tmp_path, {}, abandon_after=0.0)
    game.joined()
    game.left()
    time.sleep(0.1)
    assert not game.abandoned


def test_agents_against_each_other_send_every_ply(client):
    number = start(client, black="random", white="greedy")
    game = client.room.games[number]
    wait(lambda: game.end is not None)
    assert [m["ply"] for m in game.moments] == list(range(len(game.moments)))
    assert not any(m["person"] or m["legal"] for m in game.moments)
    nobody = client.post(f"/play/{number}/move", json={"move": "a1"}, headers=ORIGIN)
    assert nobody.status_code == 409


def test_a_broken_stage_is_refused_with_its_error(tmp_path):
    folder = tmp_path / "stages"
    folder.mkdir()
    (folder / "broken.gdl").write_text('game "broken"\nboard square 3\nplayers a b\nmove teleport\n')
    with TestClient(create_app(sort_folders([folder]), room=PlayRoom(tmp_path / "store", sandbox=False)), base_url=LOCAL) as c:
        answer = c.post("/play", data={"stage": "1/broken.gdl"}, headers=ORIGIN)
    assert answer.status_code == 400 and answer.json()["error"]


def test_start_refusals(client):
    assert client.post("/play", data={"stage": "0/tic-tac-toe.gdl"}).status_code == 403
    bad = client.post("/play", data={"stage": "0/nothing.gdl"}, headers=ORIGIN)
    assert bad.status_code == 400 and "stage" in bad.json()["error"]
    who = client.post("/play", data={"stage": "0/tic-tac-toe.gdl", "black": "nobody"}, headers=ORIGIN)
    assert who.status_code == 400 and "no agent" in who.json()["error"]
    assert client.get("/play/99").status_code == 404


def _names(spec: dict) -> list[str]:
    return [f"{'abcdefghijklmnopqrstuvwxyz'[c]}{r + 1}" for r in range(spec["rows"]) for c in range(spec["cols"])]


def test_a_forced_pass_is_shown_as_a_pass_with_no_cell_marked(tmp_path):
    compiled = compile_stage(gdl.load(stages.path("tic-tac-toe")))
    state = compiled.initial_state()
    board = compiled.board(state).tolist()
    record = GameRecord("t", "h", ("human", "random"), 1, board, plies=[Ply(1, "pass", 0, 0.0, board)])
    game = PlayGame(1, "t", record.players, tmp_path, {0: WebSource()})
    game.watch(compiled, "t", 0, Moment(record, 1, state, board, (60.0, 5.0), 0, ("a1", "b2")))
    shown = game.moments[-1]
    assert shown["move"] == "pass" and shown["mover"] == 1 and shown["board"]["last"] == []
    assert shown["person"] and shown["legal"] == ["a1", "b2"]


def test_the_players_are_coloured_as_their_names_say_else_a_first_and_a_second():
    from ludica.web.play import DEFAULT_COLOURS, side_colours
    assert side_colours(("red", "blue")) == ("#d32f2f", "#1e5bd6")
    assert side_colours(("white", "black")) == ("#f4f4f4", "#111111")  # Breakthrough: white moves first
    assert side_colours(("x", "o")) == side_colours(("red", "x")) == side_colours(("red", "Red")) == DEFAULT_COLOURS


def test_the_rules_link_of_a_stage_whose_file_name_needs_escaping_finds_its_rules(tmp_path):
    """A served stage's file name with a space, a '#' or a '?' is escaped in the Play page's rules
    link (as the stages page escapes it): unescaped, '#1.gdl' was read as the link's fragment."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my stage #1?.gdl").write_text(stages.path("tic-tac-toe").read_text())
    room = PlayRoom(tmp_path / "store", sandbox=False)
    with TestClient(create_app(sort_folders([folder]), resamples=20, room=room), base_url=LOCAL) as c:
        chosen = re.search(r'value="(\d+/my stage #1\?\.gdl)"', html.unescape(c.get("/play").text)).group(1)
        number = start(c, black="random", stage=chosen)
        link = html.unescape(re.search(r'href="(/stages/[^"]*#stage-rules)"', c.get(f"/play/{number}").text).group(1))
        assert link.endswith("/my%20stage%20%231%3F.gdl#stage-rules"), link
        rules = c.get(link.removesuffix("#stage-rules"))
    assert rules.status_code == 200 and 'id="stage-rules"' in rules.text


def test_a_person_on_a_stage_with_dice_is_sent_the_roll_they_threw(client):
    """Each moment of a dice race tells the page the side to move's roll (the status line says it);
    a finished game's last moment has none."""
    number = start(client, black="human", white="random", stage="0/dice-race.gdl")
    game = client.room.games[number]
    first = person_to_move(game)
    assert first["roll"] in range(1, 7) and first["legal"]
    assert all(move.split("-")[1][0] == "abcdefghijkl"[first["roll"]] for move in first["legal"])
    client.post(f"/play/{number}/move", json={"resign": "1"}, headers=ORIGIN)
    wait(lambda: game.end is not None)
