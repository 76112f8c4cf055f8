"""The OTLP attribute that names a trace's case, in a module that imports nothing.

`toolgrade.adapters.otlp_traces` re-exports it; it lives here so that the command line can show
it as the default of `--case-attribute` without loading the adapters and the models.
"""

from __future__ import annotations

#: The span or resource attribute holding the case id, unless `--case-attribute` says.
CASE_ATTRIBUTE = "toolgrade.case_id"
