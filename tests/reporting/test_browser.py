"""report.html in a real browser (headless Chromium driven by selenium).

On examples/helpdesk every failure row's step link is clicked and must land on a step showing
that failure; the filters hide and show runs; at 1280 px wide nothing overflows sideways.
Skipped, saying why, only where Chromium or its driver is not installed (`.ci/run` installs
Debian's `chromium` and `chromium-driver`).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders_browser import BROWSER, DRIVER, chromium
from builders_reporting import graded_example, steps_record, write_run_dir
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.reporting.files import rerender

pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                    "(pip install -e '.[dev]')")
pytestmark = pytest.mark.skipif(
    BROWSER is None or DRIVER is None,
    reason="no chromium and chromedriver on PATH (apt-get install -y chromium chromium-driver)",
)
WIDTH = 1280


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(WIDTH) as driver:
        yield driver


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded_example(tmp_path_factory.mktemp("helpdesk")) / "report.html"


_FAILURE_LINKS = """
return Array.from(document.querySelectorAll('section[id^="failure-"] a[href^="#run-"]'))
  .filter(a => /-(s\\d+|run)$/.test(a.getAttribute('href')))
  .map(a => [a.closest('section').querySelector('h3').textContent.replace('Failure: ', ''),
             a.getAttribute('href').slice(1), a.closest('section').id]);
"""
_CENTRE = """
const a = document.getElementById(arguments[1]).querySelector(`a[href="#${arguments[0]}"]`);
a.scrollIntoView({block: 'center'});
return a;
"""
_LANDED = """
const el = document.getElementById(arguments[0]);
const box = el.getBoundingClientRect();
return [location.hash.slice(1),
        Array.from(el.querySelectorAll('[data-failure]')).map(p => p.dataset.failure),
        box.top >= 0 && box.top < window.innerHeight, el.offsetParent !== null];
"""


_FOLD = """
const d = document.getElementById(arguments[0]).querySelector('details');
if (d.open) { return null; }
d.querySelector('summary').scrollIntoView({block: 'center'});
return d.querySelector('summary');
"""


def test_every_failure_link_lands_on_its_pinned_failure(browser: Any, example: Path) -> None:
    browser.get(example.as_uri())
    links = browser.execute_script(_FAILURE_LINKS)
    assert len(links) >= 80  # every failure example row of the helpdesk run
    opened = 0
    for name, target, section in links:
        fold = browser.execute_script(_FOLD, section)  # examples are folded until opened
        if fold is not None:
            fold.click()
            opened += 1
        browser.execute_script(_CENTRE, target, section).click()  # a real click on the link
        landed, pinned, in_view, shown = browser.execute_script(_LANDED, target)
        assert landed == target and shown and in_view, target
        assert name in pinned, (name, target)
    assert opened == len({name for name, _, _ in links})  # each failure's fold, once


def test_the_filters_hide_runs_and_a_link_into_a_hidden_run_clears_them(
    browser: Any, example: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    browser.get(example.as_uri())
    Select(browser.find_element("css selector", 'select[data-filter="failure"]')) \
        .select_by_visible_text("loop")
    count = browser.find_element("id", "run-count").text
    visible = browser.execute_script(
        "return Array.from(document.querySelectorAll('article.run'))"
        ".filter(a => !a.hidden).map(a => a.querySelectorAll('[data-failure=loop]').length)")
    assert re.fullmatch(r"\d+ of 90 runs", count) and visible and all(visible)
    assert int(count.split()[0]) == len(visible) < 90
    hidden = browser.execute_script(
        "return document.querySelector('article.run[hidden] li.step').id")
    browser.execute_script("location.hash = arguments[0]", hidden)
    assert browser.find_element("id", "run-count").text == "90 of 90 runs"
    assert browser.find_element("id", hidden).is_displayed()


def _overflow_page(folder: Path) -> Path:
    """A report whose agent text holds long unbroken tokens (the usual cause of overflow)."""
    run_dir = write_run_dir(folder)
    token = "x" * 3000
    steps = [{"role": "user", "content": token},
             {"tool": "lookup_" + "o" * 200, "args": {"q": token},
              "result": {"status": "error", "content": {"detail": token}}}]
    lines = [steps_record("refund-01", steps), steps_record("refund-01", steps, trial=1),
             steps_record("chat|02", steps, agent=None)]
    (run_dir / TRANSCRIPTS_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines),
                                            encoding="utf-8")
    rerender(run_dir)
    return run_dir / "report.html"


@pytest.mark.parametrize("page", ["example", "long_tokens"])
def test_no_horizontal_overflow_at_1280_px(
    browser: Any, example: Path, tmp_path: Path, page: str
) -> None:
    html = example if page == "example" else _overflow_page(tmp_path)
    browser.get(html.as_uri())
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert browser.execute_script("return window.innerWidth") == WIDTH
    assert width <= WIDTH, f"{page}: the page is {width} px wide"
    png = tmp_path / f"{page}.png"
    assert browser.save_screenshot(str(png))
    assert struct.unpack(">II", png.read_bytes()[16:24])[0] == WIDTH  # the IHDR chunk


def test_a_link_to_a_failure_opens_its_folded_examples(browser: Any, example: Path) -> None:
    browser.get(example.as_uri())
    link = browser.find_element("css selector", '#failures a[href^="#failure-"]')
    section = link.get_attribute("href").split("#", 1)[1]
    fold = f"return document.getElementById('{section}').querySelector('details').open"
    assert browser.execute_script(fold) is False  # folded by default
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    assert browser.execute_script(fold) is True
    table = browser.find_element("css selector", f"#{section} table")
    assert table.is_displayed()
