"""`toolgrade view` in headless Chromium (selenium): filter, page, open a run, come back.

Skipped, saying why, only where Chromium or its driver is not installed (`.ci/run` installs
Debian's `chromium` and `chromium-driver`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders_browser import BROWSER, DRIVER, chromium
from builders_viewer import serving, viewer_run, write_viewer_dir

pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                    "(pip install -e '.[dev]')")
pytestmark = pytest.mark.skipif(
    BROWSER is None or DRIVER is None,
    reason="no chromium and chromedriver on PATH (apt-get install -y chromium chromium-driver)",
)
WIDTH = 1280
_ROWS = "return Array.from(document.querySelectorAll('tr.run-row')).map(r => " \
        "[Number(r.dataset.index), r.dataset.status])"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(WIDTH) as driver:
        yield driver


def _follow(browser: Any, element: Any) -> None:
    """Click a link or button and wait for the page it opens (a click does not wait for it)."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = browser.find_element("tag name", "html")
    element.click()
    WebDriverWait(browser, 20).until(expected_conditions.staleness_of(page))


def _failing() -> list[int]:
    """The runs of the folder below whose status is fail."""
    return [i for i in range(120) if i != 7 and not viewer_run(i)[0]["aggregate"]["passed"]
            and any(b["failures"] for b in viewer_run(i)[0]["checks"].values())]


def test_filter_page_open_a_run_and_come_back(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    folder = write_viewer_dir(tmp_path / "out", 120, bad_lines={7: "{broken"})
    with serving(folder) as url:
        browser.get(url)
        assert len(browser.execute_script(_ROWS)) == 50
        assert "line 8: malformed JSON" in browser.find_element("id", "problems").text
        Select(browser.find_element("css selector", 'select[name="status"]')) \
            .select_by_value("fail")
        Select(browser.find_element("css selector", 'select[name="size"]')) \
            .select_by_value("25")
        _follow(browser, browser.find_element("id", "apply"))
        failing = _failing()
        assert browser.execute_script(_ROWS) == [[i, "fail"] for i in failing[:25]]
        assert browser.find_element("id", "match-count").text == \
            f"runs 1\N{EN DASH}25 of {len(failing)} matching (of 119)"
        _follow(browser, browser.find_element("css selector", "nav.pager a.next"))
        assert browser.execute_script(_ROWS) == [[i, "fail"] for i in failing[25:50]]
        assert "page 2 of 2" in browser.find_element("css selector", "nav.pager").text
        opened = failing[25]
        _follow(browser, browser.find_element("css selector", f'tr[data-index="{opened}"] a'))
        title = browser.find_element("css selector", "article.run h1").text
        assert title.startswith(viewer_run(opened)[0]["case_id"]) and "FAIL" in title
        assert browser.find_elements("css selector", ".step.has-fail [data-failure]")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH
        assert browser.save_screenshot(str(tmp_path / "run.png"))
        _follow(browser, browser.find_element("id", "next-run"))
        assert browser.find_element("id", "run").get_attribute("data-index") == \
            str(failing[26])
        _follow(browser, browser.find_element("id", "back"))
        assert browser.execute_script(_ROWS) == [[i, "fail"] for i in failing[25:50]]
        assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH
