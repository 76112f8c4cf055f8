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
