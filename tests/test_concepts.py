"""Every concept of the language is in every layer of ludica (gdl/, the compiler, the language's
documentation): one semantics per concept.

A concept is a node class of the AST (`A.CONCEPTS`: the board kinds, move kinds, effects, turn
orders, the pass rule, end conditions and results) or a word of a closed vocabulary (direction
words, move targets, headings, side pairs). Each layer that gives concepts a meaning has a check
in `LAYERS`; a concept that one layer knows and another forgot fails
`test_concept_in_layer[<Concept>-<layer>]` with a message naming both and the file (and function)
to edit. The throwaway concepts at
the end make sure that each check really fails for a concept its layer lacks, and the last tests
look the other way: a grammar rule or word that the AST does not declare.
"""
from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar
from collections.abc import Callable, Mapping

import numpy as np
import pytest
from lark import Lark, Tree

from ludica import compiler
from ludica.compiler import codes, families, program
from ludica.gdl import ast as A
from ludica.gdl import bits as B
from ludica.gdl import ending, english, parser, printer
from ludica.gdl.checks import ends as check_ends
from ludica.gdl.diagnostics import InternalError, StageError
from ludica.gdl import geometry
from ludica.gdl.interpreter import effects, ends, information, moves, reference, turns
from ludica.gdl.parser import parse
from ludica.gdl.printer import format as fmt

# --- the concepts, by category ------------------------------------------------------------------

BASE = A.Stage(
    name="concepts",
    board=A.SquareBoard(3),
    players=A.Players(("a", "b")),
    moves=(A.MoveRule(A.PlaceEmpty()),),
    ends=(A.End(A.BoardFull(), A.Draw()),),
)


def _dark(**lines: Any) -> dict[str, Any]:
    """The information lines of a stage with hidden information, some of them given."""
    return {"hidden": A.OpponentPieces(), "refused": A.Retry(), **lines}


@dataclass(frozen=True)
class Category:
    """The concepts of one kind, where a stage holds them, and the interpreter's tables for them."""

    name: str
    kinds: tuple[type, ...]  # the alternatives, in the order the description length numbers them
    put: Callable[[Any], A.Stage]  # a small stage holding a node of the category
    interpreter: tuple[tuple[str, Mapping[type, Any]], ...]  # (where, table) of the reference interpreter

    def __str__(self) -> str:
        return self.name


def _dice(kind: A.MoveKind) -> A.Roll | None:
    """The dice a move kind that reads the roll needs (the checks refuse it without)."""
    return A.Roll(1, 6) if kind.reads_roll else None


CATEGORIES: tuple[Category, ...] = (
    Category("board kind", A.BOARD_KINDS, lambda n: replace(BASE, board=n),
             (("geometry.py HEXAGONAL", geometry.HEXAGONAL),)),
    Category("move kind", A.MOVE_KINDS, lambda n: replace(BASE, moves=(A.MoveRule(n),), roll=_dice(n)),
             (("interpreter/moves.py _GENERATORS", moves._GENERATORS),
              ("interpreter/moves.py _VACATES_ORIGIN", moves._VACATES_ORIGIN))),
    Category("effect", A.EFFECT_KINDS, lambda n: replace(BASE, moves=(A.MoveRule(A.PlaceEmpty(), (n,)),)),
             (("interpreter/effects.py _EFFECTS", effects._EFFECTS),)),
    Category("turn order", A.TURN_ORDERS, lambda n: replace(BASE, turn=n),
             (("interpreter/turns.py _TURN", turns._TURN),)),
    Category("pass rule", (A.PassForced,), lambda n: replace(BASE, pass_rule=n),
             (("interpreter/turns.py _PASS", turns._PASS),)),
    Category("end condition", A.CONDITIONS, lambda n: replace(BASE, ends=(A.End(n, A.Draw()),)),
             (("interpreter/ends.py _CONDITIONS", ends._CONDITIONS), ("ending.py _REASONS", ending._REASONS))),
    Category("result", A.RESULTS, lambda n: replace(BASE, ends=(A.End(A.BoardFull(), n),)),
             (("interpreter/ends.py _RESULTS", ends._RESULTS), ("ending.py _VERDICTS", ending._VERDICTS))),
    Category("hiding", A.HIDINGS, lambda n: replace(BASE, **_dark(hidden=n)),
             (("interpreter/information.py _VIEWS", information._VIEWS),)),
    Category("refusal", A.REFUSALS, lambda n: replace(BASE, **_dark(refused=n)),
             (("interpreter/information.py _REFUSALS", information._REFUSALS),)),
    Category("announcement", A.ANNOUNCEMENTS, lambda n: replace(BASE, **_dark(announce=(n,))),
             (("interpreter/information.py _ANNOUNCEMENTS", information._ANNOUNCEMENTS),)),
    Category("reveal", A.REVEALS, lambda n: replace(BASE, **_dark(reveal=(n,))),
             (("interpreter/information.py _REVEALS", information._REVEALS),)),
)
# The information lines' categories: a stage with them is played by compiler.playable's
# CompiledDarkGame (its true game's kernels, and its tries' kernels: compiler/information.py).
INFORMATION = ("hiding", "refusal", "announcement", "reveal")
CONCEPTS = [pytest.param(kind, cat, id=kind.__name__) for cat in CATEGORIES for kind in cat.kinds]

