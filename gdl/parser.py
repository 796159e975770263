"""Text → AST: the Lark grammar (grammar.lark), the builders of its rules, and diagnostics.

A file is read as blocks, one per statement: the statement's line and the indented lines under it.
Each block is parsed on its own, so one bad line does not hide the errors of the others; then the
statements are assembled into a `Stage`. Only syntax and the statements a stage cannot do
without (`board`, `players`) are checked here; everything else is gdl/checks.py's job, so that
any AST, valid or not, prints and parses back to itself.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Callable

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternRE, TerminalDef

from . import ast as A
from .diagnostics import Diagnostic, InternalError, LudicaError, StageError, diagnostic


STATEMENT_KEYWORDS = A.STATEMENT_KEYWORDS  # keywords that open a statement, in canonical order

# Words of the terminals that stand for a closed set of keywords (for "expected" and did-you-mean).
_WORD_TERMINALS: dict[str, tuple[str, ...]] = {
    "DIRECTION": A.DIRECTION_WORDS,
    "TARGET": A.TARGETS,
    "HEADING": A.HEADINGS,
    "SIDES": A.SIDE_PAIRS,
    "WRAP": ("wrap",),
    "EXACT": ("exact",),
    "OVER_BLOCKED": ("over-blocked",),
}
_TERMINAL_PROSE = {
    "DIRECTION": "a direction (all, orthogonal, diagonal, forward, n, ne, ...)",
    "TARGET": "empty, enemy or any",
    "HEADING": "up, down, left or right",
    "SIDES": "top-bottom or left-right",
    "CELL": "a cell (like d5)",
    "NAME": "a player name",
    "STRING": 'a quoted name (like "Othello")',
    "INT": "a number",
    "DICE": "dice written KdN, without spaces (like 2d6: two six-sided dice)",
    "_NL": "the end of the line",
    "$END": "the end of the line",
}
# The keywords of the grammar by terminal name (`MOVE` -> "move"), recorded before they are edited.
_KEYWORDS: dict[str, str] = {}
_WORD_END = r"(?![A-Za-z0-9_-])"


def _whole_words(t: TerminalDef) -> None:
    """A keyword matches a whole word only: `stepn` is not `step n`, `diagonals` not `diagonal s`.

    Lark matches a keyword as a prefix wherever the parser expects it, so without this a typo
    that starts with a keyword is silently read as two words. The keywords become regexps with a
    word-end lookahead, one priority above NAME so that where both are allowed the keyword wins
    (which is what Lark does for plain string keywords).
    """
    pattern = t.pattern
    if pattern.type == "str":
        _KEYWORDS[t.name] = pattern.value
        if re.fullmatch(r"[a-z][a-z-]*", pattern.value):
            t.pattern = PatternRE(re.escape(pattern.value) + _WORD_END, pattern.flags)
            t.priority = max(t.priority, 1)
    elif t.name in _WORD_TERMINALS:
        t.pattern = PatternRE(f"(?:{pattern.value}){_WORD_END}", pattern.flags)


def concept_grammar() -> str:
    """The grammar rules of the concepts, generated from the AST: each category's alternatives
    and each concept's rule (its keyword's words, then each field's form, in field order).

    Generated rather than written beside the classes and checked, because a check would only say
    where to write what the class already declares; here a concept without parameters needs no
    grammar at all, and one with parameters of known forms needs none either."""
    lines = []
    for category, kinds in A.CATEGORIES:
        lines.append(f"?{category.alternatives}: " + " | ".join(kind.rule for kind in kinds))
        for kind in kinds:
            words = [f'"{word}"' for word in kind.keyword.split()]
            lines.append(f"{kind.rule}: " + " ".join(words + [form.grammar() for _, form in A.forms(kind)]))
    return "\n".join(lines) + "\n"


# The whole grammar: the statements of grammar.lark and the concepts' generated rules.
GRAMMAR = (Path(__file__).with_name("grammar.lark")).read_text() + "\n// generated from gdl/ast.py\n" + concept_grammar()

_LARK = Lark(
    GRAMMAR,
    start="block",
    parser="lalr",
    propagate_positions=True,
    maybe_placeholders=False,
    edit_terminals=_whole_words,
)


# --- reading a file as blocks -------------------------------------------------------------------


@dataclass
class _Block:
    lines: list[tuple[int, str]]  # (line number in the file, text without its comment)

    @property
    def head(self) -> str:
        words = self.lines[0][1].split()
        return words[0] if words else ""


def _strip_comment(line: str) -> str:
    """The line without its `#` comment; a `#` inside a quoted name is kept."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def _blocks(text: str, problems: list[Diagnostic]) -> list[_Block]:
    blocks: list[_Block] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        code = _strip_comment(raw).rstrip()
        if not code.strip():
            continue
        if code[0] in " \t":
            if not blocks:
                problems.append(diagnostic("syntax.indent-at-start", _line_span(number, code)))
                blocks.append(_Block([(number, code)]))  # still read it: the stage may need it
            elif blocks[-1].head != "move":
                if blocks[-1].head in STATEMENT_KEYWORDS:  # an unknown head is reported once, by itself
                    problems.append(diagnostic("syntax.stray-indent", _line_span(number, code), keyword=blocks[-1].head))
            else:
                blocks[-1].lines.append((number, code))
            continue
        blocks.append(_Block([(number, code)]))
    return blocks


