"""The litellm custom provider that serves the embedded model in-process.

`litellm.completion(model=LOCAL_MODEL, ...)` lands in `LocalHandler.completion`, which translates
the OpenAI-style parameters to llama-cpp-python (runtime.py), runs one chat completion under a
lock (llama.cpp is not re-entrant) and returns a litellm `ModelResponse` with usage filled and
zero cost. The first load self-tests the runtime in a child process (self_test.py).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from collections.abc import Callable
from typing import Any, TypedDict

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map fetch
import litellm
from litellm.exceptions import ContextWindowExceededError
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from toolgrade.judging.local.files import LOCAL_MODEL, LOCAL_PROVIDER, ensure_model_file
from toolgrade.judging.local.runtime import (
    N_CTX,
    ChatCompletion,
    LlamaRequest,
    LlamaTokenModel,
    PromptTooLong,
    TokenModel,
    chat_result,
    ensure_fits,
    greedy_with_logprobs,
    load_llama,
    translate_request,
)
from toolgrade.judging.local.self_test import ensure_runtime_ok


def load_default() -> tuple[Any, TokenModel]:
    """The embedded model, assembled and verified if needed, with its token-level view.

    The runtime is self-tested in a child process first (once per build), so a library built
    for another CPU fails with a message and the rebuild command instead of killing this
    process with a signal.
    """
    path = ensure_model_file()
    ensure_runtime_ok(path)
    llama = load_llama(str(path))
    return llama, LlamaTokenModel(llama)


class LocalServer:
    """One lazily loaded model shared by every call, serialised by a lock.

    `loader` returns the chat model (anything with llama-cpp's `create_chat_completion`) and its
    `TokenModel`; tests pass fakes, the default loads the embedded model on the first call.
    """

    def __init__(self, loader: Callable[[], tuple[Any, TokenModel]] = load_default) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._loaded: tuple[Any, TokenModel] | None = None

    @property
    def loaded(self) -> bool:
        """True once the model has been loaded."""
        return self._loaded is not None

    def close(self) -> None:
        """Free the model (it is loaded again on the next call)."""
        with self._lock:
            if self._loaded is not None:
                close = getattr(self._loaded[0], "close", None)
                if close is not None:
                    close()
                self._loaded = None

    def chat(self, request: LlamaRequest) -> ChatCompletion:
        """Serve one request; returns an OpenAI-shape chat completion dict."""
        with self._lock:
            if self._loaded is None:
                self._loaded = self._loader()
                # Free the model before interpreter teardown: llama-cpp's own __del__ runs too
                # late and prints a TypeError on exit.
                atexit.register(self.close)
            llama, tokens = self._loaded
            if request.top_logprobs is not None:
                text, content, n_prompt, n_out, finish = greedy_with_logprobs(
                    tokens, request.messages, int(request.params["max_tokens"]),
                    request.top_logprobs,
                )
                return chat_result(text, n_prompt, n_out, finish, content)
            # The prompt goes through the chunk grid first; llama-cpp then finds it in the context
            # and evaluates only its last token again, so the answer depends on this prompt alone.
            prompt = tokens.prompt_tokens(request.messages)
            ensure_fits(len(prompt), int(request.params.get("max_tokens") or 1))
            tokens.feed(prompt)
            result: ChatCompletion = llama.create_chat_completion(
                messages=request.messages, **request.params
            )
            tokens.keep_reusable(len(prompt) - 1)
            return result


def to_model_response(result: ChatCompletion) -> ModelResponse:
    """An OpenAI-shape dict as the litellm response the engine reads."""
    response = ModelResponse(**{**result, "model": LOCAL_MODEL})
    response._hidden_params["response_cost"] = 0.0
    return response


class LocalHandler(CustomLLM):
    """litellm custom provider for `LOCAL_MODEL`."""

    def __init__(self, server: LocalServer | None = None) -> None:
        super().__init__()
        self.server = server or LocalServer()

    def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Serve `litellm.completion` in-process."""
        request = translate_request(kwargs["messages"], kwargs.get("optional_params") or {})
        try:
            return to_model_response(self.server.chat(request))
        except PromptTooLong as exc:
            # litellm passes its own errors through: this one is not retried (client.py).
            raise ContextWindowExceededError(
                message=str(exc), model=LOCAL_MODEL, llm_provider=LOCAL_PROVIDER) from exc

    async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Serve `litellm.acompletion` on a worker thread (the model lock still serialises)."""
        return await asyncio.to_thread(self.completion, *args, **kwargs)


_register_lock = threading.Lock()
_handler: LocalHandler | None = None


class _CostEntry(TypedDict):
    """The local model's entry in litellm's model cost map: free, chat, schema-capable."""

    max_tokens: int
    max_input_tokens: int
    max_output_tokens: int
    input_cost_per_token: float
    output_cost_per_token: float
    cache_creation_input_token_cost: float
    cache_read_input_token_cost: float
    litellm_provider: str
    mode: str
    supports_response_schema: bool


def _zero_cost_entry() -> dict[str, _CostEntry]:
    return {
        LOCAL_MODEL: {
            "max_tokens": N_CTX,
            "max_input_tokens": N_CTX,
            "max_output_tokens": N_CTX,
            "input_cost_per_token": 0.0,
            "output_cost_per_token": 0.0,
            "cache_creation_input_token_cost": 0.0,
            "cache_read_input_token_cost": 0.0,
            "litellm_provider": LOCAL_PROVIDER,
            "mode": "chat",
            "supports_response_schema": True,
        }
    }


def register(handler: LocalHandler | None = None) -> LocalHandler:
    """Add the provider to `litellm.custom_provider_map` once; return the handler in use."""
    global _handler
    with _register_lock:
        registered = any(p.get("custom_handler") is _handler for p in litellm.custom_provider_map)
        if registered and handler is None and _handler is not None:
            return _handler
        if _handler is None or handler is not None:
            _handler = handler or LocalHandler()
        others = [p for p in litellm.custom_provider_map if p.get("provider") != LOCAL_PROVIDER]
        litellm.custom_provider_map = [
            *others, {"provider": LOCAL_PROVIDER, "custom_handler": _handler}
        ]
        litellm.register_model(_zero_cost_entry())
        return _handler
