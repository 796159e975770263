"""Stages with hidden information in the runtime: what a seat is given (its information state,
compiler/knowledge.py) depends on its history alone; the agents' API answers on it (tries, observe,
sample_world) in-process and through the rules oracle alike; a sandboxed agent, in both modes, is
given exactly its information and finds no truth in its process; the referee plays tries, refuses
by the rule, and the built-in for hidden information beats random play."""
from __future__ import annotations

import json
import random
import shutil
import time
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludica.compiler import codes as K
from ludica import compiler, gdl, stages
from ludica.compiler import knowledge
from ludica.gdl.interpreter.information import Tried
from ludica.gdl.interpreter.worlds import worlds
from ludica.runtime import entrants, oracle, tournament
from ludica.runtime.api import DarkRulesApi, rules_api, stage_view
from ludica.runtime.entrants import BUILTIN_DIR
from ludica.runtime.local import LocalSeat
from ludica.runtime.records import ResultsStore
from ludica.runtime.referee import play_game
from ludica.runtime.sandbox import AgentProcess, Settings

from bundled import HIDDEN

HERE = Path(__file__).parent / "agents"
SMALL = ["phantom-tic-tac-toe", "phantom-tic-tac-toe-abrupt", "dark-hex-3"]


@cache
def game_of(name: str):
    game = compiler.playable(gdl.load(stages.path(name)))
    assert isinstance(game, compiler.CompiledDarkGame)
    return game


def random_states(game, seed: int, longest: int = 200):
    """The positions of one random game of tries, with the truth's to-move at each."""
    rng, state, out = random.Random(seed), game.initial_state(), []
    while True:
        out.append(state)
        if game.is_terminal(state) or len(out) > longest:
            return out
        state = game.apply(state, rng.choice(game.legal_moves(state)))


def test_every_bundled_hidden_stage_is_played_as_tries():
    assert set(HIDDEN) >= {"phantom-tic-tac-toe", "phantom-tic-tac-toe-abrupt", "dark-hex-3", "dark-hex-5",
                           "dark-hex-11", "phantom-connect-four", "dark-othello", "dark-breakthrough"}
    for name in HIDDEN:
        assert isinstance(compiler.playable(gdl.load(stages.path(name))), compiler.CompiledDarkGame)
    assert isinstance(compiler.playable(gdl.load(stages.path("tic-tac-toe"))), compiler.CompiledGame)


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(HIDDEN)), seed=st.integers(0, 2**20))
def test_a_seat_is_given_its_view_and_history_and_nothing_else(name, seed):
    game = game_of(name)
    for state in random_states(game, seed, longest=60):
        for p in (0, 1):
            info = game.information(state, p)
            assert not info.flags.writeable
            view = np.array(game.reference.view(state, p))
            assert np.array_equal(info[: game.n_cells], view)  # the position part is the view
            assert knowledge.decode(info, game.n_cells, game.cols) == (p, game.reference.history(state, p))
            # the rest of the position part: who moves (public), and as ply the tries the player knows of
            assert info[game.n_cells] == game.to_move(state)
            assert info[game.n_cells + 2] == sum(isinstance(e, Tried) for e in game.reference.history(state, p))


@pytest.mark.parametrize("name", ["phantom-tic-tac-toe", "phantom-tic-tac-toe-abrupt"])
def test_positions_a_player_cannot_tell_apart_give_it_the_same_state_tries_and_observation(name):
    """Every world consistent with a player's history (enumerated whole) gives that player the same
    information state, so the same tries and observation: nothing of the truth reaches it."""
    game, checked = game_of(name), 0
    api = rules_api(game)
    for seed in range(25):
        for truth in random_states(game, seed)[1:6]:
            if game.is_terminal(truth):
                break
            p = game.to_move(truth)
            given_ = game.information(truth, p)
            alike = worlds(game.reference, game.reference.history(truth, p), p)
            assert truth in alike
            for world in alike:
                assert np.array_equal(game.information(world, p), given_)
            assert api.legal_moves(given_) == game.legal_moves(truth) or game.legal_moves(truth) == [gdl.PASS]
            assert np.array_equal(api.observe(given_), game.reference.observe(truth, p))
            checked += len(alike)
    assert checked > 100


