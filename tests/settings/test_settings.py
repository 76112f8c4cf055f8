"""Settings files: the table read, and errors that name the file and the field as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgrade.errors import ConfigError
from toolgrade.settings import load_settings


def test_pyproject_errors_name_the_field_under_tool_toolgrade(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.toolgrade.judge]\nmodle = "x"\n')
    with pytest.raises(ConfigError, match=r"tool\.toolgrade\.judge\.modle: Extra inputs"):
        load_settings(cwd=tmp_path)


def test_an_explicit_pyproject_without_the_table_says_so(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"no \[tool\.toolgrade\] table in it"):
        load_settings(path)


def test_a_pyproject_whose_tool_is_not_a_table_has_no_settings(tmp_path: Path) -> None:
    # `tool = 1` is valid TOML: it once crashed with AttributeError ('int' has no .get).
    path = tmp_path / "pyproject.toml"
    path.write_text('tool = 1\n')
    with pytest.raises(ConfigError, match=r"no \[tool\.toolgrade\] table in it"):
        load_settings(path)
    assert load_settings(cwd=tmp_path).source is None  # found by itself: passed over


@pytest.mark.parametrize(
    "line", ["timeout_s = -5", "timeout_s = 0", "max_tokens = 0", "temperature = -1"]
)
def test_judge_numbers_that_cannot_work_are_refused(tmp_path: Path, line: str) -> None:
    path = tmp_path / "toolgrade.toml"
    path.write_text(f"[judge]\n{line}\n")
    with pytest.raises(ConfigError, match=rf"judge\.{line.split()[0]}"):
        load_settings(path)


@pytest.mark.parametrize(
    "line",
    [
        'threshold = "0.5"', "threshold = true", 'use_cache = "no"', "enabled = 1",
        'max_attempts = "3"', "concurrency = 2.0", 'kappa_floor = "0.4"',
        'dimensions.alternate_route.threshold = "0.7"',
    ],
)
def test_judge_values_of_the_wrong_type_are_refused_as_gates_are(
    tmp_path: Path, line: str
) -> None:
    # A quoted number or a 1 for true is a mistake to report, not a value to guess at.
    path = tmp_path / "toolgrade.toml"
    path.write_text(f"[judge]\n{line}\n")
    key = line.split()[0].rpartition(".")[2]
    with pytest.raises(ConfigError, match=rf"{key}: Input should be a valid"):
        load_settings(path)


def test_whole_numbers_are_fine_where_a_number_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "toolgrade.toml"
    path.write_text("[judge]\nthreshold = 1\ntimeout_s = 30\ntemperature = 0\n")
    judge = load_settings(path).judge
    assert (judge.threshold, judge.timeout_s, judge.temperature) == (1.0, 30.0, 0.0)


def test_a_dimension_combination_loads_from_toml_as_the_docs_show(tmp_path: Path) -> None:
    path = tmp_path / "toolgrade.toml"
    path.write_text(
        '[judge.dimensions.recovery_quality]\nmode = "logprob"\nthreshold = 0.41\n'
        'combination = { features = ["model_logit", "stage_bad"], weights = [0.3, -1.4], '
        "bias = -0.6 }\n"
    )
    settings = load_settings(path).judge.for_dimension("recovery_quality")
    assert settings.combination is not None and settings.combination.weights == [0.3, -1.4]
    assert settings.threshold == 0.41


def test_a_combination_with_unpaired_weights_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "toolgrade.toml"
    path.write_text('[judge.dimensions.recovery_quality]\n'
                    'combination = { features = ["model_logit"], weights = [], bias = 0 }\n')
    with pytest.raises(ConfigError, match="combination"):
        load_settings(path)