# Values for the fields a concept node cannot do without; the other fields keep their defaults.
REQUIRED_FIELDS = {"size": 3, "n_rows": 3, "n_cols": 4}


def sample(kind: type) -> Any:
    """A node of the concept, as small as its class allows."""
    required = [f.name for f in dataclasses.fields(kind) if f.name != "span"
                and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    unknown = [name for name in required if name not in REQUIRED_FIELDS]
    if unknown:
        pytest.fail(f"{kind.__name__} needs its field {unknown[0]!r}: give it a value in REQUIRED_FIELDS")
    return kind(**{name: REQUIRED_FIELDS[name] for name in required})


def _spells(text: str, keyword: str) -> bool:
    """Whether the keyword's words stand together in the text's words."""
    words, kw = text.split(), keyword.split()
    return any(words[i:i + len(kw)] == kw for i in range(len(words) - len(kw) + 1))


# --- the grammar, as Lark reads it ---------------------------------------------------------------

GRAMMAR_TEXT = parser.GRAMMAR  # grammar.lark and the concepts' rules generated from gdl/ast.py
_LARK = Lark(GRAMMAR_TEXT, start="block", parser="lalr")  # plain: keywords stay string terminals
_KEYWORD_OF = {t.name: t.pattern.value for t in _LARK.terminals if t.pattern.type == "str"}
GRAMMAR_RULES: dict[str, list[list[Any]]] = {}
for _rule in _LARK.rules:
    GRAMMAR_RULES.setdefault(str(_rule.origin.name), []).append(_rule.expansion)
INLINED = {str(r.origin.name) for r in _LARK.rules if r.options.expand1}  # `?condition` and the like


def _reachable(start: str = "block") -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for expansion in GRAMMAR_RULES[todo.pop()]:
            for sym in expansion:
                if not sym.is_term and sym.name not in seen:
                    seen.add(sym.name)
                    todo.append(sym.name)
    return seen


REACHABLE = _reachable()


def _leading_keywords(expansion: list[Any]) -> list[str]:
    """The keywords an expansion of a rule starts with (`"reach" "far-row"` -> reach far-row)."""
    words = []
    for sym in expansion:
        if not (sym.is_term and sym.filter_out and sym.name in _KEYWORD_OF):
            break
        words.append(_KEYWORD_OF[sym.name])
    return words


def terminal_words(terminal: str) -> set[str]:
    """The words a terminal of the grammar lists: `TARGET.2: "empty" | "enemy" | "any"`."""
    found = re.search(rf"^{terminal}(?:\.\d+)?:(.*(?:\n[ \t]+\|.*)*)", GRAMMAR_TEXT, re.M)
    return set(re.findall(r'"([^"]*)"', found.group(1))) if found else set()


# --- the layers: each check returns what the layer lacks for a concept, or None -----------------


def _grammar_rule(kind: type, cat: Category) -> str | None:
    rule, keyword = vars(kind).get("rule"), vars(kind).get("keyword")
    if rule is None or keyword is None:
        return f"{kind.__name__} does not declare its own `keyword` and `rule` in gdl/ast.py"
    if rule not in GRAMMAR_RULES:
        return f"the grammar has no rule `{rule}` (gdl/parser.py generates it for the concepts of gdl/ast.py CATEGORIES)"
    if rule not in REACHABLE:
        return f"the rule `{rule}` of the grammar is not an alternative of any statement"
    for expansion in GRAMMAR_RULES[rule]:
        words = _leading_keywords(expansion)
        if words[len(words) - len(keyword.split()):] != keyword.split():
            return f"the rule `{rule}` is written `{' '.join(words)} ...`, not with the keyword `{keyword}`"
    return None


def _parser_entry(kind: type, cat: Category) -> str | None:
    rule = getattr(kind, "rule", None)
    built = parser._CONCEPT_RULES.get(rule)
    if built is not kind:
        also = f" (its rule `{rule}` builds {built.__name__})" if built is not None else ""
        return f"gdl/parser.py's rule table has no entry for {kind.__name__}{also}"
    return None


def _printer_entry(kind: type, cat: Category) -> str | None:
    if kind not in printer._FORMATTERS:
        return f"gdl/printer.py _FORMATTERS has no entry for {kind.__name__}"
    line = printer.text(sample(kind))
    if not _spells(line, kind.keyword):
        return f"gdl/printer.py prints {kind.__name__} as `{line}`, without its keyword `{kind.keyword}`"
    return None


def _bits_cost(kind: type, cat: Category) -> str | None:
    if kind not in B._CODES:
        return f"gdl/bits.py _CODES has no entry for {kind.__name__}"
    if kind not in cat.kinds:
        return f"{kind.__name__} has no position among the alternatives of the {cat} category ({cat.kinds})"
    try:
        B.description_length(cat.put(sample(kind)))
    except B.NotCodable as err:
        return f"gdl/bits.py cannot code a stage with {kind.__name__}: {err}"
    return None


def _interpreter_function(kind: type, cat: Category) -> str | None:
    missing = [where for where, table in cat.interpreter if kind not in table]
    if missing:
        return f"gdl/{' and gdl/'.join(missing)} has no entry for {kind.__name__}"
    return None


# --- the words of the closed vocabularies ---------------------------------------------------------

WORD_BASE = replace(
    BASE,
    forward=(A.Heading("a", "down"), A.Heading("b", "up")),  # the forward-relative words need them
    setup=(A.Setup("a", (A.Cell(0, 1),)), A.Setup("b", (A.Cell(2, 1),))),
)


@dataclass(frozen=True)
class Vocabulary:
    """A closed set of words of the AST, the grammar terminal for them, and a stage using one."""

    name: str
    words: tuple[str, ...]  # in the order the description length numbers them
    terminal: str
    stage: Callable[[str], A.Stage]  # a small stage whose play needs the word's meaning

    def __str__(self) -> str:
        return self.name


VOCABULARIES: tuple[Vocabulary, ...] = (
    Vocabulary("direction word", A.DIRECTION_WORDS, "DIRECTION",
               lambda w: replace(WORD_BASE, moves=(A.MoveRule(A.Step(A.Directions((w,)))),))),
    Vocabulary("target", A.TARGETS, "TARGET",
               lambda w: replace(WORD_BASE, moves=(A.MoveRule(A.Step(target=w)),))),
    Vocabulary("heading", A.HEADINGS, "HEADING",
               lambda w: replace(WORD_BASE, forward=(A.Heading("a", w), A.Heading("b", w)),
                                 moves=(A.MoveRule(A.Step(A.Directions(("forward",)))),),
                                 ends=(A.End(A.ReachFarRow(), A.MoverWins()),))),
    Vocabulary("side pair", A.SIDE_PAIRS, "SIDES",
               lambda w: replace(WORD_BASE, ends=(A.End(A.Connect((w, w)), A.MoverWins()),))),
)
WORDS = [pytest.param(w, v, id=f"{v.terminal}:{w}") for v in VOCABULARIES for w in v.words]


def _grammar_word(word: str, voc: Vocabulary) -> str | None:
    if word not in terminal_words(voc.terminal):
        return f"the terminal {voc.terminal} of gdl/grammar.lark does not list `{word}`"
    return None


def _parser_word(word: str, voc: Vocabulary) -> str | None:
    if word not in parser._WORD_TERMINALS.get(voc.terminal, ()):
        return f"gdl/parser.py _WORD_TERMINALS[{voc.terminal!r}] (its suggestions) lacks `{word}`"
    stage = voc.stage(word)
    try:
        parsed = parse(fmt(stage))
    except StageError as err:
        return f"gdl/parser.py does not read `{word}`: {err}"
    if parsed != stage:
        return f"gdl/parser.py reads `{word}` as something else"
    return None


def _bits_word(word: str, voc: Vocabulary) -> str | None:
    try:
        B.description_length(voc.stage(word))
    except B.NotCodable as err:
        return f"gdl/bits.py cannot code `{word}`: {err}"
    return None


def _interpreter_word(word: str, voc: Vocabulary) -> str | None:
    try:
        game = reference(voc.stage(word))
        game.legal_moves(game.initial_state())
    except (ValueError, KeyError) as err:
        return f"the reference interpreter cannot play `{word}`: {type(err).__name__}: {err}"
    return None


# --- the compiler's layers -------------------------------------------------------------------------
# Every concept is lowered to a code (compiler/program.py), every kernel dispatcher has a branch for
# that code in every form a family plays (a dispatcher without one stops the game with an
# InternalError), and every family says whether it plays the code (compiler/families/).

# Stages of each family's shape, which a concept is put into: the Othello family's, a pure
# placement game, stepping pieces, and the generic kernels' (clones that convert).
_SHAPES = {
    "othello": replace(BASE, board=A.SquareBoard(4), moves=(A.MoveRule(A.PlaceEmpty(), (A.FlipCustodial(),
                                                                                    A.RequireCapture())),),
                       setup=(A.Setup("a", (A.Cell(1, 2), A.Cell(2, 1))), A.Setup("b", (A.Cell(1, 1), A.Cell(2, 2)))),
                       pass_rule=A.PassForced(), ends=(A.End(A.NoMoves(), A.MostPieces()),)),
    "placement": replace(BASE, board=A.SquareBoard(4), setup=(A.Setup("a", (A.Cell(0, 0),)),
                                                              A.Setup("b", (A.Cell(3, 3),))),
                         ends=(A.End(A.BoardFull(), A.Draw()),)),
    "pieces": replace(BASE, board=A.SquareBoard(4), moves=(A.MoveRule(A.Step(A.Directions(("forward",
                                                                                          "forward-diagonal")),
                                                                              "any")),),
                      setup=(A.Setup("a", (A.CellRange(A.Cell(0, 0), A.Cell(0, 3)),)),
                             A.Setup("b", (A.CellRange(A.Cell(3, 0), A.Cell(3, 3)),))),
                      ends=(A.End(A.NoMoves(), A.Draw()),)),
    "generic": replace(BASE, board=A.SquareBoard(4), moves=(A.MoveRule(A.Clone(1), (A.ConvertAdjacent(),)),),
                       setup=(A.Setup("a", (A.Cell(0, 0),)), A.Setup("b", (A.Cell(3, 3),))),
                       ends=(A.End(A.NoMoves(), A.MostPieces()),), pass_rule=A.PassForced()),
}
_HEADINGS = (A.Heading("a", "down"), A.Heading("b", "up"))  # far rows and forward words need them


def _put(kind: type, cat: Category, shape: A.Stage) -> A.Stage:
    """A stage of the shape holding a node of the concept where the kernels read it."""
    shape = replace(shape, forward=_HEADINGS)
    if cat.name == "board kind":  # as large as the shape's setup needs
        return replace(shape, board=replace(sample(kind), **{f.name: 4 for f in dataclasses.fields(kind)
                                                             if f.name in ("size", "n_rows")}))
    node = sample(kind)
    if cat.name == "move kind":
        return replace(shape, moves=(A.MoveRule(node),), roll=_dice(node))
    if cat.name == "effect":  # `require capture` needs an effect before it that takes pieces
        effects = (A.FlipCustodial(), node) if isinstance(node, A.RequireCapture) else (node,)
        return replace(shape, moves=(A.MoveRule(A.PlaceEmpty(), effects),))
    if cat.name == "turn order":
        return replace(shape, turn=node)
    if cat.name == "pass rule":
        return replace(shape, pass_rule=node)
    if cat.name == "end condition":  # first, so it is read before the shape's own end
        return replace(shape, ends=(A.End(node, A.MoverWins()),) + shape.ends)
    if cat.name in INFORMATION:
        dark = cat.put(node)
        return replace(shape, hidden=dark.hidden, refused=dark.refused, announce=dark.announce, reveal=dark.reveal)
    return replace(shape, ends=(A.End(A.BoardFull(), node),) + shape.ends)  # a result


# Where the lowered program holds each category's code, and the lowering table it comes from.
_CODES: dict[str, tuple[str, dict, Callable[[Any], int]]] = {
    "move kind": ("moves", program._MOVE_CODES, lambda g: g.program.rules[0, codes.R_KIND]),
    "effect": ("effects", program._EFFECT_CODES,
               lambda g: g.program.effects[0, g.program.rules[0, codes.R_N_EFFECTS] - 1, codes.FX_KIND]),
    "turn order": ("turns", program._TURNS, lambda g: g.program.game[codes.G_TURN]),
    "end condition": ("conditions", program._CONDITIONS, lambda g: g.program.ends[0, codes.E_CONDITION]),
    "result": ("results", program._RESULTS, lambda g: g.program.ends[0, codes.E_RESULT]),
    # a hidden stage's information codes (announcements change what a player is told, not the tries:
    # the kernels need no code for them)
    "hiding": ("hidings", program._HIDINGS, lambda g: program.information(g.stage)[0]),
    "refusal": ("refusals", program._REFUSALS, lambda g: program.information(g.stage)[1]),
    # (a stage's reveals are a mask: one reveal, one bit)
    "reveal": ("reveals", program._REVEALS, lambda g: int(program.information(g.stage)[2]).bit_length() - 1),
}
_CODE_VALUES = {**codes.CATEGORIES, "hidings": codes.HIDINGS, "refusals": codes.REFUSALS, "reveals": codes.REVEALS}


def _compiled(kind: type, cat: Category, shape: str = "generic"):
    """The concept's stage of a shape, compiled (compiler.playable: a CompiledDarkGame where it hides
    information): (game, None), or (None, what went wrong)."""
    try:
        return compiler.playable(_put(kind, cat, _SHAPES[shape])), None
    except (StageError, KeyError, ValueError, TypeError) as err:
        return None, f"{type(err).__name__}: {str(err).splitlines()[0]}"


def _code(kind: type, cat: Category) -> tuple[int | None, str | None]:
    """The concept's code (None for a category without codes) or what is missing."""
    if cat.name not in _CODES:
        return None, None
    category, table, read = _CODES[cat.name]
    if kind not in table:
        return None, (f"compiler/program.py has no lowering for {kind.__name__} (give it a code in compiler/codes.py "
                      f"{category} and an entry in program.py's table)")
    game, problem = _compiled(kind, cat)
    if game is None:
        return None, f"compiler/program.py cannot lower a stage with {kind.__name__}: {problem}"
    code = int(read(game))
    if code not in _CODE_VALUES[category]:
        return None, f"{kind.__name__} lowers to {code}, not a code of compiler/codes.py {category}"
    return code, None


def _program_code(kind: type, cat: Category) -> str | None:
    code, problem = _code(kind, cat)
    if problem is None and code is not None:
        others = [k.__name__ for k in cat.kinds if k is not kind and _code(k, cat)[0] == code]
        if others:
            return f"{kind.__name__} lowers to code {code}, as {others} do"
    if problem is None and cat.name not in _CODES:  # board kinds and the pass rule: tables, not codes
        game, problem = _compiled(kind, cat)
    return problem


# The kernels' dispatchers that branch on each category's code: where a new concept's branch goes.
_DISPATCHERS = {
    "move kind": "compiler/moves.py _candidates and compiler/effects.py leaves_origin",
    "effect": "compiler/effects.py play",
    "end condition": ("compiler/ends.py counted or holds_cells (and holds_bits, board_bits or holds_placed, for a "
                      "family that takes it)"),
    "result": "compiler/ends.py winner",
    "turn order": "compiler/turns.py next_player and next_player_bits",
}


def _kernel_branch(kind: type, cat: Category) -> str | None:
    """Random games of the concept in every family's shape, on the generic kernels, on the family
    that takes the stage (which must play the very same games for a seed) and from Python: a
    dispatcher without a branch stops with InternalError, named here with the path that met it.
    Some shape must play past its second ply, or the concept's kernels were hardly tried."""
    longest = 0
    for shape in _SHAPES:
        game, problem = _compiled(kind, cat, shape)
        if game is None:
            if shape == "generic":
                return f"the compiler cannot take a stage with {kind.__name__}: {problem}"
            continue  # the concept does not fit this shape (a move kind in the Othello family's, ...)
        dark = isinstance(game, compiler.CompiledDarkGame)  # tries: their own kernels, and the family's
        family = game.truth.fast_playouts if dark else game.fast_playouts
        cap = {"max_tries": 200} if dark else {"max_plies": 200}
        path = "the generic kernels' playouts"
        try:
            generic = game.playouts(20, seed=1, generic=True, **cap)
            longest = max(longest, int(generic.lengths.max()))
            if family is not None:
                path = f"the {family} family's playouts"
                fast = game.playouts(20, seed=1, **cap)
                if not (np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)):
                    return f"the {family} family plays other games than the generic kernels ({shape} shape)"
            path = f"calls from Python ({family or 'generic'} step)"
            state = game.initial_state()
            for _ in range(60):
                if game.is_terminal(state):
                    break
                state = game.apply(state, game.legal_moves(state)[-1])
        except InternalError as err:
            where = _DISPATCHERS.get(cat.name, "the kernel dispatchers")
            return f"{path} met a code without a branch ({shape} shape): give {kind.__name__} a branch in {where}. {err}"
    if longest < 2:
        return f"no shape plays {kind.__name__} past a second ply (tests/test_concepts.py _SHAPES): hardly tried"
    return None


