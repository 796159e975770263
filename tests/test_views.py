"""The arenas' secondary views (evaluation/views.py): the OpenSpiel competition's instant-runoff
ranks and their worst-first lexicographic order, held to the competition's own worked example
(ARENAS.md) and to properties any count by its rules must have."""
from __future__ import annotations


from hypothesis import given, settings
from hypothesis import strategies as st

from ludica.evaluation import Outcome, instant_runoff, lexicographic
from ludica.evaluation.views import runoff_ranks

# ARENAS.md, "Worked example": the row bot's average outcome against the column bot
GAME_1 = {"A": {"B": 2, "C": 3}, "B": {"A": -2, "C": -1}, "C": {"A": -3, "B": 1}}
GAME_2 = {"A": {"B": -1, "C": 2}, "B": {"A": 1, "C": 5}, "C": {"A": -2, "B": -5}}


def test_the_competitions_worked_example():
    ranks = {"game 1": runoff_ranks(GAME_1, 0), "game 2": runoff_ranks(GAME_2, 0)}
    assert ranks == {"game 1": {"A": 1, "B": 2, "C": 3}, "game 2": {"B": 1, "A": 2, "C": 3}}
    assert lexicographic(ranks, ["A", "B", "C"]) == [
        {"agent": "A", "place": 1, "ranks": [2, 1]},
        {"agent": "B", "place": 1, "ranks": [2, 1]},
        {"agent": "C", "place": 3, "ranks": [3, 3]}]


def test_the_worked_example_from_games():
    """The same stages as games: one game per pair whose score for the row bot is 0.5 + return / 10
    orders every ballot as the returns do."""
    def played(matrix):
        return [Outcome("s", a, b, 0.5 + x / 10) for a, row in matrix.items() for b, x in row.items() if a < b]
    assert instant_runoff(played(GAME_1), ["A", "B", "C"]) == {"A": 1, "B": 2, "C": 3}
    assert instant_runoff(played(GAME_2), ["C", "B", "A"]) == {"B": 1, "A": 2, "C": 3}


def test_the_worst_rank_is_compared_first():
    ranks = {"s": {"A": 1, "B": 2, "C": 3}, "t": {"C": 1, "B": 2, "A": 3}}
    order = lexicographic(ranks, ["A", "B", "C"])
    assert [(x["agent"], x["place"], x["ranks"]) for x in order] == [("B", 1, [2, 2]), ("A", 2, [3, 1]),
                                                                   ("C", 2, [3, 1])]


def test_a_stage_not_every_agent_is_ranked_on_does_not_count():
    ranks = {"s": {"A": 1, "B": 2}, "going on": {"B": 1}}
    assert [(x["agent"], x["ranks"]) for x in lexicographic(ranks, ["A", "B"])] == [("A", [1]), ("B", [2])]


def test_a_cycle_shares_the_place_and_the_agent_beaten_by_all_is_last():
    games = ([Outcome("s", "a", "b", 1.0), Outcome("s", "b", "c", 1.0), Outcome("s", "c", "a", 1.0)]
             + [Outcome("s", x, "weak", 1.0) for x in "abc"] + [Outcome("s", "weak", "a", 0.0)])
    assert instant_runoff(games, ["a", "b", "c", "weak"]) == {"a": 1, "b": 1, "c": 1, "weak": 4}


def test_two_agents_are_told_apart_by_their_games():
    # each casts its one vote for the other: the tie for fewest votes goes to the games
    assert instant_runoff([Outcome("s", "a", "b", 1.0), Outcome("s", "b", "a", 0.5)], ["a", "b"]) == {"a": 1, "b": 2}
    assert instant_runoff([Outcome("s", "a", "b", 0.5)], ["a", "b"]) == {"a": 1, "b": 1}


def test_a_split_ballot_and_unmet_agents():
    """A gauntlet: `me` met the three baselines, which never met each other. Its ballot ties x and y
    (it beat both), so they split its vote and share a place; z, which beat it, is its first choice."""
    games = [Outcome("s", "me", "x", 1.0), Outcome("s", "me", "y", 1.0), Outcome("s", "z", "me", 1.0)]
    assert instant_runoff(games, ["me", "x", "y", "z"]) == {"me": 1, "z": 2, "x": 3, "y": 3}
    # an agent with no game on the stage gets no rank there
    assert "idle" not in instant_runoff(games, ["me", "x", "y", "z", "idle"])


# --- properties ---------------------------------------------------------------------------------

NAMES = "abcdefg"


@st.composite
def stages(draw, min_agents=2):
    """One stage's games among 2–7 agents: every pair meets in both seats (or some pairs not at all)."""
    n = draw(st.integers(min_agents, len(NAMES)))
    agents = list(NAMES[:n])
    games = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            if draw(st.booleans()) or draw(st.booleans()):  # most pairs meet
                games += [Outcome("s", a, b, draw(st.sampled_from((0.0, 0.5, 1.0)))),
                          Outcome("s", b, a, draw(st.sampled_from((0.0, 0.5, 1.0))))]
    return agents, games


def shared_places(ranks: list[int]) -> bool:
    """Ranks numbered as places are: each is 1 + the number of agents ranked strictly better."""
    return all(r == 1 + sum(q < r for q in ranks) for r in ranks)


