"""A real headless browser for tests, and `ludica serve` as a real process: Playwright's Python
package driving the system's Chromium (Debian: apt-get install chromium; .ci/run installs it).
Without either, the tests that ask for `browser` are skipped, saying which is missing.

    from browser import browser_fixture, serve  # noqa: F401  (the fixture `browser`, used by name)

    def test_x(browser):
        with serve(folder) as url:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
# no sandbox of its own (tests run as root in CI's containers), and nothing fetched from the network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
WIDTHS = (1280, 800)  # the widths pages are checked at, screenshots included


@pytest.fixture(scope="module", name="browser")
def browser_fixture():
    """A headless Chromium driven by Playwright, for one test module."""
    if CHROMIUM is None:
        pytest.skip("no Chromium to drive: install it (Debian: apt-get install chromium) to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is missing: "
                                   "pip install -e '.[test]' installs it")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(*folders: Path, timeout: float = 180.0, options: tuple[str, ...] = ()) -> Iterator[str]:
    """`ludica serve FOLDER... OPTIONS...` as a process of its own on a free loopback port: its URL
    once it answers; stopped (its process alone) afterwards."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "ludica", "serve", *map(str, folders), "--port", str(port),
                                "--resamples", "20", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, process, timeout)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ludica serve exited ({process.returncode}): {process.stdout.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"ludica serve did not answer at {url} within {timeout:.0f} s")