def _family_decision(kind: type, cat: Category) -> str | None:
    if cat.name not in _CODES:
        return None  # families take or leave boards and the pass rule by the program's shape
    if cat.name in INFORMATION:  # a family plays tries in a form of its own (dark_playouts), or leaves them
        return None  # to compiler/information.py: the kernels layer holds the two to the same games
    code, problem = _code(kind, cat)
    if problem is not None:
        return problem
    category = _CODES[cat.name][0]
    undecided = [f.NAME for f in families.FAMILIES
                 if (code in f.HANDLES[category]) == (code in f.EXCLUDES[category])]
    if undecided:
        return f"compiler/families/ {undecided} neither handle nor exclude {kind.__name__} (code {code}), or do both"
    return None


# --- the static checks: the traits they read, declared on each concept's class --------------------


def _category_class(kind: type) -> type | None:
    return next((base for base, _ in A.CATEGORIES if issubclass(kind, base)), None)


def _piece_needed(kind: type) -> bool:
    """Whether the reference interpreter finds no move of the kind on a board without pieces."""
    game = reference(replace(BASE, moves=(A.MoveRule(sample(kind)),)))
    return not game.legal_moves(game.initial_state())


def _roll_read(kind: type) -> bool:
    """Whether the reference interpreter's moves of the kind change with the roll (a piece of each
    player on a 5x5 board, each roll of a die)."""
    stage = replace(BASE, board=A.SquareBoard(5), forward=_HEADINGS, moves=(A.MoveRule(sample(kind)),),
                    setup=(A.Setup("a", (A.Cell(2, 2),)), A.Setup("b", (A.Cell(4, 4),))), roll=A.Roll(1, 6))
    game = reference(stage)
    start = game.initial_state()
    return len({tuple(game.legal_moves(game.with_roll(start, roll))) for roll in range(1, 7)}) > 1


