"""Every Python block of the README and of docs/ runs as it is written, from a folder outside the
repository (as a user who installed ludica would run it): the documentation cannot drift from the
code unnoticed."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def blocks() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            found.append((f"{page.name}:{text[:m.start()].count(chr(10)) + 1}", m.group(1)))
    return found


def test_the_pages_have_python_blocks():
    assert len(blocks()) >= 5


@pytest.mark.parametrize("where, code", blocks(), ids=[w for w, _ in blocks()])
def test_a_python_block_runs_from_outside_the_repository(where, code, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{where}:\n{done.stderr[-3000:]}"
