"""Text from agents (names, what they printed, their exception text) and from users' files (stage
names), made inert before it reaches a terminal: it is shown, never obeyed.

A terminal obeys control characters: ESC and the 8-bit CSI (0x9b) start sequences that move the
cursor, clear the screen, set the window's title (OSC 0) or write the clipboard (OSC 52), and BEL,
backspace or a carriage return let text overwrite what was printed before it. Each of them (C0 but
newline and tab, DEL, C1) is shown as `\\xNN` instead. rich, on top of that, reads `[style]...[/]`
in the strings it prints as markup: text that goes through rich is escaped for it too.
"""
from __future__ import annotations

import re

from rich.markup import escape

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: object) -> str:
    """`text` (str() of it) with every control character but newline and tab shown as `\\xNN`
    (ESC as `\\x1b`, the 8-bit CSI as `\\x9b`): for print()."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def inert_rich(text: object) -> str:
    """`inert(text)` with rich's markup escaped: for console.print, table cells and progress
    descriptions, where `[red]` would otherwise be a style."""
    return escape(inert(text))


def clock(seconds: float) -> str:
    """Seconds as a clock shows them: 29:58, 1:02:03, or 9.5 s under a minute."""
    if seconds < 60:
        return f"{max(seconds, 0.0):.1f} s"
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
