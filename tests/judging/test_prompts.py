"""Templates render with exactly their inputs; data is fenced, sanitised, never evaluated."""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_judging import data_blocks, inputs_for
from toolgrade.errors import PromptError
from toolgrade.judging import prompts
from toolgrade.judging.prompts import (
    PromptTemplate,
    load_template,
    load_templates,
    strip_delimiters,
    wrap,
)
from toolgrade.models import JUDGE_DIMENSIONS, JUDGE_INPUTS, JudgeDimension

DELIMITER_LIKE = re.compile(r"<<\s*(end\s*-\s*)?data\s*-", re.IGNORECASE)


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_each_template_renders_with_its_inputs(dimension: JudgeDimension) -> None:
    template = load_template(dimension)
    prompt = template.render(inputs_for(dimension), token="0123456789abcdef")
    blocks, outside = data_blocks(prompt.user, "0123456789abcdef")
    data_inputs = [k for k in JUDGE_INPUTS[dimension] if k != "rubric"]
    assert len(blocks) == len(data_inputs)
    assert "<<DATA-0123456789abcdef>>" in prompt.system  # the model is told the token
    assert '"verdict"' in prompt.system and '"reason"' in prompt.system
    assert prompt.system.index('"reason"') < prompt.system.index('"verdict"')  # reason first
    assert "DATA-" not in outside  # no stray marker outside the blocks
    assert [m["role"] for m in prompt.messages()] == ["system", "user"]


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
@pytest.mark.parametrize("missing_index", range(4))
def test_a_missing_input_raises(dimension: JudgeDimension, missing_index: int) -> None:
    inputs = inputs_for(dimension)
    name = JUDGE_INPUTS[dimension][missing_index]
    del inputs[name]
    with pytest.raises(PromptError, match=name):
        load_template(dimension).render(inputs)


def test_an_unexpected_input_raises() -> None:
    with pytest.raises(PromptError, match="surprise"):
        load_template("alternate_route").render(inputs_for("alternate_route", surprise=1))


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_template_hash_is_sha256_of_the_source(dimension: JudgeDimension) -> None:
    source = (resources.files("toolgrade") / "judge_prompts" / f"{dimension}.jinja").read_text()
    assert load_template(dimension).template_hash == hashlib.sha256(source.encode()).hexdigest()


def test_top_level_judge_prompts_folder_is_the_packaged_one() -> None:
    top = Path(__file__).resolve().parents[2] / "judge_prompts"
    for dimension, template in load_templates(top).items():
        assert template.template_hash == load_template(dimension).template_hash


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_logprob_mode_asks_for_yes_or_no(dimension: JudgeDimension) -> None:
    prompt = load_template(dimension).render(inputs_for(dimension), answer_mode="logprob")
    assert '"yes"' in prompt.system and '"no"' in prompt.system
    assert '"verdict"' not in prompt.system


def test_each_render_draws_a_fresh_token(monkeypatch: pytest.MonkeyPatch) -> None:
    # Twenty real 4-digit tokens collide about once in 300 runs, so the draws are counted
    # through a stand-in for the random source instead of compared for uniqueness.
    template = load_template("argument_equivalence")
    real = template.render(inputs_for("argument_equivalence")).token
    assert re.fullmatch(r"[0-9a-f]{4}", real)
    drawn = iter(f"{i:04x}" for i in range(20))
    monkeypatch.setattr(prompts.secrets, "token_hex", lambda n: next(drawn))
    tokens = [template.render(inputs_for("argument_equivalence")).token for _ in range(20)]
    assert tokens == [f"{i:04x}" for i in range(20)]


def test_rubric_goes_to_the_system_part_only() -> None:
    inputs = inputs_for("argument_equivalence", rubric="Airport codes count as the city.")
    prompt = load_template("argument_equivalence").render(inputs)
    assert "Airport codes count as the city." in prompt.system
    assert "Airport codes" not in prompt.user


def test_jinja_syntax_in_data_is_not_evaluated() -> None:
    inputs = inputs_for("argument_equivalence", actual="{{ 7*7 }} {% if true %}x{% endif %}")
    prompt = load_template("argument_equivalence").render(inputs, token="a" * 16)
    blocks, _ = data_blocks(prompt.user, "a" * 16)
    assert "{{ 7*7 }} {% if true %}x{% endif %}" in blocks
    assert "49" not in prompt.user


