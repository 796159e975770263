"""Text from agents (names, what they printed, their exception text) and from users' files (stage
names), made inert before it reaches a terminal: it is shown, never obeyed.

A terminal obeys control characters: ESC and the 8-bit CSI (0x9b) start sequences that move the
cursor, clear the screen, set the window's title (OSC 0) or write the clipboard (OSC 52), and BEL,
backspace or a carriage return let text overwrite what was printed before it. Each of them (C0 but
newline and tab, DEL, C1) is shown as `\\xNN` instead. So are the bidirectional controls (U+202E
right-to-left override and its kin, `\\u202e`), which would reorder what the terminal shows after
them: a name or an output that reads otherwise than it is. rich, on top of that, reads `[style]...[/]`
in the strings it prints as markup: text that goes through rich is escaped for it too.

Also how times are shown (`clock`), tables that never cut a number (`print_table`), and a run's
progress where no bar can be drawn (`PlainProgress`: output piped, in CI, under nohup).
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable

from rich.markup import escape

from .timeleft import Limits, seconds_left

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(text: object) -> str:
    """`text` (str() of it) with every control character but newline and tab shown as `\\xNN`
    (ESC as `\\x1b`, the 8-bit CSI as `\\x9b`), and the bidirectional ones as `\\uNNNN`: for
    print()."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        str(text))


def inert_rich(text: object) -> str:
    """`inert(text)` with rich's markup escaped: for console.print, table cells and progress
    descriptions, where `[red]` would otherwise be a style."""
    return escape(inert(text))


def print_table(console, title: str, header: list[str], rows: list[list[str]], keys: int = 1) -> None:
    """A table of `header` and `rows` (cells already made inert), its first `keys` columns text (an
    agent's name, which may wrap), the rest figures. rich cuts a cell that does not fit with `…`
    (`0.8…`, a header `R m…`), so a table too wide for the console is printed as several, each with
    the key columns and as many of the others as fit: no figure or header is ever cut."""
    from rich.measure import Measurement
    from rich.table import Table

    def table(columns: list[int], part: str) -> Table:
        t = Table(title=part if part.startswith("(") else title + part)
        for i in columns:
            t.add_column(header[i], justify="left" if i < keys else "right", no_wrap=i >= keys,
                         overflow="fold")
        for row in rows:
            t.add_row(*(row[i] for i in columns))
        return t

    def fits(columns: list[int]) -> bool:  # at its natural width: names unwrapped
        unbounded = console.options.update_width(1 << 16)
        return Measurement.get(console, unbounded, table(columns, "")).maximum <= console.width

    key, others = list(range(keys)), list(range(keys, len(header)))
    groups: list[list[int]] = []
    group = list(key)
    for i in others:  # as many columns a table as fit
        if len(group) > keys and not fits(group + [i]):
            groups.append(group)
            group = list(key)
        group.append(i)
    groups.append(group)
    size = -(-len(others) // len(groups))  # then as many tables, as even as they fit
    even = [key + others[k:k + size] for k in range(0, len(others), size)]
    if len(even) == len(groups) and all(fits(g) for g in even):
        groups = even
    for n, columns in enumerate(groups):
        console.print(table(columns, "" if len(groups) == 1 else f" ({n + 1} of {len(groups)})") if n == 0 else
                      table(columns, f"(continued, {n + 1} of {len(groups)})"))


def progress_bar(console, *more, **options):
    """A rich progress bar: the task's words, the bar, done of total, the time spent, then `more`
    columns. The figures are never cut: the words give way first (cut with `…`), then the bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Column

    return Progress(TextColumn("{task.description}", table_column=Column(ratio=2, overflow="ellipsis", no_wrap=True)),
                    BarColumn(bar_width=None, table_column=Column(ratio=1)),
                    MofNCompleteColumn(table_column=Column(no_wrap=True)),
                    TimeElapsedColumn(table_column=Column(no_wrap=True)), *more, console=console, expand=True,
                    **options)


def clock(seconds: float) -> str:
    """Seconds as a clock shows them: 29:58, 1:02:03, or 9.5 s under a minute."""
    if seconds < 60:
        return f"{max(seconds, 0.0):.1f} s"
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class PlainProgress:
    """A run's progress as plain lines, for output that is not a terminal (piped, CI, nohup), where
    no progress bar is drawn: a line when a stage's games are all played, and between those at
    most one every `every` seconds, each with the games done of the total, the time taken and the
    time left at this session's pace (counted from its first stage: a first run's compiling and a
    resumed run's earlier games are not its pace), bound by the run's stopping rules (`limits`:
    timeleft.py); `left()` is the progress bar's time-left column too."""

    def __init__(self, total: int = 0, done: int = 0, say: Callable[[str], None] | None = None,
                 every: float = 60.0, now: Callable[[], float] = time.monotonic, limits: Limits | None = None):
        self.total, self.done, self.every, self.now, self.limits = total, done, every, now, limits or Limits()
        self.say = say or (lambda line: print(line, flush=True))
        self.played = 0  # games played in this session: the pace
        self.started: float | None = None  # when the first stage began
        self.planned_at = now()  # when play began: --max-time's clock
        self.in_hand = 0  # games left on the stages begun (kept as a count: a bar's thread reads it meanwhile)
        self.last = now()  # when a line was said last
        self.stages: dict[str, list[int]] = {}  # each stage begun, by its title: [games played, games to play]

    def plan(self, left: int, total: int) -> None:
        """The run's size: `left` of its `total` games still to play."""
        self.total, self.done = total, total - left
        self.planned_at = self.now()

    def stage(self, title: str, todo: int) -> None:
        """A stage begins, with `todo` games to play on it."""
        if self.started is None:
            self.started = self.now()
        self.stages[title] = [0, todo]
        self.in_hand += todo

    def game(self, title: str) -> None:
        """A game of the stage `title` ended."""
        self.done += 1
        self.played += 1
        on_stage = self.stages.setdefault(title, [0, 0])
        on_stage[0] += 1
        if on_stage[0] <= on_stage[1]:
            self.in_hand -= 1
        if on_stage[0] >= on_stage[1]:
            self.say(inert(self.line(f"{title}: {on_stage[0]} of {on_stage[1]} games, done")))
        elif self.now() - self.last >= self.every:
            self.say(inert(self.line(f"{title}: {on_stage[0]} of {on_stage[1]} games")))

    def line(self, what: str) -> str:
        """`what`, then the run's games done of its total, the time taken and the time left."""
        self.last = now = self.now()
        elapsed = now - (self.started if self.started is not None else now)
        said = f"{what}; {self.done}/{self.total} games in all"
        if self.total:
            said += f" ({100 * self.done / self.total:.0f}%)"
        said += f", {clock(elapsed)} so far"
        left = self.left()
        if left is not None:
            said += f", {left}"
        return said

    def left(self) -> str | None:
        """The time left at this session's pace, bound by the run's stopping rules (timeleft.py):
        `about 2:50 left`, `at most about 2:50 left`; None before a game is played or after the last."""
        if self.total <= self.done:
            return None
        now = self.now()
        seconds = seconds_left(now - (self.started if self.started is not None else now), self.played,
                               self.total - self.done, in_hand=self.in_hand, since_start=now - self.planned_at,
                               limits=self.limits)
        if seconds is None:
            return None
        return f"{'at most ' if self.limits.until_separated else ''}about {clock(seconds)} left"
