"""Test-wide settings: property tests are deterministic and never timed.

`derandomize`: every run (a developer's, CI's) tries the same examples, so a green suite stays
green on a clean clone; a property that should explore more says so with its own
`max_examples`. `deadline=None`: speed belongs in benchmarks/, and a busy machine made
per-example deadlines fail tests that were right.
"""

from hypothesis import settings

settings.register_profile("toolgrade", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("toolgrade")

import os  # noqa: E402

# The judge's delimiter secret is injected, so no test writes one into the user's config.
os.environ.setdefault("TOOLGRADE_DELIMITER_SECRET", "toolgrade-tests")

# Records a developer wrote (`make calibrate`, their own `calibrate`) live in ~/.cache; the
# defaults read that folder for the signals judge, so tests read an empty folder of their own.
import tempfile  # noqa: E402

os.environ.setdefault("TOOLGRADE_CALIBRATION_DIR",
                      tempfile.mkdtemp(prefix="toolgrade-test-records-"))

import asyncio  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_the_loop_litellm_leaves() -> Iterator[None]:
    """Close the event loop a synchronous litellm call leaves behind.

    litellm's service logger (`_service_logger._sync_dispatch_loop`) calls
    `asyncio.get_event_loop()` on every synchronous completion, which creates and sets a loop
    nobody closes; a later `asyncio.run` replaces it and the garbage collector then reports
    it unclosed (a ResourceWarning, an error here), failing whichever test happens to run
    next. Closing it after each test keeps the suite independent of file order.
    """
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # no current loop (3.12+)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running() and not loop.is_closed():
        loop.close()
        asyncio.set_event_loop(None)
