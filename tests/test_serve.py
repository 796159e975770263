"""`ludica serve` at the ASGI level (Starlette's TestClient, no socket): every page over a real small
tournament's run folder, a sampled set's manifest and a broken stage; the live events as the store
changes; agents' names as text; the refusal to listen beyond the loopback."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import re
import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra installs it)")
with warnings.catch_warnings():  # newer Starlette asks for httpx's successor, which Debian and PyPI mirrors lack
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from ludica import cli, gdl, stages
from ludica.commands.serve import check_host, is_loopback
from ludica.gdl import LudicaError
from ludica.runtime import Options, tournament
from ludica.runtime import entrants as agents
from ludica.web import create_app, sort_folders
from ludica.web.live import events, store_state
from ludica.web.runs import RunWatch

LOCAL = "http://127.0.0.1"  # the server answers to its loopback names alone (TestClient's own is testserver)
HOSTILE = '<img src=x onerror="alert(1)">&amp;'
BROKEN = 'game "broken"\nboard square 3\nblocked j9\nplayers a b\nmove place empty\nend board-full: draw\n'
VARIANT = 'game "Tic-tac-toe variant 1"\nboard square 4\nplayers x o\nmove place empty\nend line 3: mover wins\nend board-full: draw\n'


def play_tournament(out: Path, names=("random", HOSTILE), games: int = 1) -> Path:
    """A real round robin on tic-tac-toe, in this process; HOSTILE is the random agent renamed."""
    random = agents.resolve("random")
    specs = [agents.AgentSpec(n, random.path) if n != "random" else random for n in names]
    tournament.run([stages.path("tic-tac-toe")], specs, out,
                   Options(games=games, analysis_time=1, game_time=2, seed=1, sandbox=False))
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("serve")
    sampled = root / "sampled"
    sampled.mkdir()
    (sampled / "variant-001.gdl").write_text(VARIANT)
    (sampled / "manifest.json").write_text(json.dumps({"stages": [
        {"file": "variant-001.gdl", "name": "Tic-tac-toe variant 1", "changes": "board square 3 → board square 4",
         "bits": 9.6, "K": 17.5, "tau": 123.25, "figures": {"completion": 1.0, "balance": 0.58}}]}))
    broken = root / "broken"
    broken.mkdir()
    (broken / "bad.gdl").write_text(BROKEN)
    return {"run": play_tournament(root / "run"), "sampled": sampled, "broken": broken}


@pytest.fixture(scope="module")
def client(folders) -> TestClient:
    app = create_app(sort_folders([folders["run"], folders["sampled"], folders["broken"]]), resamples=20)
    return TestClient(app, base_url=LOCAL)


def test_the_index_names_every_folder(client, folders):
    page = client.get("/").text
    assert "Bundled stages" in page and str(folders["sampled"]) in page and '<a href="/runs/0">' in page
    assert 'href="/play"' not in page  # an application without a play room offers no Play pages


def test_the_stages_page_lists_every_set(client):
    page = client.get("/stages").text
    assert page.count("<section id=\"set-") == 3
    assert all(f'/stages/0/{p.name}"' in page for p in stages.bundled())
    assert "board square 3 → board square 4" in page  # a sampled set: what each variant changed
    assert ">Small Board (6x6)</a>" in page and ">Tic-tac-toe variant 1</a>" in page  # the games' names
    assert ">broken</a>" in page  # a stage with errors: its `game` line's name still


def test_a_bundled_stage_page(client):
    response = client.get("/stages/0/tic-tac-toe.gdl")
    assert response.status_code == 200
    page = response.text
    assert re.search(r"Description length</th><td>\d+\.\d\d bits", page)
    assert re.search(r"τ \(cost of a random game\)</th><td>\d+\.\d", page)
    spec = json.loads(re.search(r'<script id="stage-board-data" type="application/json">(.*?)</script>', page)[1])
    assert spec == {"rows": 3, "cols": 3, "hex": False, "wrap": False, "players": ["x", "o"], "cells": "." * 9}
    assert 'data-board="stage-board-data"' in page  # where board.js draws it
    assert "move place empty" in page
    rules = gdl.rules(gdl.load(stages.path("tic-tac-toe")))
    assert '<section id="stage-rules">' in page and all(html.escape(p) in page for p in rules)


def test_a_sampled_stage_shows_its_change_tau_and_figures(client):
    page = client.get("/stages/1/variant-001.gdl").text
    assert "Changed from its base</th><td>board square 3 → board square 4" in page
    assert "<td>123.2</td>" in page  # the manifest's τ, not one measured again
    assert "balance</th><td>0.58" in page and "K = bits + log2 τ</th><td>17.5" in page


def test_a_variant_s_change_is_described_when_its_manifest_does_not_say(tmp_path):
    (tmp_path / "variant-001.gdl").write_text(VARIANT)
    (tmp_path / "manifest.json").write_text(json.dumps({"base": {"file": str(stages.path("tic-tac-toe"))},
                                                        "stages": [{"file": "variant-001.gdl"}]}))
    page = TestClient(create_app(sort_folders([tmp_path])), base_url=LOCAL).get("/stages/1/variant-001.gdl").text
    assert "Changed from its base</th><td>board square 3 → board square 4</td>" in page


def test_a_broken_stage_shows_its_errors_with_carets(client):
    page = client.get("/stages/2/bad.gdl").text
    assert "<h2>Errors</h2>" in page
    assert "bad.gdl:3:9: error: unknown cell &#x27;j9&#x27;" in page and "\nblocked j9\n        ^^\n" in page
    assert 'id="stage-board-data"' not in page


def test_unknown_pages_are_404(client):
    assert client.get("/stages/0/no-such.gdl").status_code == 404
    assert client.get("/stages/9/tic-tac-toe.gdl").status_code == 404
    assert client.get("/runs/3").status_code == 404


def test_the_run_page_shows_the_views_progress_and_a_link_per_game(client, folders):
    response = client.get("/runs/0")
    page = response.text
    for section in ("leaderboard", "pairwise", "metrics", "anytime", "failures", "secondary", "games"):
        assert f'<section id="{section}">' in page
    assert "2 of 2 planned games played (finished)" in page
    assert re.findall(r'href="/runs/0/replay#game=(\d+)&amp;ply=0"', page) == ["0", "1"]
    # the leaderboard's and the matrix's links go to the run's replay page, not to this one
    assert re.findall(r'href="/runs/0/replay#agent=[^"]+"', page)
    assert not re.findall(r'href="#(?:agent|pair)=', page)
    policy = response.headers["content-security-policy"]
    assert "connect-src 'self'" in policy and "default-src 'none'" in policy
    inlined = re.findall(r"<script>(.*?)</script>", page, re.S)  # the scripts that run: each allowed by its hash
    assert inlined and policy.count("'sha256-") == len(inlined)
    assert all(f"'sha256-{_sha256(text)}'" in policy for text in inlined)
    assert client.get("/runs/0/views").text.startswith('<div id="run-views" data-games="2" data-running="false">')


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_the_replay_page_holds_every_game(client):
    page = client.get("/runs/0/replay").text
    data = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page)[1])
    assert len(data) == 2 and all(len(g["boards"]) == len(g["moves"]) + 1 for g in data)
    assert {data[0]["black"], data[0]["white"]} == {"random", HOSTILE}


def test_agents_names_are_text_on_every_page(client):
    for url in ("/runs/0", "/runs/0/views", "/runs/0/replay"):
        page = client.get(url).text
        assert "<img" not in page and HOSTILE not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;" in client.get("/runs/0").text


def test_a_tournament_on_a_stage_file_since_deleted_is_replayed(tmp_path):
    """The store keeps each stage's text (Run.play): the file the run was given may be gone."""
    stage = tmp_path / "mine.gdl"
    stage.write_text(VARIANT)
    random = agents.resolve("random")
    tournament.run([stage], [random, agents.AgentSpec("other", random.path)], tmp_path / "run",
                   Options(games=1, analysis_time=1, game_time=2, seed=1, sandbox=False))
    stage.unlink()
    client = TestClient(create_app(sort_folders([tmp_path / "run"]), resamples=10), base_url=LOCAL)
    page = client.get("/runs/0").text
    assert "2 of 2 planned games played" in page and "Tic-tac-toe variant 1" in page
    assert "ludica tournament: 2 agents, 1 stage, 2 games" in page
    replay = client.get("/runs/0/replay").text
    shown = json.loads(re.search(r'id="replay-data" type="application/json">(.*?)</script>', replay, re.S)[1])
    assert len(shown) == 2 and all(g["rows"] == g["cols"] == 4 for g in shown)