def _line_span(number: int, code: str) -> A.Span:
    start = len(code) - len(code.lstrip()) + 1
    return A.Span(number, start, number, len(code) + 1)


# --- syntax errors ------------------------------------------------------------------------------


def _describe_expected(names) -> str:
    words = []
    for name in sorted(set(names) - {n for n, v in _KEYWORDS.items() if v == ".."}):
        if name in _KEYWORDS:
            words.append(f"`{_KEYWORDS[name]}`")
        else:
            words.append(_TERMINAL_PROSE.get(name, name))
    words = sorted(set(words))
    if len(words) == 1:
        return words[0]
    return "one of: " + ", ".join(words)


def _candidates(names) -> list[str]:
    out: list[str] = []
    for name in names:
        if name in _KEYWORDS:
            out.append(_KEYWORDS[name])
        out.extend(_WORD_TERMINALS.get(name, ()))
    return out


def _did_you_mean(word: str, names) -> str | None:
    close = difflib.get_close_matches(word.lower(), _candidates(names), n=1, cutoff=0.6)
    if close and close[0] != word:
        return f"did you mean `{close[0]}`?"
    if "CELL" in names and word[:1].isalpha() and word[1:].isdigit() and word != word.lower():
        return f"cells are written in lower case: `{word.lower()}`"
    return None


def _describe_token(tok: Token) -> str:
    if tok.type in _KEYWORDS or tok.type in _WORD_TERMINALS:
        return f"`{tok}`"
    kind = {"CELL": "cell", "NAME": "word", "INT": "number", "STRING": "name"}.get(tok.type, "text")
    return f"{kind} `{tok}`"


# Mistakes people make, recognised on the line a syntax error is on, with the fix to suggest when
# the error has no did-you-mean of its own. Checked in order; the first that matches gives the hint.
COMMON_MISTAKES: tuple[tuple[str, str], ...] = (
    (r"^end\s+[^:]*$", "a colon separates the condition from its result: `end no-moves: most-pieces`"),
    (r"^board\s+\w+\s+\d+x\d+", "sizes are numbers: `board square 8`, or `board rect 6 7`"),
    (r"\b[a-z]0\b", "rows are numbered from 1: the top-left cell is a1"),
    (r"capture\s+on-arrival", "arriving on an enemy piece captures it: write `to enemy` or `to any` on the move"),
    (r"^roll\b", "dice are written KdN, without spaces: `roll 1d6` throws one six-sided die, `roll 2d6` two"),
    (r"^\s*(?:game|board|players|setup|move|turn|pass|end|blocked|forward|hidden|refused|announce|reveal|roll):", "no colon after the statement's keyword"),
)


def _mistake_hint(line: str) -> str | None:
    return next((hint for pattern, hint in COMMON_MISTAKES if re.search(pattern, line.strip())), None)


