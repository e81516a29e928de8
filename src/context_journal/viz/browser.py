"""A headless browser for the context map: find one, take a screenshot, read the DOM after scripts ran.

Only a locally installed Chromium-family browser is used (Debian's ``chromium``, ``chromium-browser``,
``google-chrome``...; ``CONTEXT_JOURNAL_BROWSER`` names another). Nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import ContextJournalError

__all__ = ["BROWSER_ENV", "NO_BROWSER", "BrowserError", "dump_dom", "find_browser", "screenshot"]

BROWSER_ENV = "CONTEXT_JOURNAL_BROWSER"
"""Environment variable naming the browser executable to use (a path or a name on PATH)."""

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell")
_TIMEOUT = 120.0  # seconds a browser run may take


NO_BROWSER = (
    f"no headless browser found (looked for chromium, chromium-browser and google-chrome on PATH, and ${BROWSER_ENV}); "
    "install one (Debian: apt-get install chromium)"
)
"""What an error says when no browser is installed."""


class BrowserError(ContextJournalError):
    """No headless browser is installed, or it failed to render the page."""


def find_browser() -> str | None:
    """The path of an installed headless-capable browser, or None."""
    named = os.environ.get(BROWSER_ENV)
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _require() -> str:
    browser = find_browser()
    if browser is None:
        raise BrowserError(NO_BROWSER)
    return browser


def _run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    browser = _require()
    with tempfile.TemporaryDirectory(prefix="cj-browser-") as profile:
        cmd = [
            browser,
            "--headless",
            "--no-sandbox",  # root in containers and CI cannot use the sandbox
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            *args,
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BrowserError(f"the browser {browser} failed to run: {exc}") from exc
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise BrowserError(f"the browser {browser} exited with code {done.returncode}: {' | '.join(tail)}")
    return done


def screenshot(page: str | os.PathLike[str], png: str | os.PathLike[str], width: int = 1400, height: int = 900) -> Path:
    """Render the HTML file ``page`` headless and write a PNG screenshot of ``width`` x ``height`` pixels.

    Raises:
        BrowserError: no browser is installed, or it failed or wrote no image.
    """
    out = Path(png).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    _run([f"--screenshot={out}", f"--window-size={width},{height}", Path(page).resolve().as_uri()])
    if not out.exists() or out.stat().st_size == 0:
        raise BrowserError(f"the browser wrote no screenshot to {out}")
    return out


def dump_dom(page: str | os.PathLike[str], fragment: str = "") -> str:
    """The page's DOM as HTML after its scripts ran (``--dump-dom``); ``fragment`` is added to its URL
    (``"part-3"``: the map opens with compiled message 3's details shown).

    Raises:
        BrowserError: no browser is installed, or it failed.
    """
    url = Path(page).resolve().as_uri() + (f"#{fragment}" if fragment else "")
    return _run(["--dump-dom", url]).stdout.decode("utf-8", errors="replace")
