"""Hand-edited run folders: a real small evaluation's store, tampered with in every way a hostile
participant (or a careless hand) might (values of another type, keys and rows deleted, huge
numbers, NaN and infinities, JSON nested deeper than any ludica writes, files cut short, tables
dropped or replaced), read by `ludica report DIR` and by `ludica serve`'s run pages. Each case must
end in a message that says what is wrong, in which file and how to get on: the command's exit
status 2 (or 0 where the edit changes nothing the report reads) and never a traceback; the server
never a 500.

The mutations are a seeded loop over the store's own cells, so every run tampers with the same
stores and a failure names its case (its seed, the table, row and column, and what was put there)."""
from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra installs it)")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from ludica import stages
from ludica.cli import main
from ludica.web import create_app, sort_folders

LOCAL = "http://127.0.0.1"
QUICK = ["--in-process", "--analysis-time", "0.5", "--game-time", "0.5", "--resamples", "20", "--jobs", "1"]
CASES = 60  # tampered stores in the regular run (each read by the report and by serve)
SLOW_CASES = 600  # and in the slow run (pytest -m slow)
DEEP = 100_000  # far deeper than Python's recursion limit: json.loads alone raises RecursionError
STORE = "results.sqlite"


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Path:
    """A finished evaluation: two agents, a public stage and an unseen one (adaptation and
    reference games too), as `ludica evaluate` writes it."""
    root = tmp_path_factory.mktemp("honest")
    unseen = root / "unseen"
    unseen.mkdir()
    shutil.copy(stages.path("misere-tic-tac-toe"), unseen)
    out = root / "run"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["evaluate", "--no-builtins", "random", "greedy", "--stage", "tic-tac-toe", "--unseen",
                     str(unseen), *QUICK, "--out", str(out)]) == 0
    return out


# --- what a hand may put in a cell -----------------------------------------------------------

def _deep(n: int = DEEP) -> str:
    return "[" * n + "]" * n


VALUES = [None, "", "x", "[]", "{}", "null", "[1, 2", '{"a": [1, {"b": 2}]}', _deep(), '{"x":' * 5000,
          0, -1, 1, 2**63 - 1, -(2**63), 1e308, float("inf"), float("-inf"), float("nan"), 0.5,
          b"\x00\xff", "NaN", "1e999", "[NaN]", '["a1", 7, null]', '[[0, "x"]]', '[[9, 1.0]]',
          '{"seed": "one"}', '{"config": []}', '["random"]', json.dumps(["random"] * 5), "9" * 400]


def _json_edits(value: str, rng: random.Random) -> str | None:
    """`value` (a setting's JSON) with one of its parts replaced by a value of another kind, or
    deleted; None if it is not JSON."""
    try:
        data = json.loads(value)
    except ValueError:
        return None
    paths: list[list] = []

    def walk(x, path):
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, [*path, k])
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, [*path, i])

    walk(data, [])
    path = rng.choice(paths[1:] or paths)
    replacement = rng.choice([None, "x", -1, 10**30, 1e308, [], {}, [[[]]], True, 0.5, ["a", 1], {"a": None}])
    if not path:
        return json.dumps(replacement)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if rng.random() < 0.3:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return json.dumps(data)


# --- the mutations: each tampers with a copy of the honest folder and says what it did ---------

def _cell(db: sqlite3.Connection, rng: random.Random) -> str:
    tables = ["games", "analyses", "stages", "settings"]
    table = rng.choice(tables)
    columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    rows = [r[0] for r in db.execute(f"SELECT rowid FROM {table}")]
    if not rows:
        return f"{table}: empty"
    rowid, column = rng.choice(rows), rng.choice(columns)
    (held,) = db.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    edited = _json_edits(held, rng) if isinstance(held, str) and rng.random() < 0.5 else None
    value = edited if edited is not None else rng.choice(VALUES)
    try:
        db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, rowid))
    except sqlite3.IntegrityError as err:  # NOT NULL, UNIQUE: what SQLite itself refuses a hand too
        return f"{table} row {rowid} {column}: refused by SQLite ({err})"
    return f"{table} row {rowid} {column} = {str(value)[:60]!r}"


def _delete(db: sqlite3.Connection, rng: random.Random) -> str:
    table = rng.choice(["games", "analyses", "stages", "settings"])
    if table == "settings":
        keys = [k for (k,) in db.execute("SELECT key FROM settings")]
        if not keys:
            return "settings: none to delete"
        key = rng.choice(keys)
        db.execute("DELETE FROM settings WHERE key = ?", (key,))
        return f"settings {key!r} deleted"
    share = rng.choice([0.3, 1.0])
    db.execute(f"DELETE FROM {table} WHERE abs(random()) % 100 < ?", (int(share * 100),))
    return f"{table}: {share:.0%} of rows deleted"


