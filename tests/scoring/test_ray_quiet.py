"""`toolgrade run --quiet --engine ray`: Ray's start-up warnings stay off stderr (no Ray is
started here: `ray.init` is a recorder)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolgrade.scoring import ray_engine
from toolgrade.scoring.ray_engine import RayEngine


class _FakeRay:
    def __init__(self) -> None:
        self.init_kwargs: dict[str, Any] = {}

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        self.init_kwargs = kwargs


@pytest.mark.parametrize(("quiet", "level"), [(True, logging.ERROR), (False, logging.WARNING)])
def test_quiet_keeps_rays_warnings_off(
    monkeypatch: pytest.MonkeyPatch, quiet: bool, level: int
) -> None:
    fake = _FakeRay()
    monkeypatch.setattr(ray_engine, "import_ray", lambda: fake)
    ray_logger = logging.getLogger("ray")
    monkeypatch.setattr(ray_logger, "level", ray_logger.level)  # restored afterwards
    RayEngine(quiet=quiet).open()
    assert fake.init_kwargs["logging_level"] == level
    assert ray_logger.level == level  # set before init: some warnings come before it applies
