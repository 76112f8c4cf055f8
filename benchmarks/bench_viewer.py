"""How long `toolgrade view` takes to index N graded runs, and to answer each page, over HTTP.

    python benchmarks/bench_viewer.py                      # 100,000 synthetic runs
    python benchmarks/bench_viewer.py --runs 10000
    python benchmarks/bench_viewer.py --folder OUT         # an existing `toolgrade run --out`
    python benchmarks/bench_viewer.py --screenshots DIR    # + PNGs of the pages (Chromium)

Without --folder, N synthetic runs (`synth.py`: 200 cases, three agents) are graded without a
judge into a temporary folder (results.jsonl and transcripts.jsonl only, no reports). Then, in
this process: the index build (seconds and the peak RSS it adds), and over HTTP on a free
loopback port, with urllib, each page's latency: the first request of a filter set (its matches
computed) and the median and worst of `--repeats` more (its matches kept), the list's first and
last pages, each filter, a search, the score sort, and run views (the first one also scans
transcripts.jsonl for its line offsets).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import write_synthetic

from toolgrade.reporting.viewer.index import RunIndex, build_index
from toolgrade.reporting.viewer.server import make_server
from toolgrade.scoring.runner import grade, validate_inputs

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--disable-background-networking", "--disable-sync", "--window-size=1400,1000")


def graded(n_runs: int, folder: Path) -> Path:
    """Grade N synthetic runs into `folder`/out (no judge, no reports); return that folder."""
    suite, runs = write_synthetic(folder / "inputs", n_runs)
    out = folder / "out"
    grade(validate_inputs(suite, [runs]), out)
    return out


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def serving(index: RunIndex) -> Iterator[str]:
    """The viewer over `index` in a thread; yields its address."""
    server = make_server(index, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()


def fetch_ms(url: str) -> float:
    """Milliseconds to fetch `url` whole (status 200 required)."""
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
        assert response.status == 200, url
    return (time.perf_counter() - start) * 1000


def pages(index: RunIndex) -> dict[str, str]:
    """The pages timed: name -> path and query."""
    last = -(-index.runs // 50)
    failure = max(index.failures, key=lambda f: index.failures[f]) if index.failures else ""
    agent = index.agents[-1]
    return {
        "list page 1": "/", f"list page {last:,} (last)": f"/?page={last}",
        "status=fail": "/?status=fail", f"agent={agent}": f"/?agent={agent}",
        "check=arguments": "/?check=arguments", f"failure={failure}": f"/?failure={failure}",
        "search 'case-00017 mid'": "/?q=case-00017+mid", "sort=score": "/?sort=score",
        "api/runs status=fail page 40": "/api/runs?status=fail&page=40",
        f"run {index.runs // 2:,}": f"/run/{index.runs // 2}", "run 0": "/run/0",
    }


def measure(index: RunIndex, repeats: int) -> list[tuple[str, float, float, float]]:
    """(page, first ms, median ms, worst ms) of each page."""
    rows = []
    with serving(index) as url:
        for name, path in pages(index).items():
            first = fetch_ms(url + path.lstrip("/"))
            again = [fetch_ms(url + path.lstrip("/")) for _ in range(repeats)]
            rows.append((name, first, statistics.median(again), max(again)))
    return rows


def screenshots(index: RunIndex, out: Path) -> None:
    """PNGs of the list's first and last pages, a filtered page and a run view (Chromium)."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    out.mkdir(parents=True, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for flag in _FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))),
                              options=options)
    last = -(-index.runs // 50)
    shots = {"list": "", "list-last": f"?page={last}", "filtered": "?status=fail&check=ordering",
             "run": f"run/{index.runs // 2}"}
    try:
        with serving(index) as url:
            for name, path in shots.items():
                driver.get(url + path)
                driver.save_screenshot(str(out / f"viewer-{name}.png"))
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> int:
    """Print the index build figures and one row per page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, help="an existing output folder to index")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="write PNGs of the pages here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="toolgrade-viewer-") as tmp:
        folder = args.folder or graded(args.runs, Path(tmp))
        size = (folder / "results.jsonl").stat().st_size / 1e6
        before = _rss_mib()
        index = build_index(folder)
        print(f"indexed {index.runs:,} runs ({size:,.0f} MB of results.jsonl) in "
              f"{index.seconds:.2f} s; peak RSS +{_rss_mib() - before:.0f} MiB")
        print(f"{'page':<34} {'first ms':>9} {'median ms':>10} {'worst ms':>9}")
        for name, first, median, worst in measure(index, args.repeats):
            print(f"{name:<34} {first:>9.1f} {median:>10.1f} {worst:>9.1f}")
        if args.screenshots:
            screenshots(index, args.screenshots)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
