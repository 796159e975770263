"""The canonical printer and the parser are inverse: `parse(format(s)) == s` for every printable
stage (tests/strategies.py generates them, far beyond the bundled ones), and the canonical text is
a fixed point. Hand-written texts in non-canonical forms parse to the same AST as their canonical
form."""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ludica.gdl import ast as A
from ludica.gdl.parser import parse
from ludica.gdl.printer import format as fmt

from strategies import codable_stages, stages

STAGES = Path(__file__).resolve().parents[1] / "stages"
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(stages())
@example(A.Stage("", A.SquareBoard(1), A.Players(("a", "a")), (), ()))
def test_parse_inverts_format(stage):
    assert parse(fmt(stage)) == stage


@settings(max_examples=100, deadline=None)
@given(codable_stages())
def test_parse_inverts_format_on_codable_stages(stage):
    assert parse(fmt(stage)) == stage


@settings(max_examples=100, deadline=None)
@given(stages())
def test_canonical_text_is_a_fixed_point(stage):
    text = fmt(stage)
    assert fmt(parse(text)) == text
    assert text.endswith("\n") and "\n\n" not in text


@pytest.mark.parametrize("path", sorted(STAGES.glob("*.gdl")), ids=lambda p: p.stem)
def test_bundled_stages_round_trip(path):
    stage = parse(path.read_text(), path)
    assert parse(fmt(stage)) == stage
    assert fmt(parse(fmt(stage))) == fmt(stage)


def test_spans_do_not_count_in_equality():
    text = "board square 3\nplayers x o\nmove place empty\nend line 3: mover wins\n"
    parsed = parse(text)
    built = A.Stage("", A.SquareBoard(3), A.Players(("x", "o")), (A.MoveRule(A.PlaceEmpty()),),
                    (A.End(A.Line(3), A.MoverWins()),))
    assert parsed.span is not None and parsed == built and hash(parsed) == hash(built)


# Non-canonical texts (comments, odd spacing, defaults left out or written out, statements out of
# order, repeated `blocked` and `forward` lines) beside the canonical text of the same stage.
EQUIVALENT = {
    "defaults left out": (
        """
        # a comment line, then a blank one

        game "Defaults"   # trailing comment
        board   square\t8
        players  black   white
        move step
        move slide to enemy
        move jump 3
        move clone 1
          flip custodial
          remove custodial over-blocked
          convert adjacent
        turn alternate
        end no-moves :most-pieces
        """,
        """
        game "Defaults"
        board square 8
        players black white
        move step all to empty
        move slide all to enemy
        move jump 3 to empty
        move clone 1 to empty
          flip custodial all
          remove custodial all over-blocked
          convert adjacent all
        end no-moves: most-pieces
        """,
    ),
    "statements out of order, repeated blocked and forward lines": (
        """
        end reach far-row: mover wins
        players white black
        forward white down
        blocked a1..b2
        move step forward forward-diagonal to empty
        forward black up
        setup black a7..h8
        blocked h8
        board rect 8 9 wrap
        pass forced
        game "Scrambled # not a comment"
        turn again-after-capture
        setup white a1
        end after 100 plies: draw
        """,
        """
        game "Scrambled # not a comment"
        board rect 8 9 wrap
        blocked a1..b2 h8
        players white black
        forward white down, black up
        setup black a7..h8
        setup white a1
        move step forward forward-diagonal to empty
        turn again-after-capture
        pass forced
        end reach far-row: mover wins
        end after 100 plies: draw
        """,
    ),
    "effects under a move across comments and blank lines, tabs for indentation": (
        """
        game "Othello"
        board square 8
        players black white
        setup black e4 d5
        setup white d4 e5
        move place empty
        \tflip custodial all   # every direction

            # the rule that makes it Othello:
          require capture
        pass forced
        end no-moves: most-pieces
        """,
        """
        game "Othello"
        board square 8
        players black white
        setup black e4 d5
        setup white d4 e5
        move place empty
          flip custodial all
          require capture
        pass forced
        end no-moves: most-pieces
        """,
    ),
    "hex board, connect, line exact": (
        """
        board hex 11
        players red blue
        game "Hex"
        move place empty
        end line 5 exact : mover loses
        end connect top-bottom   left-right: mover wins
        turn fewer-pieces
        """,
        """
        game "Hex"
        board hex 11
        players red blue
        move place empty
        turn fewer-pieces
        end line 5 exact: mover loses
        end connect top-bottom left-right: mover wins
        """,
    ),
}


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip() + "\n"


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_non_canonical_text_parses_to_its_canonical_form(name):
    written, canonical = (_dedent(t) for t in EQUIVALENT[name])
    assert fmt(parse(canonical)) == canonical  # the second text is canonical indeed
    assert parse(written) == parse(canonical)
    assert fmt(parse(written)) == canonical


def test_defaults_fill_the_ast():
    stage = parse(_dedent(EQUIVALENT["defaults left out"][0]))
    assert [m.kind for m in stage.moves] == [
        A.Step(A.Directions(("all",)), "empty"), A.Slide(A.Directions(("all",)), "enemy"),
        A.Jump(3, "empty"), A.Clone(1, "empty")]
    assert stage.moves[3].effects == (
        A.FlipCustodial(A.ALL_DIRECTIONS, False), A.RemoveCustodial(A.ALL_DIRECTIONS, True),
        A.ConvertAdjacent(A.ALL_DIRECTIONS))
    assert stage.turn == A.Alternate() and stage.pass_rule is None


def test_printer_refuses_names_it_cannot_write():
    base = A.Stage("x", A.SquareBoard(3), A.Players(("x", "o")), (), ())
    for name in ('say "hi"', "two\nlines", "carriage\rreturn", "line\u2028separator"):
        with pytest.raises(ValueError):
            fmt(A.Stage(name, base.board, base.players, (), ()))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_printer_writes_only_names_it_can_read_back(name):
    stage = A.Stage(name, A.SquareBoard(3), A.Players(("x", "o")), (), ())
    try:
        text = fmt(stage)
    except ValueError:
        assert '"' in name or len((name + ".").splitlines()) > 1
    else:
        assert parse(text) == stage


def _node_classes(node, found: set) -> set:
    if isinstance(node, tuple):
        for item in node:
            _node_classes(item, found)
    elif isinstance(node, A.Node):
        found.add(type(node))
        for f in dataclasses.fields(node):
            _node_classes(getattr(node, f.name), found)
    return found


def test_strategies_reach_every_node_class():
    """The generated stages go far beyond the bundled ones: every node class of the AST occurs."""
    every = {c for c in vars(A).values()
             if isinstance(c, type) and issubclass(c, A.Node) and c is not A.Node}
    for strategy in (stages(), codable_stages()):
        found: set = set()

        @settings(max_examples=300, deadline=None, database=None, derandomize=True)
        @given(strategy)
        def collect(stage):
            _node_classes(stage, found)  # noqa: B023 - collect() runs in this iteration (hypothesis takes no defaults)

        collect()
        assert every - found == set()
