"""Debian's chromium driven by playwright, shared by the tests of pages (the preview of `rulecraft
watch --serve`, the example apps): where the browser is, how it is launched headless, and the
mark that skips a test, saying why, where either is missing (CI installs both: see .ci/run)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _playwright() -> ModuleType | None:
    try:
        from playwright import sync_api
    except ImportError:
        return None
    return sync_api


sync_api: Any = _playwright()
in_a_browser = pytest.mark.skipif(
    sync_api is None or not CHROMIUM.exists(),
    reason=f"the browser test needs playwright (pip install -e '.[test]') and {CHROMIUM} "
    "(apt-get install chromium)",
)