def _takes_pieces(kind: type) -> bool:
    """Whether the reference interpreter's moves take pieces with the effect alone, in random games
    of a small placement game (its pieces side by side from the start)."""
    shape = _SHAPES["placement"]
    stage = replace(shape, forward=_HEADINGS, moves=(A.MoveRule(A.PlaceEmpty(), (sample(kind),)),),
                    setup=(A.Setup("a", (A.Cell(1, 1), A.Cell(2, 2))), A.Setup("b", (A.Cell(1, 2), A.Cell(2, 1)))))
    game, rng = reference(stage), random.Random(0)
    for _ in range(30):
        state = game.initial_state()
        while not game.is_terminal(state):
            state, taken = game.apply_counted(state, rng.choice(game.legal_moves(state)))
            if taken:
                return True
    return False


def _counts_pieces(kind: type) -> bool:
    """Whether the reference interpreter's winner by the result changes when the pieces on the board
    alone change: a game over at once, its first player with one piece and its second with none or two."""
    winners = set()
    for second in ((), (A.Cell(0, 1), A.Cell(0, 2))):
        stage = replace(BASE, ends=(A.End(A.AfterPlies(0), sample(kind)),),
                        setup=(A.Setup("a", (A.Cell(0, 0),)), *([A.Setup("b", second)] if second else [])))
        game = reference(stage)
        winners.add(game.winner(game.initial_state()))
    return len(winners) > 1