def test_a_tournament_store_from_before_kept_stages_finds_its_bundled_stages(folders, tmp_path):
    run = shutil.copytree(folders["run"], tmp_path / "run")
    with sqlite3.connect(run / "results.sqlite") as db:
        db.execute("DELETE FROM stages")
    db.close()
    views = RunWatch(run, resamples=10).views()
    assert views.planned == views.played == 2 and len(views.views["replay"]) == 2


def test_the_views_are_recomputed_only_when_the_games_change(folders, tmp_path):
    run = shutil.copytree(folders["run"], tmp_path / "run")
    watch = RunWatch(run, resamples=10)
    first = watch.views()
    assert watch.views() is first
    with sqlite3.connect(run / "results.sqlite") as db:
        db.execute("DELETE FROM games WHERE id = (SELECT max(id) FROM games)")
    db.close()
    again = watch.views()
    assert again is not first and again.played == first.played - 1 and not again.finished


def test_a_run_without_a_game_yet_says_so(folders, tmp_path):
    run = shutil.copytree(folders["run"], tmp_path / "run")
    with sqlite3.connect(run / "results.sqlite") as db:
        db.execute("DELETE FROM games")
    db.close()
    client = TestClient(create_app(sort_folders([run])), base_url=LOCAL)
    page = client.get("/runs/0").text
    assert "No game is in the run's store yet" in page and "0 of 2 planned games played" in page
    assert client.get("/runs/0/replay").status_code == 200