def _tables(db: sqlite3.Connection, rng: random.Random) -> str:
    table = rng.choice(["games", "analyses", "stages", "settings"])
    how = rng.choice(["drop", "replace", "extra"])
    if how == "drop":
        db.execute(f"DROP TABLE {table}")
    elif how == "replace":
        db.execute(f"DROP TABLE {table}")
        db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, junk TEXT)")
    else:
        db.execute("CREATE TABLE intruder (x)")
    return f"table {table}: {how}"


def _moves(db: sqlite3.Connection, rng: random.Random) -> str:
    """A game's moves, each well formed, one of them not what was played: illegal there, or not a
    cell of the board."""
    rows = db.execute("SELECT id, moves FROM games").fetchall()
    if not rows:
        return "games: none to edit"
    rowid, moves = rng.choice(rows)
    played = json.loads(moves)
    where = rng.randrange(len(played) + 1)
    played[where:where + 1] = [rng.choice(["a1", "c3", "pass", "zz9", "a1-a2", played[0] if played else "b2"])]
    db.execute("UPDATE games SET moves = ? WHERE id = ?", (json.dumps(played), rowid))
    return f"games row {rowid} moves = {played}"


def _stage_text(db: sqlite3.Connection, rng: random.Random) -> str:
    """A stage's text another stage's (its games' moves then mean other cells), or cut short."""
    positions = [p for (p,) in db.execute("SELECT position FROM stages")]
    if not positions:
        return "stages: none to edit"
    position = rng.choice(positions)
    other = stages.path(rng.choice(["connect-four", "hex-11", "ataxx", "tic-tac-toe"])).read_text()
    text = other if rng.random() < 0.5 else other[:rng.randrange(len(other))]
    db.execute("UPDATE stages SET text = ? WHERE position = ?", (text, position))
    return f"stages position {position} text = {text[:40]!r}"


def _edit_store(folder: Path, rng: random.Random) -> str:
    kind = rng.choice(["cell", "cell", "cell", "cell", "delete", "tables", "moves", "stage"])
    with contextlib.closing(sqlite3.connect(folder / STORE)) as db, db:
        try:
            return {"cell": _cell, "delete": _delete, "tables": _tables, "moves": _moves,
                    "stage": _stage_text}[kind](db, rng)
        except sqlite3.OperationalError as err:  # a table an earlier edit dropped or replaced
            return f"{kind}: {err}"