@pytest.mark.parametrize("name", SMALL)
def test_the_api_answers_on_information_states(name):
    game = game_of(name)
    api = rules_api(game)
    assert isinstance(api, DarkRulesApi)
    view = stage_view(game)
    assert view.hidden and np.array_equal(view.initial_state, game.information(game.initial_state(), 0))
    for seed in range(12):
        for made, state in enumerate(random_states(game, seed)):
            if game.is_terminal(state):
                break
            p = game.to_move(state)
            info = game.information(state, p)
            tries = game.legal_moves(state)
            if tries != [gdl.PASS]:
                assert api.legal_moves(info) == tries  # the referee's tries, from what the player knows
                assert [api.move_of(a) for a in api.legal_actions(info)] == tries
            assert np.array_equal(api.observe(info), game.reference.observe(state, p))
            assert np.array_equal(api.board(info), game.view_board(state, p))
            assert api.to_move(info) == p
            # a world: a true position with the player to move, one of those it cannot tell apart
            world = api.sample_world(info, seed)
            assert world.shape == (game.n_cells + 4,) and api.to_move(world) == p
            if made <= 4:  # the worlds enumerated whole (a search that grows fast with the game)
                truths = {w.truth.cells for w in worlds(game.reference, game.reference.history(state, p), p)}
                assert tuple(world[: game.n_cells].tolist()) in truths
            child, _ = api.apply(world, api.legal_moves(world)[0])  # the true game's kernels search it
            assert api.playouts(child, 4, seed=1).lengths.shape == (4,)


def test_a_perfect_information_api_treats_a_state_as_its_only_world():
    game = compiler.compile(gdl.load(stages.path("tic-tac-toe")))
    api = rules_api(game)
    start = game.initial_state()
    assert api.sample_world(start, 3) is not None and np.array_equal(api.sample_world(start, 3), start)
    planes = api.observe(game.apply(start, game.legal_moves(start)[4]))
    assert planes.shape == (4, 3, 3) and planes[0, 1, 1] == 1 and planes[2].sum() == 8


@pytest.mark.parametrize("bad, said", [
    (lambda info, n: info[: n + K.STATE_EXTRA], "no player"),
    (lambda info, n: np.concatenate([info, [7]]), "after its"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 2, 0, 0, 0, 0]]), "cut short"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 5, 0]]), "of kind 5"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 0, 3, 0, 1, 0]]), "names player 3"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 0, 0, 999, 1, 0]]), "move code 999"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 0, 0, 0, 1, 1, 40, 1]]), "off the board"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, -1]]), "-1 entries"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 0, 0, 4, 5, 0]]), "refused 5"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 1, 0, *[99] * n]]), "holding no piece"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 2, 1, 0]]), "says 0 pieces taken"),
    (lambda info, n: np.concatenate([info[: n + K.STATE_EXTRA], [0, 1, 2, 1]]), "cut short"),
    (lambda info, n: np.concatenate([[9], info[1:]]), "not a position"),
    (lambda info, n: np.zeros(300_000, np.int32), "at most 250,000"),
])
def test_an_information_state_from_outside_is_checked(bad, said):
    """An agent's array is untrusted input: a forged history is refused by name, never a crash."""
    game = game_of("phantom-tic-tac-toe")
    api = rules_api(game)
    state = game.apply(game.initial_state(), gdl.Move.parse("b2"))
    forged = np.asarray(bad(game.information(state, 1), game.n_cells), dtype=np.int32)
    if said == "no player":  # a bare position is a position: the view's tries, its only world
        assert api.sample_world(forged, 1).shape == forged.shape
        with pytest.raises(ValueError, match=said):
            knowledge.decode(forged, game.n_cells, game.cols)
        return
    for call in (lambda: api.sample_world(forged, 1), lambda: api.observe(forged), lambda: api.legal_moves(forged)):
        with pytest.raises(ValueError, match=said):
            call()


def test_a_history_no_game_gives_finds_no_world():
    game = game_of("phantom-tic-tac-toe")
    api = rules_api(game)
    info = game.information(game.initial_state(), 0)
    # x saw, after its own try a1 was played, an o on b2: no game of tic-tac-toe shows that
    forged = np.concatenate([info[: game.n_cells + 4], [0, 1, 0, 0, 0, 0, 2, 0, 1, 4, 2]]).astype(np.int32)
    with pytest.raises(LookupError):
        api.sample_world(forged, 1, budget=500)


