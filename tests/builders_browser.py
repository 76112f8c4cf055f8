"""A headless Chromium (selenium) at a given width, and the report pages the layout tests open."""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from builders_importers import tau2_results

BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
DRIVER = shutil.which("chromedriver")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--hide-scrollbars")

#: tau2 task ids as the real benchmark spells them: long, bracketed, with no space to break at.
LONG_IDS = {
    "[data]roaming": "[mobile_data_issue]user_abroad_roaming_2_disable_roaming_data_on_device"
                     "[PERSONA:None]",
    "[bill]payment": "[overdue_bill_payment]customer_requests_payment_of_the_overdue_bill_"
                     "with_a_saved_card[PERSONA:Easy]",
    "[misc]nothing": "[service_issue]airplane_mode_on_and_mobile_data_disabled_and_no_"
                     "action_needed[PERSONA:Hard]",
}


@contextmanager
def chromium(width: int, height: int = 900) -> Iterator[Any]:
    """A headless Chromium window `width` x `height` px, in a throwaway profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(BROWSER)
    for flag in (*_FLAGS, f"--window-size={width},{height}"):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory(prefix="toolgrade-layout-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def long_id_tau2_results(trials: int = 4) -> dict[str, Any]:
    """The tau2 fixture with the real benchmark's long ids, several trials each, and one
    payment trial in two that pays the wrong bill (so the tables have failures to show)."""
    data = tau2_results()
    for task in data["tasks"]:
        task["id"] = LONG_IDS[task["id"]]
    simulations = []
    for sim in data["simulations"]:
        for trial in range(trials):
            copy_ = copy.deepcopy(sim)
            copy_["task_id"], copy_["trial"] = LONG_IDS[sim["task_id"]], trial
            if "payment" in sim["task_id"] and trial % 2:
                for message in copy_["messages"]:
                    for call in message.get("tool_calls") or []:
                        if call["name"] == "send_payment_request":
                            call["arguments"]["bill_id"] = "B8"
            simulations.append(copy_)
    data["simulations"] = simulations
    return data


def imported_tau2_report(folder: Path) -> Path:
    """Import the long-id tau2 results, grade them with every report; return report.html."""
    from toolgrade.importers import import_tau2
    from toolgrade.reporting.files import ReportStream
    from toolgrade.scoring.runner import grade, validate_inputs

    results = folder / "tau2_results.json"
    results.write_text(json.dumps(long_id_tau2_results()), encoding="utf-8")
    imported = folder / "imported"
    import_tau2(results, imported)
    inputs = validate_inputs(imported / "suite.jsonl", [imported / "runs.jsonl"])
    out = folder / "out"
    with ReportStream(cases=inputs.suite.cases) as stream:
        output = grade(inputs, out, judge=None, on_record=stream.add)
        stream.write(out, output.summary)
    return out / "report.html"
