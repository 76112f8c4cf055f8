"""The embedded model's token-level runtime: requests in llama-cpp-python's terms, greedy
decoding with log-probabilities, and loading the model (no litellm here: provider.py serves it).

Two paths:
- plain and structured output: `Llama.create_chat_completion`, with litellm's
  `response_format={"type": "json_schema", ...}` turned into llama-cpp's grammar-constrained
  `{"type": "json_object", "schema": ...}`;
- log-probabilities: a short greedy decode that reads the last token's logits after each step.
  llama-cpp-python only reports logprobs when the model keeps logits for every prompt token
  (`logits_all=True`), which costs an extra vocabulary projection per prompt token and a
  log-softmax over all of them; the judge needs the distribution of one or two tokens only.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Protocol, TypedDict, cast

import numpy as np
from numpy.typing import NDArray

from toolgrade.errors import LocalModelError
from toolgrade.jsonio.values import JsonValue
from toolgrade.judging.local.files import LOCAL_MODEL

N_CTX = 4096
DEFAULT_MAX_TOKENS = 512
#: OpenAI caps top_logprobs at 20; so do we.
MAX_TOP_LOGPROBS = 20
#: Prompts are evaluated in chunks starting at multiples of this many tokens, and only whole
#: chunks of the previous prompt are reused. llama.cpp's results vary slightly with where a
#: batch is cut (logits moved by up to 0.3 here, enough to flip a borderline P(pass)); with a
#: fixed grid, every token is computed in the same batch whatever was asked before, so a verdict
#: depends on its prompt alone.
PROMPT_CHUNK = 64


class ResponseFormat(TypedDict):
    """llama-cpp's grammar-constrained output: JSON, of `schema` when given."""

    type: Literal["json_object"]
    schema: NotRequired[JsonValue]


class LlamaParams(TypedDict, total=False):
    """The keyword arguments of `Llama.create_chat_completion` a request sets."""

    temperature: float
    top_p: float
    seed: int
    stop: str | list[str]
    max_tokens: int
    repeat_penalty: float
    response_format: ResponseFormat


class TokenLogprob(TypedDict):
    """One generated token in OpenAI's `logprobs.content` form."""

    token: str
    logprob: float
    bytes: list[int]
    #: The step's most likely tokens (absent on the entries of that list themselves).
    top_logprobs: NotRequired[list[TokenLogprob]]


class ChoiceMessage(TypedDict):
    """The assistant's message of a completion."""

    role: str
    content: str | None


class ChoiceLogprobs(TypedDict):
    """A choice's log-probabilities, one entry per generated token."""

    content: list[TokenLogprob]


class Choice(TypedDict):
    """One choice of a completion."""

    index: int
    message: ChoiceMessage
    finish_reason: str | None
    logprobs: ChoiceLogprobs | None


class CompletionUsage(TypedDict):
    """Token counts of a completion."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(TypedDict):
    """An OpenAI-shape chat completion, as llama-cpp returns it and `chat_result` builds it."""

    id: str
    object: str
    created: int
    model: str
    choices: list[Choice]
    usage: CompletionUsage


@dataclass(frozen=True)
class LlamaRequest:
    """One request, already in llama-cpp-python's terms."""

    messages: list[dict[str, str]]
    params: LlamaParams
    top_logprobs: int | None = None  # set: serve through the log-probability path


def _text_of(content: Any) -> str:
    """A message's content as plain text (litellm may hand over a list of typed parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "".join(parts)


def translate_messages(messages: list[Any]) -> list[dict[str, str]]:
    """OpenAI chat messages reduced to the role and text the chat template needs."""
    return [{"role": str(m["role"]), "content": _text_of(m.get("content"))} for m in messages]


def translate_response_format(response_format: Any) -> ResponseFormat | None:
    """litellm's `response_format` (a dict, or a pydantic class: Any, as litellm passes it) ->
    llama-cpp's grammar-constrained form (None: free text)."""
    if not response_format:
        return None
    if hasattr(response_format, "model_json_schema"):  # a pydantic class passed straight through
        return {"type": "json_object", "schema": response_format.model_json_schema()}
    kind = response_format.get("type")
    if kind == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
    if kind == "json_object":
        if "schema" in response_format:
            return {"type": "json_object", "schema": response_format["schema"]}
        return {"type": "json_object"}
    if kind == "text":
        return None
    raise LocalModelError(f"local provider: unsupported response_format type {kind!r}")


