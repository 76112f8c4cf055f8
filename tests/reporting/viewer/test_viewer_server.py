"""The viewer over HTTP on a free loopback port (urllib): routes, JSON, errors, escaping."""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from builders_viewer import hostile_dir, serving, viewer_run, write_viewer_dir


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        with exc:  # an error reply holds its connection until closed
            return exc.code, dict(exc.headers), exc.read().decode("utf-8")


def _json(url: str) -> Any:
    status, headers, body = _get(url)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    return json.loads(body)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = write_viewer_dir(tmp_path_factory.mktemp("viewer") / "out", 120,
                              bad_lines={7: "{not json"})
    with serving(folder) as url:
        yield url


def test_the_server_listens_on_loopback_only(base: str) -> None:
    assert urlsplit(base).hostname == "127.0.0.1"


def test_the_list_page_shows_a_page_of_runs_and_the_line_that_failed(base: str) -> None:
    status, headers, body = _get(base)
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert "script-src" not in headers["Content-Security-Policy"]  # no script: default-src none
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert len(re.findall(r'<tr class="run-row"', body)) == 50
    assert "runs 1\N{EN DASH}50 of 119 matching (of 119)" in body
    assert "line 8: malformed JSON" in body and "page 1 of 3" in body


def test_the_api_pages_filters_and_searches(base: str) -> None:
    data = _json(base + "api/runs?status=fail&agent=weak&size=5&page=2")
    expected = [i for i in range(120) if i != 7 and viewer_run(i)[0]["agent"] == "weak"
                and not viewer_run(i)[0]["aggregate"]["passed"]
                and any(b["failures"] for b in viewer_run(i)[0]["checks"].values())]
    assert data["matched"] == len(expected) and data["pages"] == -(-len(expected) // 5)
    assert [r["index"] for r in data["runs"]] == expected[5:10]
    assert data["problems"] == [{"line": 8, "reason": data["problems"][0]["reason"]}]
    run = data["runs"][0]
    assert run["url"] == f"/run/{run['index']}" and run["checks"]["selection"]["outcome"] == "pass"
    found = _json(base + "api/runs?q=case-03+loop")
    assert found["matched"] > 0 and all(r["case_id"] == "case-03" and "loop" in r["failures"]
                                        for r in found["runs"])


def test_a_run_page_shows_its_steps_and_its_pinned_failure(base: str) -> None:
    status, _, body = _get(base + "run/8?agent=(none)")
    assert status == 200
    assert "case-08" in body and 'data-failure="loop"' in body and "lookup_order" in body
    assert '<a href="#s1">step 1</a>' in body and 'id="s1"' in body  # failure -> its step
    assert "results.jsonl line 9" in body and "transcripts.jsonl line 9" in body
    assert 'href="/run/5?agent=%28none%29"' in body  # the run before it under the filter
    assert 'href="/?agent=%28none%29"' in body  # back to the list's page 1


@pytest.mark.parametrize(("path", "code", "message"), [
    ("run/7", 404, "run 7 could not be read: "),
    ("run/500", 404, "no run 500: the folder holds runs 0 to 119"),
    ("nowhere", 404, "no page &#39;/nowhere&#39; here"),
    ("?page=two", 400, "page: expected a whole number"),
    ("?status=broken", 400, "status: expected one of pass, fail, unscored, n/a"),
])
def test_bad_requests_get_a_page_saying_why(base: str, path: str, code: int,
                                            message: str) -> None:
    status, _, body = _get(base + path)
    assert status == code and message in body


def test_api_errors_are_json(base: str) -> None:
    status, _, body = _get(base + "api/runs?size=0")
    assert status == 400 and json.loads(body) == {"error": "size: expected 1 to 500, got 0"}


def test_a_request_for_another_host_name_is_refused(base: str) -> None:
    # A page elsewhere pointing its own name at 127.0.0.1 (DNS rebinding) sends its Host.
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    connection.request("GET", "/api/runs", headers={"Host": f"evil.example:{parts.port}"})
    response = connection.getresponse()
    assert response.status == 403 and b"case-" not in response.read()
    connection.close()
    assert _get(base.replace("127.0.0.1", "localhost"))[0] == 200


def test_only_get_is_served(base: str) -> None:
    request = urllib.request.Request(base, data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    caught.value.close()  # an error reply holds its connection until closed
    assert caught.value.code == 501


def test_agent_text_is_escaped_on_every_page(tmp_path: Path) -> None:
    with serving(hostile_dir(tmp_path / "out")) as url:
        pages = [_get(url)[2], _get(url + "run/0")[2]]
        api = _json(url + "api/runs")
    for body in pages:
        assert "<script>" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        assert "\x1b" not in body
    assert api["runs"][0]["case_id"].startswith("<script>")  # JSON keeps the text as it is


def test_a_folder_without_transcripts_still_shows_scores_and_failures(tmp_path: Path) -> None:
    with serving(write_viewer_dir(tmp_path / "out", 9, transcripts=False)) as url:
        status, _, body = _get(url + "run/8")
    assert status == 200 and 'data-failure="loop"' in body
    assert "No transcripts.jsonl in this folder" in body


def test_a_transcript_of_another_run_is_not_shown_as_this_one(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 3)
    lines = (folder / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "transcripts.jsonl").write_text("\n".join(lines[::-1]) + "\n", encoding="utf-8")
    with serving(folder) as url:
        body = _get(url + "run/0")[2]
    assert "transcripts.jsonl line 1 is another run (case-02" in body
    assert "order A2" not in body


def test_a_results_file_written_again_while_serving_says_to_restart(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 6)
    with serving(folder) as url:
        write_viewer_dir(folder, 6, bad_lines={0: json.dumps({"case_id": "other"}) + " " * 40})
        status, _, body = _get(url + "run/3")
    assert status == 409 and "changed since `toolgrade view` read it: restart it" in body


def test_every_run_of_the_helpdesk_example_has_a_view_with_its_failures(
    tmp_path: Path,
) -> None:
    from builders_reporting import graded_example

    folder = graded_example(tmp_path / "helpdesk")
    with serving(folder) as url:
        listed = _json(url + "api/runs?size=500")
        assert listed["matched"] == listed["total"] == 90 and not listed["problems"]
        assert {"pass", "fail", "unscored"} <= {r["status"] for r in listed["runs"]}
        for run in listed["runs"]:
            status, _, body = _get(url + run["url"].lstrip("/"))
            assert status == 200 and "transcripts.jsonl line" in body, run
            pinned = set(re.findall(r'data-failure="([^"]+)"', body))
            assert set(run["failures"]) <= pinned, run