# What each trait must be, beyond being declared: (check of the value, what it should be).
_TRAIT_VALUES: dict[str, tuple[Callable[[type, Any], bool], str]] = {
    "hexagonal": (lambda kind, v: isinstance(v, bool), "a bool"),
    "needs_piece": (lambda kind, v: v is _piece_needed(kind),
                    "whether the reference interpreter finds no move of it on a board without pieces"),
    "takes_on_arrival": (lambda kind, v: isinstance(v, bool) and (not v or "target" in vars(kind)["__dataclass_fields__"]),
                         "a bool, true only for a move with a target"),
    "covered_by": (lambda kind, v: isinstance(v, tuple) and set(v) <= {k.keyword for k in A.MOVE_KINDS} - {kind.keyword},
                   "a tuple of the keywords of other move kinds"),
    "takes": (lambda kind, v: v is _takes_pieces(kind),
              "whether the reference interpreter's moves take pieces with this effect alone"),
    "needs_heading": (lambda kind, v: isinstance(v, bool), "a bool"),
    "minimum": (lambda kind, v: v is None or dict(A.forms(kind)).get(v).__class__ is A.Count,
                "None or the name of a count field of the condition"),
    "counts_pieces": (lambda kind, v: v is _counts_pieces(kind),
                      "whether the reference interpreter's winner changes with the pieces on the board alone"),
    "reads_roll": (lambda kind, v: v is _roll_read(kind),
                   "whether the reference interpreter's moves of it change with the roll"),
    "at_start": (lambda kind, v: v is None or v in check_ends.AT_START,
                 f"None or a check of gdl/checks/ends.py AT_START ({', '.join(check_ends.AT_START)})"),
}


