"""Composition shared by the CLI and the pytest plugin: building a run's judges.

`judges.setup_judges` turns settings into the judge engine, its calibration records and kappa
floors, and `escalation.add_escalation` wraps escalating dimensions; `toolgrade run` and the
pytest plugin both call them, so neither owns them. This layer sits under `cli` and over
everything it wires together (judging, calibration, settings).
"""