@pytest.mark.parametrize("name", ["phantom-tic-tac-toe", "dark-hex-3"])
def test_the_oracle_answers_a_hidden_stage_as_the_api_does(name):
    game = game_of(name)
    local = rules_api(game)
    started = oracle.start_alone(stages.path(name).read_text())
    assert started.error is None, started.error
    remote = started.api
    try:
        assert started.view.hidden and np.array_equal(started.view.initial_state, stage_view(game).initial_state)
        for seed in range(6):
            for state in random_states(game, seed):
                if game.is_terminal(state):
                    break
                info = game.information(state, game.to_move(state))
                assert remote.legal_moves(info) == local.legal_moves(info)
                assert remote.legal_actions(info) == local.legal_actions(info)
                assert np.array_equal(remote.observe(info), local.observe(info))
                assert np.array_equal(remote.sample_world(info, seed), local.sample_world(info, seed))
                assert remote.is_terminal(info) == local.is_terminal(info)
                move = local.legal_moves(info)[0]
                (a, ta), (b, tb) = remote.apply(info, move), local.apply(info, move)
                assert np.array_equal(a, b) and ta == tb
                mine, theirs = local.playouts(info, 8, seed=2), remote.playouts(info, 8, seed=2)
                assert np.array_equal(mine.returns, theirs.returns)
        forged = np.concatenate([game.information(game.initial_state(), 0)[: game.n_cells + 4],
                                 [0, 1, 0, 0, 0, 0, 2, 0, 1, 4, 2]]).astype(np.int32)
        with pytest.raises(LookupError):
            remote.sample_world(forged, 1, budget=500)
        with pytest.raises(ValueError, match="cut short"):
            remote.observe(forged[:-1])
        with pytest.raises(ValueError, match="at most 250,000"):  # in-process too (the forged cases above)
            remote.observe(np.zeros(300_000, np.int32))
        assert remote.legal_moves(game.information(game.initial_state(), 0))  # and the oracle is still there
    finally:
        remote.close()


def _given(output: str) -> list[list[int]]:
    return [[int(v) for v in line.split()[2:]] for line in output.splitlines() if line.startswith("given: ")]


PEEKED = "phantom-tic-tac-toe"  # the stage the hostile agents play


def _both_seats_against_random(agent: AgentProcess, game):
    """(its seat, the game's record) of `agent` (sandboxed, started here, closed after) playing each
    seat once against random."""
    other = LocalSeat("random", str(BUILTIN_DIR / "random.py"), game)
    try:
        assert agent.start().failure is None
        assert agent.analyze(10.0).failure is None
        other.analyze(5.0)
        for seat, seed in ((0, 3), (1, 4)):
            record = play_game(game, (agent, other) if seat == 0 else (other, agent), seed=seed, game_time=10.0)
            assert record.reason == "normal", record.log
            yield seat, record
    finally:
        agent.close()


@pytest.mark.parametrize("isolate", [False, True], ids=["rules-in-process", "isolate-rules"])
def test_a_sandboxed_agent_is_given_its_information_and_finds_no_truth(isolate):
    """The peeker (tests/agents/peeker.py) in the sandbox, both modes: each state it was given is its
    information state at that turn (recomputed from the game's record), and its process holds no
    position of the game of tries past the start and no record of the referee's."""
    game = game_of(PEEKED)
    peeker = AgentProcess(str(HERE / "peeker.py"), stages.path(PEEKED).read_text(), Settings(isolate_rules=isolate),
                          name="peeker")
    for seat, record in _both_seats_against_random(peeker, game):
        printed = next(o["text"] for o in record.output if o["seat"] == seat)
        expected, state = [], game.initial_state()
        for ply in record.plies:
            if ply.player == seat and game.legal_moves(state) != [gdl.PASS]:
                expected.append(game.information(state, seat).tolist())
            state = game.apply(state, game.parse_move(ply.move))
        assert _given(printed) == expected and expected
        assert {line for line in printed.splitlines() if not line.startswith("given: ")} == {
            "dark-states: 0", "referee-objects: 0"}


