"""Tables at the terminal (ludica/terminal.print_table): rich cuts a cell that does not fit with `…`,
which printed `0.8…` for a figure and `R m…` for a header in an 80-column terminal (issue 34). A
table too wide is printed as several, each with the agents' names, and no figure or header is cut."""
from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from ludica.terminal import print_table

HEADER = ["Agent", "P", "A", "G", "R min", "R span", "E anal.", "s/game", "ms/move"]
ROWS = [["determinised", "0.783", "0.825", "+0.062", "0.750", "0.083", "5%", "0.38", "102.8"],
        ["mcts", "0.800", "—", "+0.146", "0.750", "0.167", "61%", "0.62", "164.0"]]


def printed(width: int, header=HEADER, rows=ROWS) -> str:
    out = io.StringIO()
    print_table(Console(file=out, width=width, color_system=None), "Metrics", header, rows)
    return out.getvalue()


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=36, max_value=160))
def test_no_figure_or_header_is_cut_at_any_width(width):
    text = printed(width)
    assert "…" not in text
    words = set(text.replace("┃", " ").replace("│", " ").split())
    assert {cell for row in ROWS for cell in row} <= words
    assert {"P", "A", "G", "min", "span", "anal.", "s/game", "ms/move"} <= words
    assert all(len(line) <= width for line in text.splitlines())


def test_a_table_that_fits_is_one_and_one_too_wide_is_split_evenly_with_the_names_in_each():
    assert "(1 of" not in printed(120) and printed(120).count("determinised") == 1
    narrow = printed(60)
    assert "(1 of 2)" in narrow and "(continued, 2 of 2)" in narrow and narrow.count("determinised") == 2
    first, second = narrow.split("(continued, 2 of 2)")
    assert {"P", "A", "G"} <= set(first.split()) and {"s/game", "ms/move"} <= set(second.split())


def test_the_progress_bar_gives_way_in_its_words_never_in_its_figures():
    """The run's progress line in a narrow terminal printed `420/… 0:05:… left 0:00:…` (issue 34): the
    stage's words are cut first, then the bar; the counts and times stay whole."""
    from rich.progress import ProgressColumn
    from rich.table import Column
    from rich.text import Text

    from ludica.terminal import progress_bar

    class Left(ProgressColumn):
        def render(self, task) -> Text:
            return Text("at most about 0:05:13 left")

    for width in (60, 80, 120):
        out = io.StringIO()
        console = Console(file=out, width=width, force_terminal=True, color_system=None)
        bar = progress_bar(console, Left(table_column=Column(no_wrap=True)), auto_refresh=False)
        bar.add_task("Phantom tic-tac-toe variant 1: 64 of 122 games", total=420, completed=104)
        console.print(bar.make_tasks_table(bar.tasks))
        line = out.getvalue()
        assert "104/420" in line and "0:00:00" in line and "at most about 0:05:13 left" in line, (width, line)
        assert line.startswith("Phantom t") and len(line.rstrip("\n")) <= width