def _passed_through(optional_params: Mapping[str, Any]) -> LlamaParams:
    """The sampling parameters llama-cpp takes as they are, when set."""
    params: LlamaParams = {}
    if (temperature := optional_params.get("temperature")) is not None:
        params["temperature"] = temperature
    if (top_p := optional_params.get("top_p")) is not None:
        params["top_p"] = top_p
    if (seed := optional_params.get("seed")) is not None:
        params["seed"] = seed
    if (stop := optional_params.get("stop")) is not None:
        params["stop"] = stop
    if (max_tokens := optional_params.get("max_tokens")) is not None:
        params["max_tokens"] = max_tokens
    return params


def translate_request(messages: list[Any], optional_params: dict[str, Any]) -> LlamaRequest:
    """litellm's `messages` and `optional_params` (its keyword arguments, of whatever types its
    caller gave) -> a `LlamaRequest`; unknown params drop."""
    params = _passed_through(optional_params)
    params.setdefault("temperature", 0.0)
    params.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    # llama-cpp's chat handler defaults repeat_penalty to 1.1, which bends JSON keys and
    # short verdicts; the judge wants the model's plain distribution.
    params["repeat_penalty"] = 1.0
    response_format = translate_response_format(optional_params.get("response_format"))
    top: int | None = None
    if optional_params.get("logprobs"):
        top = max(1, min(int(optional_params.get("top_logprobs") or 1), MAX_TOP_LOGPROBS))
        if response_format is not None:
            raise LocalModelError("local provider: logprobs do not combine with response_format")
    elif response_format is not None:
        params["response_format"] = response_format
    return LlamaRequest(translate_messages(messages), params, top)


class TokenModel(Protocol):
    """What the log-probability path needs from a loaded model."""

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat-templated prompt, tokenized."""
        ...

    def feed(self, tokens: list[int]) -> None:
        """Evaluate a whole prompt from the start (reusing a shared prefix is allowed, as long
        as the logits do not depend on what was evaluated before)."""
        ...

    def append(self, tokens: list[int]) -> None:
        """Evaluate `tokens` after the current context (a generated token)."""
        ...

    def keep_reusable(self, upto: int) -> None:
        """Something else re-evaluated the context from position `upto`: reuse nothing past it."""
        ...

    def last_logits(self) -> NDArray[np.float32]:
        """Logits of the last evaluated position."""
        ...

    def token_text(self, token: int) -> str:
        """One token's text."""
        ...

    def is_end(self, token: int) -> bool:
        """True for end-of-generation tokens."""
        ...


def log_softmax(logits: NDArray[np.float32]) -> NDArray[np.float64]:
    """Numerically stable log-softmax."""
    x = logits.astype(np.float64)
    shifted = x - x.max()
    return shifted - np.log(np.exp(shifted).sum())  # type: ignore[no-any-return]


def _entry(model: TokenModel, token: int, logprob: float) -> TokenLogprob:
    text = model.token_text(token)
    return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}


class PromptTooLong(LocalModelError, ValueError):
    """A prompt (with room for its answer) longer than the model's context: asking again cannot
    help, so the provider reports it as litellm's ContextWindowExceededError (not retried)."""

    def __init__(self, prompt_tokens: int, answer_tokens: int) -> None:
        super().__init__(f"the prompt is {prompt_tokens} tokens and its answer may take "
                         f"{answer_tokens}; the embedded model reads {N_CTX} tokens in all")


def ensure_fits(prompt_tokens: int, answer_tokens: int) -> None:
    """Raise `PromptTooLong` unless the prompt and its answer fit in the context."""
    if prompt_tokens + max(1, answer_tokens) > N_CTX:
        raise PromptTooLong(prompt_tokens, answer_tokens)