@pytest.mark.parametrize("isolate", [False, True], ids=["rules-in-process", "isolate-rules"])
def test_a_hostile_program_is_sent_its_information_alone_and_reads_no_other_process(isolate):
    """tests/programs/dark_peeker.py in the sandbox, both modes: each state sent on its turns is its
    information state then; each observation is one it had on the opponent's turn, in order; and
    every other process it can see (its worker; the rules oracle) refuses it its memory."""
    from ludica.runtime.plans import Options
    from ludica.runtime.stage_entrant import sandboxed

    game = game_of(PEEKED)
    spec = entrants.program(["python3", "dark_peeker.py"], Path(__file__).parent / "programs", "peeker",
                            ["dark_peeker.py"])
    peeker = sandboxed(spec, stages.path(PEEKED).read_text(), Options(isolate_rules=isolate))
    for seat, record in _both_seats_against_random(peeker, game):
        printed = next(o["text"] for o in record.output if o["seat"] == seat).splitlines()
        given, observed, expected, theirs, state = [], [], [], [], game.initial_state()
        for line in printed:
            kind, _, values = line.partition(": ")
            if kind in ("given", "observed"):
                (given if kind == "given" else observed).append([int(v) for v in values.split()])
        for ply in record.plies:
            information = game.information(state, seat).tolist()
            if ply.player == seat and game.legal_moves(state) != [gdl.PASS]:
                expected.append(information)
            elif ply.player != seat and information not in theirs[-1:]:
                theirs.append(information)
            state = game.apply(state, game.parse_move(ply.move))
        assert given == expected and expected
        assert observed and all(o in theirs for o in observed) and \
            [theirs.index(o) for o in observed] == sorted(theirs.index(o) for o in observed)
        memory = [line for line in printed if line.startswith("memory: ")]
        assert len(memory) >= (2 if isolate else 1) and all(line.endswith(" denied") for line in memory), memory


def test_the_referee_plays_tries_and_refuses_by_the_rule():
    """A try its player's view allows but the truth does not is refused, noted on its ply, and its
    player tries again (classical) or loses its turn (abrupt)."""
    for name, again in (("phantom-tic-tac-toe", True), ("phantom-tic-tac-toe-abrupt", False)):
        game = game_of(name)
        seats = tuple(LocalSeat(n, str(BUILTIN_DIR / "random.py"), game) for n in ("a", "b"))
        for s in seats:
            s.analyze(5.0)
        refusals = 0
        for seed in range(12):
            record = play_game(game, seats, seed=seed, game_time=10.0, seat_seeds=(seed, seed + 100))
            for k, ply in enumerate(record.plies):
                if "refused" in ply.note:
                    refusals += 1
                    assert ply.board == (record.plies[k - 1].board if k else record.initial_board)
                    if k + 1 < len(record.plies):
                        assert (record.plies[k + 1].player == ply.player) == again
            assert any("refused: " + ("tries again" if again else "loses the turn") in line for line in record.log) \
                or not any("refused" in p.note for p in record.plies)
        assert refusals > 5


def test_determinised_beats_random_on_phantom_tic_tac_toe():
    game = game_of("phantom-tic-tac-toe")
    det = LocalSeat("determinised", str(BUILTIN_DIR / "determinised.py"), game)
    rnd = LocalSeat("random", str(BUILTIN_DIR / "random.py"), game)
    det.analyze(2.0), rnd.analyze(1.0)
    points = 0.0
    for g in range(20):  # it scores about 0.9 (benchmarks/dark_agents.py): 13 of 20 leaves a wide margin
        seats = (det, rnd) if g % 2 == 0 else (rnd, det)
        record = play_game(game, seats, seed=g, game_time=1.0, seat_seeds=(2 * g, 2 * g + 1))
        points += 0.5 if record.winner is None else float(seats[record.winner] is det)
    assert points >= 13, points


