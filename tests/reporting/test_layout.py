"""report.html at 1400 px in headless Chromium: no text drawn over a neighbouring cell.

On examples/helpdesk and on an imported tau2 suite with the benchmark's long ids, every table
cell's painted text (its text boxes, clipped where an element clips them) must end before the
next cell of its row starts, and no cell's content may overflow it. Screenshots of the top
(charts), the runs table and a run view are saved in the test's temp folder (and copied to
$TOOLGRADE_SHOTS when set, e.g. /tmp/shots). Skipped where Chromium or its driver is missing.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders_browser import BROWSER, DRIVER, LONG_IDS, chromium, imported_tau2_report
from builders_reporting import graded_example

pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e "
                    "'.[dev]')")
pytestmark = pytest.mark.skipif(
    BROWSER is None or DRIVER is None,
    reason="no chromium and chromedriver on PATH (apt-get install -y chromium chromium-driver)",
)
WIDTH = 1400

#: Per table row, each cell's right edge of painted text against the next cell's left edge,
#: and each cell whose content is wider than it. Text boxes come from a Range over each text
#: node, cut at the first ancestor (up to the cell) that clips its overflow.
_OVERLAPS = """
function painted(cell) {
  let right = -Infinity;
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    let edge = Math.max(...Array.from(range.getClientRects(), r => r.right), -Infinity);
    for (let el = node.parentElement; el; el = el.parentElement) {
      if (getComputedStyle(el).overflowX !== 'visible') {
        edge = Math.min(edge, el.getBoundingClientRect().right);
      }
      if (el === cell) break;
    }
    right = Math.max(right, edge);
  }
  return right;
}
const problems = [];
let cells = 0;
for (const row of document.querySelectorAll('main tr')) {
  if (row.offsetParent === null) continue;  // folded or filtered out: not drawn
  const tds = Array.from(row.children);
  tds.forEach((td, i) => {
    cells += 1;
    if (td.scrollWidth > td.clientWidth + 1) {
      problems.push(['overflow', td.textContent.slice(0, 80), td.scrollWidth, td.clientWidth]);
    }
    const next = tds[i + 1];
    if (!next) return;
    const right = painted(td), left = next.getBoundingClientRect().left;
    if (right > left + 0.5) problems.push(['overlap', td.textContent.slice(0, 80), right, left]);
  });
}
return [cells, problems];
"""
_OPEN_FOLDS = "document.querySelectorAll('details').forEach(d => d.open = true);"
_IDS = "return Array.from(document.querySelectorAll(arguments[0]), e => e.title);"
_SHOTS = {"top": "header", "charts": "#charts", "runs": "#runs", "run-view": "article.run"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(WIDTH) as driver:
        yield driver


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {"helpdesk": graded_example(tmp_path_factory.mktemp("helpdesk")) / "report.html",
            "tau2": imported_tau2_report(tmp_path_factory.mktemp("tau2"))}


def _screenshots(browser: Any, name: str, folder: Path) -> list[Path]:
    shots = []
    for part, selector in _SHOTS.items():
        browser.execute_script(
            "const e = document.querySelector(arguments[0]); e.scrollIntoView();"
            "window.scrollBy(0, -40);", selector)
        png = folder / f"{name}-{part}.png"
        assert browser.save_screenshot(str(png))
        assert struct.unpack(">II", png.read_bytes()[16:24])[0] == WIDTH  # the IHDR chunk
        shots.append(png)
    target = os.environ.get("TOOLGRADE_SHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for png in shots:
            shutil.copy(png, Path(target) / png.name)
    return shots


@pytest.mark.parametrize("name", ["helpdesk", "tau2"])
def test_no_cell_text_overlaps_its_neighbour_at_1400_px(
    browser: Any, pages: dict[str, Path], tmp_path: Path, name: str
) -> None:
    browser.get(pages[name].as_uri())
    assert browser.execute_script("return window.innerWidth") == WIDTH
    browser.execute_script(_OPEN_FOLDS)  # the folded failure examples are checked too
    cells, problems = browser.execute_script(_OVERLAPS)
    assert cells > 200  # the tables were drawn and measured
    assert problems == []
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= WIDTH, f"{name}: the page is {width} px wide"
    assert len(_screenshots(browser, name, tmp_path)) == len(_SHOTS)


def test_long_ids_keep_their_full_text_on_hover_and_in_the_link(
    browser: Any, pages: dict[str, Path]
) -> None:
    browser.get(pages["tau2"].as_uri())
    index = browser.execute_script(_IDS, "table.runs-index td.case a")
    cases = browser.execute_script(_IDS, "#cases td.id code")
    assert set(index) == set(LONG_IDS.values()) == set(cases)
    texts = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.runs-index td.case a'),"
        " a => a.textContent)")
    assert texts == index  # the link holds the whole id; only its drawing wraps