def _syntax_error(err: UnexpectedInput, block: _Block) -> Diagnostic:
    found = _syntax_error_of(err, block)
    if found.hint is None and found.span is not None:
        hint = _mistake_hint(dict(block.lines).get(found.span.line, ""))
        if hint:
            found = replace(found, hint=hint)
    return found


def _syntax_error_of(err: UnexpectedInput, block: _Block) -> Diagnostic:
    def file_line(local: int) -> int:
        return block.lines[min(max(local, 1), len(block.lines)) - 1][0]

    last_number, last_text = block.lines[-1]
    end_span = A.Span(last_number, len(last_text) + 1, last_number, len(last_text) + 2)
    if isinstance(err, UnexpectedToken) and err.token.type != "$END":
        tok = err.token
        span = A.Span(file_line(tok.line), tok.column, file_line(tok.end_line), tok.end_column)
        if tok.type == "_NL":  # the line ended before the statement did
            number, text = block.lines[tok.line - 1]
            span = A.Span(number, len(text) + 1, number, len(text) + 2)
            return diagnostic("syntax.unexpected-end", span, expected=_describe_expected(err.expected))
        # The lexer may have matched a keyword inside a longer word (`s` of `sqare`): show the word.
        text = dict(block.lines)[span.line]
        word = text[tok.column - 1:].split()[0].rstrip(":,")
        if len(word) > len(tok):
            span = A.Span(span.line, tok.column, span.line, tok.column + len(word))
            found = f"word `{word}`"
        else:
            word, found = str(tok), _describe_token(tok)
        return diagnostic(
            "syntax.unexpected-token", span, _did_you_mean(word, err.expected),
            found=found, expected=_describe_expected(err.expected),
        )
    if isinstance(err, (UnexpectedToken, UnexpectedEOF)):
        return diagnostic("syntax.unexpected-end", end_span, expected=_describe_expected(err.expected))
    if isinstance(err, UnexpectedCharacters):
        number = file_line(err.line)
        text = dict(block.lines)[number]
        if err.char == '"':
            return diagnostic("syntax.unclosed-string", A.Span(number, err.column, number, len(text) + 1))
        word = text[err.column - 1:].split()[0] if text[err.column - 1:].split() else err.char
        span = A.Span(number, err.column, number, err.column + len(word))
        return diagnostic(
            "syntax.unexpected-character", span, _did_you_mean(word, err.allowed),
            char=err.char, expected=_describe_expected(err.allowed),
        )
    raise InternalError(f"unexpected parser error {err!r}")


# --- builders: a table for the concept nodes, a small builder for each other rule ----------------

Builder = Callable[[list, A.Span | None], Any]
_BUILDERS: dict[str, Builder] = {}


def builds(rule: str) -> Callable[[Builder], Builder]:
    def register(fn: Builder) -> Builder:
        _BUILDERS[rule] = fn
        return fn

    return register


@dataclass(frozen=True)
class _Statement:
    """A statement that contributes to a field of the Stage rather than being a node itself."""

    keyword: str
    value: Any
    span: A.Span | None


def _has(children: list, terminal: str) -> bool:
    return any(isinstance(c, Token) and c.type == terminal for c in children)


# Bounds that make a hostile file cheap to refuse: every number, every cell's row and the file's
# size are checked here, before any list is built (`blocked a1..z999999` would otherwise name 26
# million cells before a check could say that the board has 64).
MAX_NUMBER = 1_000_000  # a board side, a distance, a line length, a ply count
MAX_LINES = 10_000
MAX_CHARACTERS = 1_000_000


class _OutOfBounds(LudicaError):
    """A number or a cell beyond what any stage can mean: reported as a diagnostic of its line."""

    def __init__(self, tok: Token, code: str, **fields):
        super().__init__(code)
        self.tok, self.code, self.fields = tok, code, fields


def _bounded(tok: Token) -> int:
    if len(tok) > len(str(MAX_NUMBER)) or int(tok) > MAX_NUMBER:  # the length first: int() of 5,000 digits fails
        shown = str(tok) if len(tok) <= 20 else f"{tok[:8]}...({len(tok)} digits)"
        raise _OutOfBounds(tok, "syntax.number-too-large", number=shown, limit=MAX_NUMBER)
    return int(tok)


