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


def _readme() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())  # lines joined, as a reader does


def test_the_isolation_cost_is_said_once_in_the_same_words():
    """--help and the README say the same of --isolate-rules' cost, and its range is the per-call
    rows of the README's benchmarks/isolation.py table."""
    from ludica.arguments import ISOLATION_COST
    readme = _readme()
    assert ISOLATION_COST in readme and "measured by benchmarks/isolation.py" in ISOLATION_COST
    assert len(re.findall(r"times an in-process call|x slower per call", readme)) == 1
    assert not _other_call_costs(), "--isolate-rules' cost said apart from ISOLATION_COST: say it by that alone"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("`benchmarks/isolation.py` on this 2-core machine"):]
    ratios = [float(r) for r in re.findall(r"per call\s.*?([\d.]+)x\n", table[: table.index("```\n\n")])]
    low, high = re.search(r"(\d+) to (\d+) times an in-process call", ISOLATION_COST).groups()
    assert (int(low), int(high)) == (round(min(ratios)), round(max(ratios))), ratios


# a cost as a figure: "12x", "1.5×", "20 times", "9 to 31 times"
_FIGURE = re.compile(r"\b\d+(\.\d+)?\s?[x×](?![\w-])|\b\d+(\.\d+)? (to \d+(\.\d+)? )?times\b")


def _other_call_costs() -> list[str]:
    """Every clause of the README, docs/ and the sources' text (code blocks left out) that gives a
    call's cost as a figure, ISOLATION_COST's own words left out: where the one figure is written again."""
    from ludica.arguments import ISOLATION_COST
    skip = {".venv", "tests", "benchmarks", "node_modules"}
    files = PAGES + [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]
    found = []
    for path in files:
        text = re.sub(r"```.*?```", " ", path.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"\"\s*\n\s*\"", "", text)  # a Python string written over lines, as one
        text = " ".join(text.split()).replace(ISOLATION_COST, " ")
        found += [f"{path.name}: {c.strip()}" for c in re.split(r"[.;:,(]\s", text)
                  if re.search(r"\bcalls?\b", c) and _FIGURE.search(c)]
    return found


def test_every_command_takes_its_time_budgets_from_the_one_table(monkeypatch):
    """Each command's --analysis-time and --game-time defaults are ludica/budgets.py's (changed
    there, they change in the parser), and the README's table says the same."""
    from ludica import budgets, cli
    for command in ("tournament", "play", "evaluate", "demo"):
        monkeypatch.setitem(budgets.BUDGETS, command, budgets.Budgets(123.0, 45.0, "a test's"))
        parser = cli.build_parser()
        args, _ = parser.parse_known_args([command, "tic-tac-toe", "--out", "x", "--black", "random", "--white",
                                           "random"] if command != "demo" else [command])
        assert (args.analysis_time, args.game_time) == (123.0, 45.0), command
        if command == "evaluate":  # the library's evaluation too
            from ludica.evaluation import evaluate
            assert (evaluate.Config().options.analysis_time, evaluate.Config().options.game_time) == (123.0, 45.0)
        monkeypatch.undo()
        helped = " ".join(budgets.budget_help(command))
        assert f"for `ludica {command}`" in helped and "README: Time budgets" in helped
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`ludica (\w+)`|serve's Play page) \| ([\d.]+) \| ([\d.]+) \| (.+) \|$", readme, re.M)
    said = {command or "serve Play page": (float(a), float(g), why) for _, command, a, g, why in rows}
    assert said == {k: (b.analysis_time, b.game_time, b.why) for k, b in budgets.BUDGETS.items()}