def _check_traits(kind: type, cat: Category) -> str | None:
    """Every trait the static checks read of a concept of the category is declared in the
    concept's own class (gdl/ast.py), so that none is inherited or forgotten, and makes sense."""
    category = _category_class(kind)
    if category is None:
        return (f"{kind.__name__} derives from no category class of gdl/ast.py "
                f"({', '.join(base.__name__ for base, _ in A.CATEGORIES)}): the checks cannot read its traits")
    for trait in category.traits:
        if trait not in vars(kind):
            return (f"{kind.__name__} does not declare its trait `{trait}` (see {category.__name__} in gdl/ast.py) "
                    "in its own class: the static checks read it")
        valid, should = _TRAIT_VALUES[trait]
        if not valid(kind, vars(kind)[trait]):
            return f"{kind.__name__}.{trait} is {vars(kind)[trait]!r}; it should be {should}"
    return None


# --- the language's documentation: a row for every concept -----------------------------------------

LANGUAGE_DOC = (Path(__file__).parent.parent / "docs" / "language.md").read_text(encoding="utf-8")


def _documented(kind: type, cat: Category) -> str | None:
    """docs/language.md shows the concept's keyword as the language writes it (in backticks, after
    its statement's word if it has one: `board hex N`, `turn fewer-pieces`), where a person reads
    what it means."""
    keyword = vars(kind).get("keyword")
    if keyword is None:
        return f"{kind.__name__} declares no keyword of its own: docs/language.md cannot name it"
    if not re.search(rf"`(?:[a-z]+ )?{re.escape(keyword)}\b", LANGUAGE_DOC):
        return f"docs/language.md never shows `{keyword}` ({cat.name}): add a row to its table saying what it means"
    return None