@settings(max_examples=200, deadline=None)
@given(stages(), st.randoms(use_true_random=False))
def test_ranks_are_places_and_do_not_depend_on_input_order(stage, rng):
    agents, games = stage
    ranks = instant_runoff(games, agents)
    assert set(ranks) == {a for g in games for a in (g.black, g.white)}
    assert shared_places(list(ranks.values()))
    shuffled_games, shuffled_agents = games[:], agents[:]
    rng.shuffle(shuffled_games)
    rng.shuffle(shuffled_agents)
    assert instant_runoff(shuffled_games, shuffled_agents) == ranks


@settings(max_examples=200, deadline=None)
@given(stages(), st.data())
def test_an_agent_that_wins_every_game_is_first_alone(stage, data):
    agents, games = stage
    champion = data.draw(st.sampled_from(agents))
    games = [g for g in games if champion not in (g.black, g.white)]
    games += [Outcome("s", champion, a, 1.0) for a in agents if a != champion]
    games += [Outcome("s", a, champion, 0.0) for a in agents if a != champion]
    ranks = instant_runoff(games, agents)
    assert ranks[champion] == 1 and list(ranks.values()).count(1) == 1


@settings(max_examples=100, deadline=None)
@given(stages(), st.data())
def test_an_agent_that_loses_every_game_in_a_round_robin_is_last_alone(stage, data):
    agents, _ = stage
    loser = data.draw(st.sampled_from(agents))
    games = []
    for i, a in enumerate(agents):  # a full round robin, its other results drawn
        for b in agents[i + 1:]:
            for black, white in ((a, b), (b, a)):
                if loser in (black, white):
                    games.append(Outcome("s", black, white, 0.0 if black == loser else 1.0))
                else:
                    games.append(Outcome("s", black, white, data.draw(st.sampled_from((0.0, 0.5, 1.0)))))
    ranks = instant_runoff(games, agents)
    assert ranks[loser] == len(agents) and list(ranks.values()).count(len(agents)) == 1


@settings(max_examples=100, deadline=None)
@given(st.lists(stages(min_agents=3), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_the_overall_order_is_places_and_does_not_depend_on_input_order(many, rng):
    agents = list(NAMES[:3])  # the first three agents of each stage, all of whom met each other
    ranks = {}
    for k, (_, games) in enumerate(many):
        full = [g for g in games if g.black in agents and g.white in agents]
        full += [Outcome("s", a, b, 0.5) for a in agents for b in agents if a != b]  # every pair meets
        ranks[f"s{k}"] = instant_runoff(full, agents)
    order = lexicographic(ranks, agents)
    assert shared_places([x["place"] for x in order])
    assert [x["place"] for x in order] == sorted(x["place"] for x in order)
    shuffled = list(ranks.items())
    rng.shuffle(shuffled)
    assert lexicographic(dict(shuffled), rng.sample(agents, len(agents))) == order
    for x in order:  # first on every stage: placed first
        if all(r[x["agent"]] == 1 for r in ranks.values()):
            assert x["place"] == 1


def _gauntlet(with_reference_games: bool) -> tuple[list[dict], list[dict]]:
    """Issue 34's minimal case: X, the one submitted agent, beats random and greedy and loses every
    game to mcts; the baselines meet only in a gauntlet's reference games, where mcts beats both and
    greedy beats random. (main games, reference games) as store rows."""
    def game(black, white, result):
        return {"stage_hash": "s", "black": black, "white": white, "result": result}

    main = [game("X", b, "black") for b in ("random", "greedy")] + [game(b, "X", "white") for b in ("random", "greedy")]
    main += [game("X", "mcts", "white"), game("mcts", "X", "black")]
    among = [game("mcts", b, "black") for b in ("random", "greedy")] + [game(b, "mcts", "white") for b in ("random", "greedy")]
    among += [game("greedy", "random", "black"), game("random", "greedy", "white")]
    return main, among if with_reference_games else []


def test_a_gauntlets_competition_order_reads_the_baselines_games_among_themselves():
    """Ballots over the submitted agents alone made X first, ahead of mcts, which beat it every game:
    the order is a round robin's, so it reads the reference games too, and mcts is first. Without them
    the stage is left out of the order (said), never ranked by the format."""
    from ludica.evaluation.summary import _views

    agents = ["X", "random", "greedy", "mcts"]
    main, among = _gauntlet(True)
    views = _views(main, [{"stage_hash": "s"}], agents, among)
    assert views["instant_runoff"]["s"]["mcts"] == 1 and views["instant_runoff"]["s"]["X"] == 2 and views["unmet"] == 0
    main, among = _gauntlet(False)
    bare = _views(main, [{"stage_hash": "s"}], agents, among)
    assert bare["instant_runoff"] == {} and bare["unmet"] == 1
    assert instant_runoff([Outcome("s", g["black"], g["white"], {"black": 1.0, "white": 0.0}[g["result"]])
                           for g in main], agents)["X"] == 1  # what the format alone would have said


def test_the_report_says_why_stages_are_left_out_of_the_competitions_order():
    from types import SimpleNamespace

    from ludica.evaluation.report import unmet_note

    assert unmet_note(SimpleNamespace(views={"unmet": 0})) == ""
    said = unmet_note(SimpleNamespace(views={"unmet": 2}))
    assert said.startswith("2 stages are left out of the OpenSpiel competition's order: not every pair") \
        and "--reference-games" in said