def _int(children: list) -> list[int]:
    return [_bounded(c) for c in children if isinstance(c, Token) and c.type == "INT"]


def _token_span(tok: Token) -> A.Span | None:
    """Where a token was read; None for a token without a position (one made, not lexed)."""
    if tok.line is None or tok.column is None or tok.end_line is None or tok.end_column is None:
        return None
    return A.Span(tok.line, tok.column, tok.end_line, tok.end_column)


def _cell(tok: Token) -> A.Cell:
    digits = tok[1:]
    if len(digits) > 2 or int(digits) > A.MAX_BOARD_SIDE:
        shown = str(tok) if len(tok) <= 20 else f"{tok[:8]}..."
        raise _OutOfBounds(tok, "syntax.cell-beyond-boards", cell=shown, rows=A.MAX_BOARD_SIDE)
    return A.Cell(int(digits) - 1, A.COLUMN_LETTERS.index(tok[0]), span=_token_span(tok))


# A concept node (a board kind, move kind, effect, turn order, end condition, result, the pass
# rule: A.CONCEPTS) is built the same way whatever it is, so it has no builder of its own: the
# grammar rule it declares on its class (`rule`, beside its `keyword`, generated by
# `concept_grammar`) maps to the class, and each field of the class is read from the rule's
# children by the reader of the field's form (gdl/ast.py). The AST class is the one declaration of
# a concept here: a new concept needs nothing in this file unless a field has a new kind of form,
# which needs a reader. This is lark.ast_utils' rule -> class table, with readers by form instead
# of positional arguments because optional children (`step directions? target?`) leave gaps.

Reader = Callable[[list], Any]  # a field's value from the rule's children; None: absent, keep the default


def _number(k: int) -> Reader:
    """The rule's k-th number (`board rect ROWS COLS`: rows are number 0, columns number 1)."""
    return lambda c: next(iter(_int(c)[k:]), None)


def _word(terminal: str) -> Reader:
    return lambda c: next((str(t) for t in c if isinstance(t, Token) and t.type == terminal), None)


def _words(terminal: str) -> Reader:
    return lambda c: tuple(str(t) for t in c if isinstance(t, Token) and t.type == terminal) or None


def _flag(terminal: str) -> Reader:
    return lambda c: True if _has(c, terminal) else None


def _child(kind: type) -> Reader:
    return lambda c: next((t for t in c if isinstance(t, kind)), None)


# A field's reader by its form; `numbers` counts the numbers of the rule before the field.
_FORM_READERS: dict[type, Callable[[Any, int], Reader]] = {
    A.Side: lambda form, numbers: _number(numbers),
    A.Count: lambda form, numbers: _number(numbers),
    A.Flag: lambda form, numbers: _flag(form.terminal),
    A.Word: lambda form, numbers: _word(form.terminal),
    A.Words: lambda form, numbers: _words(form.terminal),
    A.DirectionList: lambda form, numbers: _child(A.Directions),
}
_NUMBER_FORMS = (A.Side, A.Count)


def _concept(kind: type) -> Builder:
    """The builder of a concept node: its fields read from the rule's children by their forms."""
    readers: dict[str, Reader] = {}
    numbers = 0
    for name, form in A.forms(kind):
        if type(form) not in _FORM_READERS:
            raise InternalError(f"no reader for the form {type(form).__name__} of {kind.__name__}.{name}: "
                                "add one to _FORM_READERS")
        readers[name] = _FORM_READERS[type(form)](form, numbers)
        numbers += isinstance(form, _NUMBER_FORMS)

    def build(c: list, span: A.Span | None) -> Any:
        values = {name: read(c) for name, read in readers.items()}
        return kind(**{name: v for name, v in values.items() if v is not None}, span=span)

    return build


# The table: grammar rule -> concept node class.
_CONCEPT_RULES: dict[str, type] = {kind.rule: kind for kind in A.CONCEPTS}
_BUILDERS.update((rule, _concept(kind)) for rule, kind in _CONCEPT_RULES.items())


@builds("block")
def _block(c, span):
    return c[0]


@builds("game")
def _game(c, span):
    return _Statement("game", str(c[0])[1:-1], span)


@builds("blocked")
def _blocked(c, span):
    return _Statement("blocked", c[0], span)