def greedy_with_logprobs(
    model: TokenModel, messages: list[dict[str, str]], max_tokens: int, top_n: int
) -> tuple[str, list[TokenLogprob], int, int, str]:
    """Greedy decode up to `max_tokens`, recording each step's top-`top_n` log-probabilities.

    Returns (text, OpenAI `logprobs.content` entries, prompt tokens, completion tokens,
    finish reason).
    """
    prompt = model.prompt_tokens(messages)
    ensure_fits(len(prompt), max_tokens)
    model.feed(prompt)
    content: list[TokenLogprob] = []
    text, finish = "", "length"
    for _ in range(max(1, max_tokens)):
        logprobs = log_softmax(model.last_logits())
        top = np.argsort(-logprobs, kind="stable")[:top_n]
        chosen = int(top[0])
        ended = model.is_end(chosen)
        # The first step's distribution is always reported, even when the model would stop at
        # once: a logprob judge reads content[0].top_logprobs and must find it.
        if ended and content:
            finish = "stop"
            break
        step = _entry(model, chosen, float(logprobs[chosen]))
        step["top_logprobs"] = [_entry(model, int(t), float(logprobs[t])) for t in top]
        content.append(step)
        if ended:
            finish = "stop"
            break
        text += step["token"]
        if len(content) < max_tokens:
            model.append([chosen])
    return text, content, len(prompt), len(content), finish


def chat_result(
    text: str,
    prompt_tokens: int,
    completion_tokens: int,
    finish: str,
    logprobs: list[TokenLogprob] | None = None,
) -> ChatCompletion:
    """An OpenAI-shape chat completion dict."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": LOCAL_MODEL,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": finish,
            "logprobs": {"content": logprobs} if logprobs is not None else None,
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class LlamaTokenModel:
    """`TokenModel` over a `llama_cpp.Llama` loaded with `logits_all=False`."""

    def __init__(self, llama: Any) -> None:
        from llama_cpp import llama_chat_format

        self._llama = llama
        # Where the prompt tokens evaluated as whole grid chunks end: only they may be reused.
        self._whole_chunks = 0
        #: (prompt tokens, tokens evaluated afresh) of the last `feed`, for the speed benchmark.
        self.last_feed: tuple[int, int] = (0, 0)
        model = llama._model  # the GGUF's own template, as Llama itself builds it
        eos, bos = llama.token_eos(), llama.token_bos()
        self._formatter = llama_chat_format.Jinja2ChatFormatter(
            template=llama.metadata["tokenizer.chat_template"],
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat-templated prompt, tokenized as llama-cpp's chat handler does."""
        result = self._formatter(messages=cast(Any, messages))  # TypedDicts in llama_cpp
        tokens: list[int] = self._llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        return tokens

    def feed(self, tokens: list[int]) -> None:
        """Evaluate a prompt on the `PROMPT_CHUNK` grid, keeping the whole chunks it shares with
        the last prompt."""
        llama = self._llama
        keep = 0
        # At least one token must be evaluated so that fresh logits exist.
        limit = min(self._whole_chunks, len(tokens) - 1)
        while keep < limit and llama.input_ids[keep] == tokens[keep]:
            keep += 1
        keep -= keep % PROMPT_CHUNK
        llama.n_tokens = keep
        self._whole_chunks = keep
        for start in range(keep, len(tokens), PROMPT_CHUNK):
            llama.eval(tokens[start : start + PROMPT_CHUNK])
        self.last_feed = (len(tokens), len(tokens) - keep)
        self._whole_chunks = len(tokens) - len(tokens) % PROMPT_CHUNK

    def append(self, tokens: list[int]) -> None:
        """Evaluate generated tokens after the context (they never count as reusable chunks)."""
        self._llama.eval(tokens)

    def keep_reusable(self, upto: int) -> None:
        """Reuse no chunk that reaches past position `upto` (another caller changed it)."""
        self._whole_chunks = min(self._whole_chunks, upto - upto % PROMPT_CHUNK)

    def last_logits(self) -> NDArray[np.float32]:
        """The last position's logits, read from the context (not kept by Llama itself)."""
        n_vocab = self._llama.n_vocab()
        ptr = self._llama._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(n_vocab,)).copy()

    def token_text(self, token: int) -> str:
        """One token's text (a partial UTF-8 sequence decodes lossily)."""
        raw: bytes = self._llama.detokenize([token])
        return raw.decode("utf-8", errors="ignore")

    def is_end(self, token: int) -> bool:
        """True for end-of-generation tokens (e.g. Qwen's <|im_end|>)."""
        import llama_cpp

        return bool(llama_cpp.llama_vocab_is_eog(self._llama._model.vocab, token))


def load_llama(model_path: str) -> Any:
    """Load the GGUF with settings measured to suit these small CPU machines."""
    import llama_cpp

    return llama_cpp.Llama(
        model_path=model_path,
        n_ctx=N_CTX,
        n_threads=os.cpu_count() or 1,
        logits_all=False,
        chat_format="chat_template.default",  # the GGUF's own template, on both paths
        verbose=False,
    )


