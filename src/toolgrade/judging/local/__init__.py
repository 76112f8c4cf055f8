"""The embedded default judge: a small instruct model, offline and in-process.

The package's layers, each importing only those before it:

- `files`: the model's weights, shipped as raw byte chunks, assembled into one verified file;
- `runtime`: requests in llama-cpp-python's terms, greedy decoding with log-probabilities,
  loading the model;
- `self_test`: a one-time test of the llama.cpp build in a child process before the first load;
- `provider`: the litellm custom provider serving `LOCAL_MODEL` in-process.

Importing this package imports neither llama_cpp nor litellm: `local_available()` must stay
cheap and `make test` must never touch the real model.
"""

from __future__ import annotations

from toolgrade.errors import LocalModelError
from toolgrade.judging.local.files import (
    LOCAL_INSTALL_HINT,
    LOCAL_MODEL,
    LOCAL_MODEL_DESCRIPTION,
    LOCAL_PROVIDER,
    MODEL_DIR_ENV,
    QWEN_SPEC,
    ModelSpec,
    assemble_model,
    chunk_paths,
    default_cache_dir,
    default_judge_model,
    ensure_model_file,
    is_local_model,
    local_available,
)


def register_local_provider() -> None:
    """Make `LOCAL_MODEL` callable through litellm.completion. Idempotent; loads no model.

    The model itself is loaded on the first completion.
    """
    from toolgrade.judging.local.provider import register  # litellm import: only when asked

    register()


__all__ = [
    "LOCAL_INSTALL_HINT", "LOCAL_MODEL", "LOCAL_MODEL_DESCRIPTION", "LOCAL_PROVIDER",
    "MODEL_DIR_ENV", "QWEN_SPEC", "LocalModelError", "ModelSpec", "assemble_model",
    "chunk_paths", "default_cache_dir", "default_judge_model", "ensure_model_file",
    "is_local_model", "local_available", "register_local_provider",
]