def test_a_system_block_cannot_reference_judged_data() -> None:
    # Structural guard: agent text is undefined while the system part renders.
    source = "{% block system %}{{ actual }}{% endblock %}{% block user %}{% endblock %}"
    template = PromptTemplate("argument_equivalence", source)
    with pytest.raises(PromptError, match="system"):
        template.render(inputs_for("argument_equivalence"))


def test_a_template_needs_both_blocks() -> None:
    with pytest.raises(PromptError, match="user"):
        PromptTemplate("alternate_route", "{% block system %}x{% endblock %}")


def test_non_string_values_are_rendered_as_json() -> None:
    text = wrap({"b": [1, 2.5, None], "a": "é"}, "f" * 16)
    assert '"b": [' in text and '"a": "é"' in text and "null" in text


@given(st.text(alphabet=st.sampled_from(list("<<>>-DATAEND data end-")), max_size=60))
def test_stripping_leaves_no_delimiter_prefix(text: str) -> None:
    assert DELIMITER_LIKE.search(strip_delimiters(text)) is None


@given(st.text(max_size=200))
def test_stripping_is_identity_on_text_without_markers(text: str) -> None:
    if DELIMITER_LIKE.search(text) is None:
        assert strip_delimiters(text) == text


def test_stripping_catches_markers_rebuilt_by_a_removal() -> None:
    assert DELIMITER_LIKE.search(strip_delimiters("<<DA<<DATA-TA-x <<end - DATA-y")) is None


def _edited(tmp_path: Path, dimension: JudgeDimension, old: str, new: str) -> Path:
    """A copy of the shipped templates with one edit in `dimension`'s file."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    for dim in JUDGE_DIMENSIONS:
        source = load_template(dim).source
        if dim == dimension:
            assert old in source
            source = source.replace(old, new, 1)
        (folder / f"{dim}.jinja").write_text(source, encoding="utf-8")
    return folder


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_a_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    folder = _edited(tmp_path, "argument_equivalence", "{{ task }}", "{{ task }")
    path = folder / "argument_equivalence.jinja"
    with pytest.raises(PromptError) as caught:
        load_templates(folder)
    assert str(caught.value).startswith(f"{path}:{_line_of(path, '{{ task }')}: ")


def test_a_render_error_names_the_file_block_and_line(tmp_path: Path) -> None:
    folder = _edited(tmp_path, "recovery_quality", "{{ stage }}", "{{ stage_name }}")
    path = folder / "recovery_quality.jinja"
    template = PromptTemplate("recovery_quality", path.read_text(encoding="utf-8"), path)
    with pytest.raises(PromptError) as caught:
        template.render(inputs_for("recovery_quality"))
    line = _line_of(path, "{{ stage_name }}")
    assert str(caught.value).startswith(f"{path}:{line}: block user: ")
    assert "'stage_name' is undefined" in str(caught.value)


def test_a_broken_template_is_a_toolgrade_error() -> None:
    # So the command line reports it as bad configuration (exit 2), not with a traceback.
    from toolgrade.errors import ToolgradeError

    with pytest.raises(ToolgradeError):
        PromptTemplate("alternate_route", "{% block system %}{{ x }")


@pytest.mark.parametrize(
    ("old", "new", "block", "name"),
    [
        ("{{ tool }}", "{{ tool_name }}", "user", "tool_name"),  # a misspelt input
        ("{{ data_close }}", "{{ data_close }} {{ actual }}", "system", "actual"),  # judged data
        ("{% if rubric %}", "{% if rubric or strict %}", "system", "strict"),  # unknown name
    ],
)
def test_a_template_naming_a_variable_its_block_lacks_fails_to_load(
    tmp_path: Path, old: str, new: str, block: str, name: str
) -> None:
    # Checked when the file is loaded, before any model call: rendering would fail on every
    # request and leave the whole dimension unscored.
    folder = _edited(tmp_path, "argument_equivalence", old, new)
    path = folder / "argument_equivalence.jinja"
    with pytest.raises(PromptError) as caught:
        load_templates(folder)
    line = _line_of(path, new)
    assert str(caught.value).startswith(f"{path}:{line}: block {block}: '{name}' ")


def test_loop_variables_and_jinja_globals_are_not_flagged(tmp_path: Path) -> None:
    folder = _edited(
        tmp_path,
        "alternate_route",
        "{{ actual_route }}",
        "{% for step in range(2) %}{% set n = loop.index %}{{ step }}{{ n }}{% endfor %}"
        "{{ actual_route }}",
    )
    assert load_templates(folder)["alternate_route"].dimension == "alternate_route"
