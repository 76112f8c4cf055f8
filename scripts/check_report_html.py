"""Render a toolgrade report.html in headless Chromium and save a PNG screenshot.

    python scripts/check_report_html.py OUT_DIR/report.html [--png /tmp/report.png]
    python scripts/check_report_html.py --demo [--png /tmp/report.png]

`--demo` first grades the bundled helpdesk example (no judge) into a temporary folder. The
browser runs with networking components off and a throwaway profile, so the screenshot also
shows that the page needs nothing from the network. Exit 1 when Chromium fails or writes no
image; look at the PNG yourself (the point is a human check that the page reads well).
Needs Debian's chromium: `apt-get install -y chromium`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str:
    """The first Chromium-like executable on PATH."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no chromium on PATH; install it with `apt-get install -y chromium`")


def demo_report(folder: Path) -> Path:
    """Grade the helpdesk example into `folder` and return its report.html."""
    example = ROOT / "examples" / "helpdesk"
    command = [sys.executable, "-m", "toolgrade", "run", str(example / "suite.yaml"),
               str(example / "runs"), "--out", str(folder), "--no-judge", "--quiet"]
    subprocess.run(command, check=False, cwd=folder)
    report = folder / "report.html"
    if not report.is_file():
        raise SystemExit(f"toolgrade run wrote no {report}")
    return report


def screenshot(html: Path, png: Path, width: int = 1400, height: int = 3000) -> None:
    """Render `html` in a fresh headless profile and write `png`."""
    with tempfile.TemporaryDirectory(prefix="toolgrade-chromium-") as profile:
        command = [
            find_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--screenshot={png}", f"--window-size={width},{height}", html.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if not png.is_file() or png.stat().st_size == 0:
        raise SystemExit(f"chromium wrote no screenshot (exit {done.returncode}):\n"
                         f"{done.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, render, report where the PNG is."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", type=Path, help="a report.html")
    parser.add_argument("--demo", action="store_true", help="grade the helpdesk example first")
    parser.add_argument("--png", type=Path, default=Path("/tmp/toolgrade-report.png"))
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=3000)
    args = parser.parse_args(argv)
    if args.demo:
        html = demo_report(Path(tempfile.mkdtemp(prefix="toolgrade-demo-")))
    elif args.html is not None:
        html = args.html
    else:
        parser.error("give a report.html or --demo")
    args.png.unlink(missing_ok=True)
    screenshot(html, args.png, args.width, args.height)
    print(f"{html} -> {args.png} ({args.png.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