@builds("cells")
def _cells(c, span):
    return tuple(c)


@builds("cell")
def _cell_rule(c, span):
    return _cell(c[0])


@builds("cell_range")
def _cell_range(c, span):
    return A.CellRange(_cell(c[0]), _cell(c[1]), span=span)


@builds("players")
def _players(c, span):
    return A.Players(tuple(str(t) for t in c), span=span)


@builds("forward")
def _forward(c, span):
    return _Statement("forward", tuple(c), span)


@builds("heading")
def _heading(c, span):
    return A.Heading(str(c[0]), str(c[1]), span=span)


@builds("setup")
def _setup(c, span):
    return A.Setup(str(c[0]), c[1], span=span)


@builds("blocked_random")
def _blocked_random(c, span):
    return A.RandomBlocked(int(c[0]), c[1], span=span)


@builds("setup_random")
def _setup_random(c, span):
    return A.RandomSetup(str(c[0]), int(c[1]), c[2], span=span)


@builds("roll")
def _roll(c, span):
    dice, faces = str(c[0]).split("d")
    return A.Roll(int(dice), int(faces), span=span)


@builds("move")
def _move(c, span):
    return A.MoveRule(c[0], tuple(c[1:]), span=span)


@builds("target")
def _target_rule(c, span):
    return c[0]  # the TARGET token, read by the move kind's `target` reader


@builds("directions")
def _directions(c, span):
    return A.Directions(tuple(str(t) for t in c), span=span)


@builds("board")
@builds("turn")
@builds("pass_rule")
@builds("hidden")
@builds("refused")
@builds("announce")
@builds("reveal")
def _concept_statement(c, span):
    return replace(c[0], span=span)  # the statement's span: `turn fewer-pieces`, not `fewer-pieces`


@builds("end")
def _end(c, span):
    return A.End(c[0], c[1], span=span)


def _build(tree: Tree) -> Any:
    children = [_build(c) if isinstance(c, Tree) else c for c in tree.children]
    meta = tree.meta
    span = None if meta.empty else A.Span(meta.line, meta.column, meta.end_line, meta.end_column)
    builder = _BUILDERS.get(str(tree.data))
    if builder is None:
        raise InternalError(f"no builder for grammar rule {tree.data!r}")
    return builder(children, span)


def _to_file_lines(tree: Tree, block: _Block) -> None:
    """Lark numbers the lines of the block; give tokens and nodes the file's line numbers."""
    numbers = [n for n, _ in block.lines]
    for tok in tree.scan_values(lambda v: isinstance(v, Token)):
        tok.line, tok.end_line = numbers[tok.line - 1], numbers[tok.end_line - 1]
    for sub in tree.iter_subtrees():
        if not sub.meta.empty:
            sub.meta.line, sub.meta.end_line = numbers[sub.meta.line - 1], numbers[sub.meta.end_line - 1]


# --- assembly -----------------------------------------------------------------------------------

_SINGLE = {"game", "board", "players", "turn", "pass", "hidden", "refused", "roll"}
_KEYWORD_OF = {A.Players: "players", A.MoveRule: "move", A.Setup: "setup", A.End: "end",
               A.RandomBlocked: "blocked random", A.RandomSetup: "setup random", A.Roll: "roll"}


def _keyword(statement: Any) -> str:
    if isinstance(statement, _Statement):
        return statement.keyword
    if isinstance(statement, A.Concept):
        return statement.statement  # a board kind, a turn order, the pass rule
    return _KEYWORD_OF[type(statement)]


