"""report.html in a real headless Chromium (skipped where no chromium is installed)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path
from types import ModuleType

import pytest

from builders_reporting import write_run_dir
from script_modules import load_script
from toolgrade.reporting.files import rerender

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_report_html.py"

pytestmark = pytest.mark.skipif(
    not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
    reason="no chromium on PATH (apt-get install -y chromium)",
)


def _script() -> ModuleType:
    return load_script(SCRIPT, "check_report_html")


def test_chromium_renders_the_report_to_a_png(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "out")
    rerender(run_dir)
    png = tmp_path / "report.png"
    _script().screenshot(run_dir / "report.html", png, width=1000, height=1600)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (1000, 1600)
    assert len(data) > 20_000  # a page with content, not a blank canvas
