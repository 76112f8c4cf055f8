"""LLM judges: per-dimension templates, a cached and retried engine, and its factory.

The only package that imports litellm (lazily, in `client`), jinja2, diskcache and tenacity.
Checks see just `toolgrade.models.JudgePort`; the CLI calls `build_judge(settings)`.
"""

from toolgrade.errors import PromptError, TransientError
from toolgrade.judging.cache import VerdictCache, cache_key, default_cache_dir
from toolgrade.judging.client import ChatClient, ChatReply, ChatRequest, LiteLLMClient
from toolgrade.judging.factory import NO_JUDGE_MESSAGE, build_judge, resolve_models
from toolgrade.judging.judge import JudgeEngine
from toolgrade.judging.prompts import PromptTemplate, RenderedPrompt, load_template
from toolgrade.judging.verdict import JudgeReply, p_pass_from_logprobs, parse_reply

__all__ = [
    "NO_JUDGE_MESSAGE",
    "ChatClient",
    "ChatReply",
    "ChatRequest",
    "JudgeEngine",
    "JudgeReply",
    "LiteLLMClient",
    "PromptError",
    "PromptTemplate",
    "RenderedPrompt",
    "TransientError",
    "VerdictCache",
    "build_judge",
    "cache_key",
    "default_cache_dir",
    "load_template",
    "p_pass_from_logprobs",
    "parse_reply",
    "resolve_models",
]