def _cut_store(folder: Path, rng: random.Random) -> str:
    store = folder / STORE
    data = store.read_bytes()
    cut = rng.choice([0, 50, 100, len(data) // 2, len(data) - 1])
    store.write_bytes(data[:cut])
    return f"store cut to {cut} bytes"


def _tampered(honest: Path, root: Path, seed: int) -> tuple[Path, str]:
    """A copy of the honest run folder with one or two edits of its store, and in one case of six
    the store cut short after them (SQLite edits no file cut short)."""
    folder = root / f"case-{seed}"
    shutil.copytree(honest, folder, ignore=shutil.ignore_patterns(".lock", "report.*", "*.csv"))
    rng = random.Random(seed)
    said = [_edit_store(folder, rng) for _ in range(rng.choice([1, 1, 2]))]
    if rng.random() < 1 / 6:
        said.append(_cut_store(folder, rng))
    return folder, "; ".join(said)[:300]


def _report(folder: Path, out: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["report", str(folder), "--resamples", "20", "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.err


def _serve(folder: Path) -> dict[str, int]:
    app = create_app(sort_folders([folder]), resamples=20)
    client = TestClient(app, base_url=LOCAL, raise_server_exceptions=False)
    return {page: client.get(page).status_code for page in ("/", "/runs", "/runs/0", "/runs/0/views", "/runs/0/replay")}


@pytest.mark.parametrize("seed", [*range(CASES), *(pytest.param(k, marks=pytest.mark.slow)
                                                    for k in range(CASES, SLOW_CASES))])
def test_a_tampered_store_is_said_not_a_traceback(honest, tmp_path, capsys, seed):
    folder, what = _tampered(honest, tmp_path, seed)
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code in (0, 2) and "Traceback" not in err, f"{what}: {err[-600:]}"
    if code:
        assert str(folder) in err, f"{what}: {err[-600:]}"  # which file
    answered = _serve(folder)
    assert 500 not in answered.values(), f"{what}: {answered}"


def _set(folder: Path, query: str, *params) -> None:
    with contextlib.closing(sqlite3.connect(folder / STORE)) as db, db:
        db.execute(query, params)


def _copy(honest: Path, root: Path) -> Path:
    folder = root / "run"
    shutil.copytree(honest, folder, ignore=shutil.ignore_patterns(".lock", "report.*", "*.csv"))
    return folder


def test_json_nested_deeper_than_the_bound_is_said_with_the_bound(honest, tmp_path, capsys):
    from ludica.runtime.stored import MAX_JSON_DEPTH

    folder = _copy(honest, tmp_path)
    _set(folder, "UPDATE settings SET value = ? WHERE key = 'agents'", _deep())
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and "Traceback" not in err
    assert (f"{folder / STORE}: setting 'agents' should be JSON nested at most {MAX_JSON_DEPTH} levels deep; it was "
            "edited or is damaged: restore it from a copy, or run it again into another --out") in err


@pytest.mark.parametrize("key, value", [("unseen sent to", "[]"), ("rules readable by", '{"a": 1}')])
def test_a_damaged_note_of_the_trust_boundary_is_said(honest, tmp_path, capsys, key, value):
    """The notes an evaluation keeps for its report's warnings (an unseen set sent off the machine,
    agents that held the rules in memory) are checked as every setting is."""
    folder = _copy(honest, tmp_path)
    _set(folder, "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", key, value)
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and "Traceback" not in err and f"setting {key!r} should be" in err, err


def test_a_cell_of_another_kind_is_said_with_its_table_row_and_column(honest, tmp_path, capsys):
    folder = _copy(honest, tmp_path)
    _set(folder, "UPDATE games SET black_time = ? WHERE id = 3", float("inf"))
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and f"{folder / STORE}: table games, row 3, column black_time: should be a finite number " \
                         "from 0, not inf" in err


def test_a_move_that_was_not_played_is_said_with_its_game_and_ply(honest, tmp_path, capsys):
    folder = _copy(honest, tmp_path)
    _set(folder, "UPDATE games SET moves = '[\"a1\", \"a1\"]' WHERE id = 2")
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and f"{folder / STORE}: table games, row 2, column moves: ply 2, 'a1', is not a legal move" in err


def test_a_game_the_rules_did_not_end_as_stored_is_said_with_its_row(honest, tmp_path, capsys):
    """A game stored as ended by the rules ('normal') is explained by them in the report: moves cut
    short of the end, or a result the rules do not give, were edited after the referee."""
    folder = _copy(honest, tmp_path)
    with contextlib.closing(sqlite3.connect(folder / STORE)) as db:
        row, moves, result = db.execute("SELECT id, moves, result FROM games WHERE reason = 'normal' "
                                        "AND result != 'draw' ORDER BY id LIMIT 1").fetchone()
    _set(folder, "UPDATE games SET moves = ? WHERE id = ?", json.dumps(json.loads(moves)[:1]), row)
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and f"table games, row {row}: its moves do not end the game" in err, err
    _set(folder, "UPDATE games SET moves = ?, result = ? WHERE id = ?", moves,
         "white" if result == "black" else "black", row)
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and f"table games, row {row}, column result:" in err and "by the rules" in err, err


def test_serve_answers_a_damaged_store_with_its_message_not_a_server_error(honest, tmp_path):
    folder = _copy(honest, tmp_path)
    _set(folder, "DROP TABLE stages")
    client = TestClient(create_app(sort_folders([folder]), resamples=20), base_url=LOCAL,
                        raise_server_exceptions=False)
    answer = client.get("/runs/0")
    assert answer.status_code == 422 and answer.headers["content-type"].startswith("text/plain")
    assert f"{folder / STORE} is not as ludica wrote it (SQLite: no such table: stages)" in answer.text


def test_the_command_prints_no_traceback(honest, tmp_path):
    """The installed command as a user runs it: its stderr, not an exception in this process."""
    import subprocess
    import sys

    folder = _copy(honest, tmp_path)
    _set(folder, "UPDATE stages SET weight = 'heavy'")
    done = subprocess.run([sys.executable, "-m", "ludica", "report", str(folder), "--out", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "table stages, the row of stage" in done.stderr and "column weight: should be a finite number above 0, " \
                                                               "not 'heavy'" in done.stderr


def test_a_piece_move_in_a_game_of_placements_is_an_illegal_move():
    """It indexed past the end of the game's move table (an IndexError in the report's replay)."""
    from ludica.compiler import compile as compile_stage
    from ludica.gdl import load
    from ludica.gdl.diagnostics import IllegalMoveError

    game = compile_stage(load(stages.path("tic-tac-toe")))
    with pytest.raises(IllegalMoveError, match="illegal move 'a1-a2'"):
        game.apply_counted(game.initial_state(), game.parse_move("a1-a2"))


# --- a sampled set's manifest, hand-edited: read by `evaluate --unseen` and by serve's stage pages ---

MANIFEST_CASES = 60
SLOW_MANIFEST_CASES = 600


@pytest.fixture(scope="module")
def sampled_set(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sampled") / "set"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["sample", "--fresh", "-n", "3", "--seed", "1", "--filters", "none", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("seed", [*range(MANIFEST_CASES), *(pytest.param(k, marks=pytest.mark.slow)
                                                             for k in range(MANIFEST_CASES, SLOW_MANIFEST_CASES))])
def test_a_tampered_manifest_is_said_not_a_traceback(sampled_set, tmp_path, seed):
    from ludica.evaluation.stageset import from_folder
    from ludica.gdl import LudicaError

    folder = tmp_path / "set"
    shutil.copytree(sampled_set, folder)
    manifest = folder / "manifest.json"
    rng = random.Random(seed)
    text = manifest.read_text()
    for _ in range(rng.choice([1, 1, 2, 3])):
        edited = _json_edits(text, rng) if rng.random() < 0.8 else None
        text = edited if edited is not None else str(rng.choice(VALUES))[:rng.randrange(1, 200)]
    manifest.write_text(text)
    what = f"manifest: {text[:300]!r}"
    try:
        from_folder(folder)
    except LudicaError as err:
        assert str(manifest) in str(err) or str(folder) in str(err), what
    try:
        app = create_app(sort_folders([folder]), resamples=20)
    except LudicaError as err:
        assert str(manifest) in str(err), what
        return
    client = TestClient(app, base_url=LOCAL, raise_server_exceptions=False)
    pages = ["/stages", *(f"/stages/1/{p.name}" for p in sorted(folder.glob("*.gdl")))]
    answered = {page: client.get(page).status_code for page in pages}
    assert 500 not in answered.values(), f"{what}: {answered}"


# --- a partial honest run: too few games for every bootstrap resample to be fitted ------------------

def test_a_resample_that_leaves_an_agent_without_games_is_left_out_and_said():
    """Seven games of five agents, as a run stopped early may hold: a3 and a4 played once each, so
    some resamples (the strata pool such cells) leave them out. Those have no finite fit (the
    Bradley–Terry information matrix is singular); numpy's LinAlgError ended the report."""
    from ludica.evaluation import Outcome, rate

    games = [Outcome("s3", "a0", "a2", 0.5), Outcome("s2", "a3", "a2", 0.5), Outcome("s3", "a4", "a1", 0.0),
             Outcome("s1", "a2", "a1", 1.0), Outcome("s2", "a2", "a1", 0.0), Outcome("s2", "a0", "a2", 1.0),
             Outcome("s2", "a0", "a2", 0.5)]
    agents = ["a0", "a1", "a2", "a3", "a4"]
    for interval in ("profile", "percentile"):
        held = rate(games, agents, resamples=50, seed=0, interval=interval)
        left_out = 50 - held.resamples
        assert 0 < left_out < 50
        assert (f"{left_out} of the 50 bootstrap resamples left an agent without a game against the others (too few "
                "games: a pairing played once): no rating can be fitted there") in " ".join(held.notes)
        for k in range(len(agents)):  # rank probabilities over the resamples that were fitted
            assert abs(sum(x.rank_probabilities[k] for x in held.ratings) - 1) < 1e-9


def test_connected_tells_apart_resamples_with_a_fit():
    import numpy as np

    from ludica.evaluation.ratings import _connected

    chain = np.zeros((4, 4))
    chain[0, 1] = chain[2, 1] = chain[3, 2] = 1.0  # 0-1-2-3, one game each
    split = chain.copy()
    split[3, 2] = 0.0  # 3 played no game
    halves = np.zeros((4, 4))
    halves[0, 1] = halves[3, 2] = 1.0  # two pairs that never met
    assert _connected(np.stack([chain, split, halves])).tolist() == [True, False, False]


def test_a_store_that_names_no_agent_is_said(honest, tmp_path, capsys):
    folder = _copy(honest, tmp_path)
    _set(folder, "UPDATE settings SET value = '[]' WHERE key = 'agents'")
    _set(folder, "DELETE FROM games")
    code, err = _report(folder, tmp_path / "report", capsys)
    assert code == 2 and (f"{folder / STORE}: the run names no agent (its setting 'agents' is empty or missing, and "
                          "no game names one)") in err


def test_a_store_with_only_some_settings_is_read(tmp_path):
    """A setting missing is read with its default (a run made before it was kept): the store's
    checks refuse values of the wrong kind, not settings a store does not have."""
    from ludica.runtime.records import ResultsStore

    store = ResultsStore(tmp_path / STORE)
    store.save_settings({"agents": '["a", "b"]'})
    assert store.settings() == {"agents": '["a", "b"]'}
    store.close()