# --- the rules in plain English: a sentence with every concept, saying every field -----------------


def _english(kind: type, cat: Category) -> str | None:
    """The concept declares its own sentence (gdl/ast.py `sentence`), which says every field the
    concept has and names no phrase gdl/english.py cannot fill in; it reads in a stage."""
    template = vars(kind).get("sentence")
    if not isinstance(template, str) or not template:
        return f"{kind.__name__} declares no `sentence` of its own in gdl/ast.py: the rules in English cannot say it"
    named = english.placeholders(template)
    fields = [name for name, _ in A.forms(kind)] if dataclasses.is_dataclass(kind) else []
    unsaid = [name for name in fields if name not in named]
    if unsaid:
        return f"the sentence of {kind.__name__} drops its field {unsaid[0]!r}: say it with {{{unsaid[0]}}}"
    unknown = [name for name in named if name not in fields and name not in english.CONTEXT]
    if unknown:
        return f"the sentence of {kind.__name__} names {{{unknown[0]}}}, neither a field nor a phrase of english.CONTEXT"
    text = english.rules_text(cat.put(sample(kind)))
    if "{" in text or "}" in text:
        return f"the rules of a stage with {kind.__name__} keep a placeholder: {text!r}"
    return None


def _english_word(word: str, voc: Vocabulary) -> str | None:
    try:
        english.rules_text(voc.stage(word))
    except KeyError as err:
        return f"gdl/english.py cannot say the {voc} `{word}` (WORD_PHRASES): {err}"
    if voc.terminal in english.WORD_PHRASES and word not in english.WORD_PHRASES[voc.terminal]:
        return f"gdl/english.py WORD_PHRASES[{voc.terminal!r}] lacks `{word}`"
    if voc.terminal == "DIRECTION" and word not in geometry.words(False):
        return f"gdl/english.py says directions through gdl/geometry.py, which does not know `{word}`"
    if voc.terminal == "DIRECTION" and word in geometry.RELATIVE_WORDS and word not in english.RELATIVE_PHRASES:
        return f"gdl/english.py RELATIVE_PHRASES lacks the forward-relative word `{word}`"
    return None


# --- the table of layers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """A layer of the pipeline that must know every concept."""

    name: str
    concept: Callable[[type, Category], str | None]  # what it lacks for a node class, or None
    word: Callable[[str, Vocabulary], str | None] | None  # for a word; None: words need nothing here

    def __str__(self) -> str:
        return self.name


LAYERS: tuple[Layer, ...] = (
    Layer("grammar", _grammar_rule, _grammar_word),
    Layer("parser", _parser_entry, _parser_word),
    Layer("printer", _printer_entry, None),  # words are printed as they are written
    Layer("bits", _bits_cost, _bits_word),
    Layer("interpreter", _interpreter_function, _interpreter_word),
    Layer("checks", _check_traits, None),
    Layer("program", _program_code, None),
    Layer("kernels", _kernel_branch, None),
    Layer("families", _family_decision, None),
    Layer("docs", _documented, None),
    Layer("english", _english, _english_word),
)
WORD_LAYERS = tuple(layer for layer in LAYERS if layer.word is not None)


@pytest.mark.parametrize("layer", LAYERS, ids=str)
@pytest.mark.parametrize("kind, cat", CONCEPTS)
def test_concept_in_layer(kind, cat, layer):
    problem = layer.concept(kind, cat)
    assert problem is None, f"{kind.__name__} ({cat}) is missing from the {layer}: {problem}"


@pytest.mark.parametrize("layer", WORD_LAYERS, ids=str)
@pytest.mark.parametrize("word, voc", WORDS)
def test_word_in_layer(word, voc, layer):
    problem = layer.word(word, voc)
    assert problem is None, f"the {voc} `{word}` is missing from the {layer}: {problem}"


@pytest.mark.parametrize("kind, cat", CONCEPTS)
def test_concept_round_trips(kind, cat):
    stage = cat.put(sample(kind))
    assert parse(fmt(stage)) == stage


# --- each check fails for a concept its layer lacks -----------------------------------------------


@dataclass(frozen=True)
class Fancy(A.Node):
    """A concept no layer has heard of: `end fancy: draw`."""

    keyword: ClassVar[str] = "fancy"
    rule: ClassVar[str] = "cond_fancy"


@dataclass(frozen=True)
class LongLine(A.Line):
    """A concept that inherits everything from `line` and declares nothing of its own."""


END_CONDITION = next(cat for cat in CATEGORIES if cat.kinds is A.CONDITIONS)