def _tournament(out: Path, agents: list, **options) -> tuple[list[dict], list[dict]]:
    """A sandboxed round robin on phantom tic-tac-toe: (games, analyses)."""
    tournament.run([stages.path("phantom-tic-tac-toe")], agents, out, tournament.Options(games=1, **options))
    store = ResultsStore(out / "results.sqlite")
    try:
        return store.games(), store.analyses()
    finally:
        store.close()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_an_arena_system_is_not_seated_on_a_hidden_stage_and_is_told_why(tmp_path):
    system = entrants.check_compiles(entrants.resolve(str(Path(__file__).parent / "arena_systems" / "greedy.js")))
    games, analyses = _tournament(tmp_path / "out", [system, entrants.resolve("random")], analysis_time=2.0,
                                  game_time=2.0, seed=1)
    refused = [a for a in analyses if a["agent"] == "greedy"]
    assert refused and refused[0]["failure"] == "unsupported" and "perfect-information stages only" in refused[0]["detail"]
    assert len(games) == 2 and all(g["reason"] == "no-strategy" for g in games)
    assert all(("greedy" == g["black"]) == (g["result"] == "white") for g in games)


def test_a_program_over_the_line_protocol_plays_a_hidden_stage_from_its_information(tmp_path):
    """A Python program (tests/programs/dark_caller.py) is sent its information state and its tries,
    and asks the API for its observation, its tries and a world, all of which answer."""
    spec = entrants.program(["python3", "dark_caller.py"], Path(__file__).parent / "programs", "dark-caller",
                            ["dark_caller.py"])
    out = tmp_path / "out"
    games, analyses = _tournament(out, [spec, entrants.resolve("random")], analysis_time=5.0, game_time=10.0, seed=2)
    assert len(games) == 2 and all(g["reason"] == "normal" for g in games), [g["log"] for g in games]
    assert "hidden: True" in [a for a in analyses if a["agent"] == "dark-caller"][0]["output"]
    said = [o["text"] for p in sorted((out / "logs").rglob("*.json")) for o in json.loads(p.read_text())["output"]
            if "turn " in o["text"]]
    turns = [line for text in said for line in text.splitlines() if line.startswith("turn ")]
    world = f"world {9 + K.STATE_EXTRA}"  # a true position of the 3x3 board
    assert turns and all(f"planes 4x3x3 tries-match True {world}" in line for line in turns), turns


def test_the_play_page_sends_a_person_their_view_and_not_the_opponents_tries():
    """What the Play page's game sends its page (web/play.PlayGame.watch) while a person plays a
    hidden stage: the person's view, the opponent's tries unnamed, and no word of an opponent's try
    that left the opponent to move (a refusal the person was not told of); the whole board once over."""
    from ludica.web.play import PlayGame, WebSource

    game = game_of("phantom-tic-tac-toe")
    rnd = LocalSeat("random", str(BUILTIN_DIR / "random.py"), game)
    rnd.analyze(1.0)
    hidden_refusals = 0
    for seed in range(10):
        page = PlayGame(1, "t", ("person", "random"), Path("/nonexistent"), {0: WebSource()})
        views: list = []  # the person's view at each moment the page was sent (None: the game is over)

        def watch(moment, page=page, views=views):
            sent = len(page.moments)
            page.watch(game, "t", 1, moment)
            if len(page.moments) > sent:
                views.append(moment.seen[0] if moment.to_move is not None else None)

        record = play_game(game, (rnd, rnd), seed=seed, game_time=10.0, names=("person", "random"), on_ply=watch,
                           seat_seeds=(seed, seed + 100))
        hidden_refusals += sum(1 for k, p in enumerate(record.plies) if p.player == 1 and "refused" in p.note
                               and k + 1 < len(record.plies) and record.plies[k + 1].player == 1)
        for shown in page.moments[:-1]:  # the last: the game is over, the truth is shown
            if shown["mover"] == 1:
                assert shown["move"] == "a try" and shown["board"]["last"] == []
        going = [m for m in page.moments if m["to_move"] is not None]
        for m, view in zip(page.moments, views):  # the person's view at that moment, never the truth
            if view is not None:
                assert m["board"]["cells"] == "".join(".12"[v] for row in view for v in row)
        assert all(not (a["mover"] == 1 and a["to_move"] == 1) for a in going)  # an opponent's retry: unsent
        assert all(m["remaining"][1] is None and m["remaining"][0] is not None for m in going)  # its clock too
        assert page.moments[-1]["to_move"] is None
    assert hidden_refusals > 0  # there were refusals of the opponent's to hide