def _assemble(statements: list, name: str, problems: list[Diagnostic], whole: A.Span,
              failed: set[str]) -> A.Stage | None:
    single: dict[str, Any] = {}
    many: dict[str, list] = {k: [] for k in ("blocked", "forward", "setup", "move", "end", "announce", "reveal",
                                             "blocked random", "setup random")}
    for st in statements:
        key = _keyword(st)
        if key in _SINGLE:
            if key in single:
                problems.append(diagnostic(
                    "stage.duplicate-statement", st.span, keyword=key, first_line=single[key].span.line))
                continue
            single[key] = st
        else:
            many[key].append(st)
    for key, why in (("board", "every stage needs a board, e.g. `board square 8`"),
                     ("players", "every stage names its players, e.g. `players black white`")):
        if key not in single and key not in failed:  # a bad `board` line is reported once, as itself
            problems.append(diagnostic("stage.missing-statement", A.Span(1, 1, 1, 1), keyword=key, why=why))
    if "board" not in single or "players" not in single:
        return None
    return A.Stage(
        name=single["game"].value if "game" in single else name,
        board=single["board"],
        players=single["players"],
        moves=tuple(many["move"]),
        ends=tuple(many["end"]),
        blocked=tuple(c for st in many["blocked"] for c in st.value),
        forward=tuple(h for st in many["forward"] for h in st.value),
        setup=tuple(many["setup"]),
        turn=single.get("turn", A.Alternate()),
        pass_rule=single.get("pass"),
        hidden=single.get("hidden"),
        refused=single.get("refused"),
        announce=tuple(many["announce"]),
        reveal=tuple(many["reveal"]),
        random_blocked=tuple(many["blocked random"]),
        random_setup=tuple(many["setup random"]),
        roll=single.get("roll"),
        span=whole,
    )


# --- the public entry points ---------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """What parsing found: the stage (None if it cannot be built), every syntax diagnostic, and the
    keywords of the statements that did not parse (so later checks don't call them missing)."""

    stage: A.Stage | None
    diagnostics: list[Diagnostic]
    failed: frozenset[str]


def parse_diagnostics(text: str, name: str = "") -> Parsed:
    """Parse a stage, collecting every syntax diagnostic instead of raising."""
    problems: list[Diagnostic] = []
    statements = []
    failed: set[str] = set()  # statements that did not parse
    lines = text.count("\n") + 1
    if len(text) > MAX_CHARACTERS or lines > MAX_LINES:
        size, limit = ((f"{len(text):,} characters", f"{MAX_CHARACTERS:,} characters") if len(text) > MAX_CHARACTERS
                       else (f"{lines:,} lines", f"{MAX_LINES:,} lines"))
        return Parsed(None, [diagnostic("syntax.stage-too-long", A.Span(1, 1, 1, 1), None, size=size, limit=limit)],
                      frozenset())
    for block in _blocks(text, problems):
        if block.head not in STATEMENT_KEYWORDS:
            number, code = block.lines[0]
            start = len(code) - len(code.lstrip())
            span = A.Span(number, start + 1, number, start + 1 + len(block.head))
            close = difflib.get_close_matches(block.head, STATEMENT_KEYWORDS, n=1, cutoff=0.5)
            hint = _mistake_hint(code) or (
                f"did you mean `{close[0]}`?" if close else "statements are: " + ", ".join(STATEMENT_KEYWORDS))
            problems.append(diagnostic("syntax.unknown-statement", span, hint, word=block.head))
            if close:  # `bord square 8` is the stage's board, misspelt: don't also call it missing
                failed.add(close[0])
            continue
        try:
            tree = _LARK.parse("\n".join(code for _, code in block.lines))
        except UnexpectedInput as err:
            problems.append(_syntax_error(err, block))
            failed.add(block.head)
            continue
        _to_file_lines(tree, block)
        try:
            statements.append(_build(tree))
        except _OutOfBounds as err:
            problems.append(diagnostic(err.code, _token_span(err.tok), None, **err.fields))
            failed.add(block.head)
    written = text.splitlines() or [""]
    whole = A.Span(1, 1, len(written), len(written[-1]) + 1)
    stage = _assemble(statements, name, problems, whole, failed)
    return Parsed(stage, problems, frozenset(failed))


def parse(text: str, path: str | Path | None = None) -> A.Stage:
    """Parse stage text into a Stage; raise StageError with every syntax error of the text.

    Only syntax is checked here; `gdl.check` and `gdl.load` also run the static checks. A stage
    without a `game` line is named after its file.
    """
    name = Path(path).stem if path is not None else ""
    parsed = parse_diagnostics(text, name)
    if parsed.stage is None or any(d.is_error for d in parsed.diagnostics):
        raise StageError(parsed.diagnostics, text, None if path is None else str(path))
    return parsed.stage