@pytest.mark.parametrize("layer", LAYERS, ids=str)
@pytest.mark.parametrize("kind", [Fancy, LongLine], ids=lambda k: k.__name__)
def test_each_layer_reports_a_concept_it_lacks(kind, layer):
    problem = layer.concept(kind, END_CONDITION)
    assert problem is not None, f"the {layer} check does not notice that the {layer} lacks {kind.__name__}"


@pytest.mark.parametrize("layer", WORD_LAYERS, ids=str)
@pytest.mark.parametrize("voc", VOCABULARIES, ids=str)
def test_each_layer_reports_a_word_it_lacks(voc, layer):
    problem = layer.word("fancy", voc)
    assert problem is not None, f"the {layer} check does not notice that the {layer} lacks the {voc} `fancy`"


@dataclass(frozen=True)
class Lonely(A.MoveKind, A.Node):
    """A placement that says it needs a piece of the mover, which the interpreter does not agree with."""

    keyword: ClassVar[str] = "place lonely"
    rule: ClassVar[str] = "place_lonely"
    needs_piece: ClassVar[bool] = True
    takes_on_arrival: ClassVar[bool] = False
    covered_by: ClassVar[tuple[str, ...]] = ("place nowhere",)


def test_the_checks_layer_reports_a_wrong_trait(monkeypatch):
    monkeypatch.setattr(moves, "_GENERATORS", {**moves._GENERATORS, Lonely: moves._GENERATORS[A.PlaceEmpty]})
    monkeypatch.setattr(moves, "_VACATES_ORIGIN", {**moves._VACATES_ORIGIN, Lonely: False})
    problem = _check_traits(Lonely, CATEGORIES[1])
    assert problem is not None and "Lonely.needs_piece is True" in problem
    monkeypatch.setattr(Lonely, "needs_piece", False)
    assert "Lonely.covered_by" in _check_traits(Lonely, CATEGORIES[1])


def test_the_english_layer_names_a_concept_that_drops_a_field(monkeypatch):
    monkeypatch.setattr(A.Line, "sentence", "the player who just moved has {length:piece|pieces} in a line {axes}")
    problem = _english(A.Line, END_CONDITION)
    assert problem is not None and "Line" in problem and "'exact'" in problem
    monkeypatch.setattr(A.Line, "sentence", "{length} {exact:exactly} {fancy}")
    assert "{fancy}" in _english(A.Line, END_CONDITION)


def test_every_trait_has_a_value_check():
    traits = {trait for category, _ in A.CATEGORIES for trait in category.traits}
    assert traits == set(_TRAIT_VALUES), "a trait of gdl/ast.py without its check in _TRAIT_VALUES, or the reverse"
    used = {kind.at_start for kind in A.CONDITIONS} - {None}
    assert used == set(check_ends.AT_START), "gdl/checks/ends.py AT_START holds a check no condition names"


FORMS = [c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Form) and c is not A.Form]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_every_form_is_read_printed_coded_and_said(form):
    """A field's form is what the parser, the printer, the code and the English read (one table each)."""
    tables = {"gdl/parser.py _FORM_READERS": parser._FORM_READERS, "gdl/printer.py _FORM_TEXT": printer._FORM_TEXT,
              "gdl/bits.py _FORM_CODES": B._FORM_CODES, "gdl/english.py _FORM_SAYERS": english._FORM_SAYERS}
    missing = [where for where, table in tables.items() if form not in table]
    assert not missing, f"the form {form.__name__} has no entry in {', '.join(missing)}"


# --- the other way round: the AST declares every concept that the grammar has -----------------------


def test_every_concept_class_is_in_a_category():
    declared = [c for c in vars(A).values()
                if isinstance(c, type) and issubclass(c, A.Node) and "keyword" in vars(c)]
    in_categories = tuple(kind for cat in CATEGORIES for kind in cat.kinds)
    assert sorted(c.__name__ for c in declared) == sorted(kind.__name__ for kind in in_categories)
    assert A.CONCEPTS == in_categories, "A.CONCEPTS is not the categories, in order"
    for attr in ("keyword", "rule"):
        values = [getattr(kind, attr) for kind in in_categories]
        assert len(set(values)) == len(values), f"two concepts declare the same {attr}"


def test_every_grammar_rule_has_a_builder():
    rules = {name for name in GRAMMAR_RULES if not name.startswith("_") and name not in INLINED}
    assert rules - set(parser._BUILDERS) == set(), "grammar rules that the parser cannot build"
    assert rules - REACHABLE == set(), "grammar rules that no statement reaches"


def test_an_unknown_grammar_rule_is_an_internal_error():
    with pytest.raises(InternalError, match="no builder for grammar rule 'cond_fancy'"):
        parser._build(Tree("cond_fancy", []))


@pytest.mark.parametrize("voc", VOCABULARIES, ids=str)
def test_the_grammar_has_no_word_the_ast_lacks(voc):
    assert len(set(voc.words)) == len(voc.words), f"a {voc} is listed twice"
    assert terminal_words(voc.terminal) == set(voc.words)
