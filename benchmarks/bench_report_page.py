"""How big report.html is and how long headless Chromium takes to open it, at N graded runs.

    python benchmarks/bench_report_page.py                 # 1,000 runs
    python benchmarks/bench_report_page.py --sizes 1000,5000
    python benchmarks/bench_report_page.py --sizes 3000,100000 --no-browser --jobs 2   # size only

For each N: synthetic runs (`synth.py`, 200 cases, three agents) are graded without a judge
into a temporary folder with every report, as `toolgrade run` writes them; then the page is
opened in a fresh headless Chromium profile (selenium + Debian's chromium-driver) and the
browser's own navigation timings are read: DOMContentLoaded, load, first contentful paint, and
the time one filter change takes to hide the non-matching runs. Each open is repeated
`--repeats` times and the median is printed. Needs `apt-get install chromium chromium-driver`,
unless `--no-browser`, which prints the page's size, its run views and the time to grade and
to write the reports only (the embed cap keeps report.html under ~10 MB at any N; the rest is
for `toolgrade view DIR`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import write_synthetic

from toolgrade.reporting.files import ReportStream
from toolgrade.scoring.engines import engine_for
from toolgrade.scoring.runner import grade, validate_inputs

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--window-size=1280,900")
_TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [nav.domContentLoadedEventEnd, nav.loadEventEnd, paint ? paint.startTime : null];
"""
_FILTER = """
const select = document.querySelector('select[data-filter="status"]');
const start = performance.now();
select.value = 'fail';
select.dispatchEvent(new Event('change', {bubbles: true}));
document.body.offsetHeight;  // force the layout the change causes
return performance.now() - start;
"""


def graded_folder(n_runs: int, folder: Path, jobs: int = 1) -> tuple[Path, float, float]:
    """Grade N synthetic runs into `folder` with every report (each run view with its case's
    task and reference, as `toolgrade run` writes them); return the page, the seconds grading
    took and the seconds writing the reports took."""
    suite, runs = write_synthetic(folder / "inputs", n_runs)
    start = time.perf_counter()
    inputs = validate_inputs(suite, [runs])
    out = folder / "out"
    with ReportStream(cases=inputs.suite.cases) as stream:
        output = grade(inputs, out, engine=engine_for(jobs), reports=stream)
        graded = time.perf_counter()
        stream.write(out, output.summary)
        seconds = time.perf_counter() - graded
    return out / "report.html", graded - start, seconds


def open_page(page: Path, repeats: int) -> dict[str, float]:
    """Median browser timings (ms) of opening `page` in a fresh profile each time."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    samples: list[list[float]] = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="toolgrade-bench-") as profile:
            options = webdriver.ChromeOptions()
            options.binary_location = str(shutil.which("chromium"))
            for flag in (*_FLAGS, f"--user-data-dir={profile}"):
                options.add_argument(flag)
            driver = webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))),
                                      options=options)
            try:
                driver.get(page.as_uri())
                dcl, load, fcp = driver.execute_script(_TIMINGS)
                samples.append([dcl, load, fcp or float("nan"), driver.execute_script(_FILTER)])
            finally:
                driver.quit()
    names = ("dom_content_loaded_ms", "load_ms", "first_paint_ms", "filter_ms")
    return {name: statistics.median(s[i] for s in samples) for i, name in enumerate(names)}


def main(argv: list[str] | None = None) -> int:
    """Print one row per N."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for grading")
    parser.add_argument("--no-browser", action="store_true",
                        help="size and timings of writing only; do not open the page")
    args = parser.parse_args(argv)
    if args.no_browser:
        print(f"{'runs':>7} {'views':>6} {'page MB':>8} {'grade s':>8} {'render s':>9}")
    else:
        print(f"{'runs':>6} {'views':>6} {'page MB':>8} {'render s':>9} {'DCL ms':>8} "
              f"{'load ms':>8} {'FCP ms':>8} {'filter ms':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="toolgrade-page-") as tmp:
            page, grading, render = graded_folder(n, Path(tmp), args.jobs)
            views = page.read_text(encoding="utf-8").count('<article class="run"')
            if args.no_browser:
                print(f"{n:>7} {views:>6} {page.stat().st_size / 1e6:>8.2f} {grading:>8.1f} "
                      f"{render:>9.2f}", flush=True)
                continue
            t: dict[str, Any] = open_page(page, args.repeats)
            print(f"{n:>6} {views:>6} "
                  f"{page.stat().st_size / 1e6:>8.2f} {render:>9.2f} "
                  f"{t['dom_content_loaded_ms']:>8.0f} {t['load_ms']:>8.0f} "
                  f"{t['first_paint_ms']:>8.0f} {t['filter_ms']:>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