def test_the_events_tell_each_change_of_the_store(folders, tmp_path):
    run = shutil.copytree(folders["run"], tmp_path / "run")
    told: list[dict] = []

    async def listen():
        async def gone() -> bool:
            return len(told) >= 2

        async for message in events(run, gone, poll=0.05):
            if message.startswith("event: games"):
                told.append(json.loads(message.split("data: ", 1)[1]))
                if len(told) == 1:  # the run writes meanwhile: here a game goes
                    with sqlite3.connect(run / "results.sqlite") as db:
                        db.execute("DELETE FROM games WHERE id = (SELECT max(id) FROM games)")
                    db.close()

    asyncio.run(asyncio.wait_for(listen(), timeout=30))
    assert told == [{"games": 2, "last_id": 2, "running": False}, {"games": 1, "last_id": 1, "running": False}]
    assert store_state(run) == (1, 1, False)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_the_loopback_is_served(host):
    assert is_loopback(host)
    check_host(host, allow_remote=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.org"])
def test_beyond_the_loopback_is_refused_unless_asked(host, capsys):
    assert not is_loopback(host)
    with pytest.raises(LudicaError, match="refusing to listen on .*--allow-remote"):
        check_host(host, allow_remote=False)
    check_host(host, allow_remote=True)
    assert cli.main(["serve", "--host", host, "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert f"refusing to listen on {host}" in err and "ssh -L" in err and "--allow-remote" in err


def test_serve_prints_its_url_and_runs_uvicorn_on_the_loopback(monkeypatch, capsys, folders):
    import uvicorn

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **how: served.update(how, app=app))
    assert cli.main(["serve", str(folders["sampled"]), "--port", "8123"]) == 0
    assert (served["host"], served["port"]) == ("127.0.0.1", 8123)
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    assert TestClient(served["app"], base_url=LOCAL).get("/stages/1/variant-001.gdl").status_code == 200
    assert cli.main(["serve", "--host", "::1", "--port", "8124"]) == 0
    assert "http://[::1]:8124/" in capsys.readouterr().out
    assert TestClient(served["app"], base_url="http://[::1]:8124").get("/").status_code == 200
    assert cli.main(["serve", "--host", "127.0.0.2", "--port", "8125"]) == 0
    assert TestClient(served["app"], base_url="http://127.0.0.2:8125").get("/").status_code == 200
    assert cli.main(["serve", "--host", "0.0.0.0", "--allow-remote", "--port", "8126"]) == 0
    assert TestClient(served["app"], base_url="http://ludica.example").get("/").status_code == 200


@pytest.mark.parametrize("base", ["http://127.0.0.1:8000", "http://localhost", "http://[::1]:1234", "http://LOCALHOST:80"])
def test_the_loopback_names_are_answered(client, base):
    assert client.get(base + "/stages").status_code == 200


@pytest.mark.parametrize("host", ["rebound.example", "rebound.example:8000", "127.0.0.1.rebound.example",
                                  "", "[::1", "127.0.0.1:8000:9"])
def test_another_host_name_is_refused(client, host):
    """DNS rebinding: a page of rebound.example, its name made to resolve to 127.0.0.1, reaches the
    server with its own name in the Host header; it is refused, with why, and sees nothing."""
    answer = client.get("/runs/0", headers={"Host": host})
    assert answer.status_code == 421
    assert "answers to 127.0.0.1, [::1], localhost alone" in answer.text and "--allow-remote" in answer.text
    assert "leaderboard" not in answer.text.lower()


def test_serve_s_play_room_abandons_after_the_time_its_help_names(monkeypatch, capsys):
    import uvicorn

    from ludica.web.play import ABANDON_AFTER

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **how: served.update(how, app=app))
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    assert f"default {ABANDON_AFTER:g}:" in " ".join(capsys.readouterr().out.split())
    rooms = []
    monkeypatch.setattr("ludica.web.PlayRoom", lambda *a, **k: rooms.append(k) or None)
    assert cli.main(["serve", "--port", "8127"]) == 0
    assert cli.main(["serve", "--port", "8128", "--abandon-after", "5"]) == 0
    assert [r["abandon_after"] for r in rooms] == [ABANDON_AFTER, 5.0]


def test_a_folder_that_is_neither_runs_nor_stages_is_refused(tmp_path):
    with pytest.raises(LudicaError, match="neither results.sqlite"):
        sort_folders([tmp_path])
    with pytest.raises(LudicaError, match="not a folder"):
        sort_folders([tmp_path / "missing"])


def test_the_play_page_refuses_a_language_model_with_what_to_do(tmp_path):
    """A model's endpoint and key are the evaluator's options (--endpoint), which serve does not take:
    a .model agent is refused as serve starts, not lost game by game."""
    from ludica.web.play import PlayRoom

    (tmp_path / "m.model").write_text('model = "m"\n')
    with pytest.raises(LudicaError, match=r"the Play page plays no language model .* ludica play STAGE --black "
                                          r"FILE.model"):
        PlayRoom(tmp_path / "store", (tmp_path / "m.model",))