def test_a_world_search_left_by_its_asker_stops_and_does_not_hold_up_the_next():
    """A game process killed while the oracle searches a world of dark Hex 11x11 with the largest
    budget: the next call is answered within a restart or two (the search asks between its
    restarts whether its asker is still there)."""
    from ludica.runtime.api import MAX_WORLD_BUDGET

    game = game_of("dark-hex-11")
    state = random_states(game, 3)[40]
    info = game.information(state, game.to_move(state))
    started = oracle.start_alone(stages.path("dark-hex-11").read_text())
    api = started.api
    try:
        leaving = api.open_channel()
        key = np.asarray(info, dtype=np.int32).tobytes()
        leaving.sendall(oracle.REQUEST.pack(oracle.WORLD, len(key), 1, MAX_WORLD_BUDGET) + key)
        time.sleep(0.5)  # the oracle is at it
        leaving.close()
        t0 = time.monotonic()
        assert api.legal_moves(info) == game.legal_moves(state)
        assert time.monotonic() - t0 < 30.0  # not the minutes the whole budget would take (a loaded machine: slack)
    finally:
        api.close()


def test_an_information_states_tries_ignore_the_views_ends():
    """The view's ply counts the tries a player knows of (refused ones too), so an `after N plies`
    end could judge the view over while the true game goes on: the tries are the referee's all the same."""
    stage = gdl.loads(stages.path("phantom-tic-tac-toe").read_text().replace(
        "end board-full: draw", "end after 6 plies: draw\nend board-full: draw") + "announce turn-count\n")
    game = compiler.playable(stage)
    api, checked = rules_api(game), 0
    for seed in range(40):
        for state in random_states(game, seed):
            if game.is_terminal(state) or game.legal_moves(state) == [gdl.PASS]:
                continue
            p = game.to_move(state)
            assert api.legal_moves(game.information(state, p)) == game.legal_moves(state)
            checked += 1
    assert checked > 200


def test_the_apis_observation_holds_each_announcement_as_the_reference_does():
    stage = gdl.loads(stages.path("phantom-tic-tac-toe").read_text() + "announce turn-count\nannounce refusals\n")
    game = compiler.playable(stage)
    api = rules_api(game)
    refused_planes = 0
    for seed in range(10):
        for state in random_states(game, seed):
            for p in (0, 1):
                planes = api.observe(game.information(state, p))
                assert planes.shape == (6, 3, 3) and np.array_equal(planes, game.reference.observe(state, p))
                refused_planes += planes[5].max() > 0
    assert refused_planes > 0


def test_a_program_is_told_its_observations_on_the_opponents_turns_and_a_move_out_of_turn_is_logged(tmp_path):
    """As in the OpenSpiel competition: a program (tests/programs/observer.py) is sent `observe` and
    its information state whenever what it knows changes on the opponent's turn; its API calls are
    answered then; a move it writes out of turn changes nothing and is logged."""
    spec = entrants.program(["python3", "observer.py"], Path(__file__).parent / "programs", "observer",
                            ["observer.py"])
    out = tmp_path / "out"
    games, _ = _tournament(out, [spec, entrants.resolve("random")], analysis_time=5.0, game_time=10.0, seed=3)
    assert len(games) == 2 and all(g["reason"] == "normal" for g in games), [g["log"] for g in games]
    for g in games:
        assert "observer wrote 1 line out of turn, ignored: 'a1'" in g["log"], g["log"]
    checked = observations = 0
    for path in sorted((out / "logs").rglob("*.json")):
        log = json.loads(path.read_text())
        turns = [line for o in log["output"] for line in o["text"].splitlines() if line.startswith("turn: ")]
        tries = [m for m in log["moves"] if m["strategy"] == "observer"]
        assert len(turns) == len(tries) and all(line.endswith("history continues True") for line in turns), turns
        for n, line in enumerate(turns):
            told = int(line.split()[1])
            assert f"calls answered {told}," in line
            # told what it saw after a try the truth took (the opponent then to move), and nothing
            # after a refused one: it tries again at once, and nothing is announced on this stage
            after = tries[n - 1].get("note") != "refused" if n else tries[0]["player"] == "white"
            assert told == int(after), (n, line, tries)
            checked, observations = checked + 1, observations + told
    assert checked >= 4 and observations >= 2  # each game's program makes two tries at least
