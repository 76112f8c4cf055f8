"""Judge prompt templates: loading, hashing and rendering with untrusted data fenced off.

Each `judge_prompts/<dimension>.jinja` defines two jinja2 blocks:

- `{% block system %}`: instructions, rubric and output format. It is rendered with *only*
  `data_open`, `data_close`, `answer_mode` and (for `argument_equivalence`) the case author's
  `rubric`; the judged inputs are not defined there, so a template cannot leak agent text into
  the system part (StrictUndefined turns any such reference into an error).
- `{% block user %}`: the data. Every input named in `JUDGE_INPUTS[dimension]` (except `rubric`)
  arrives already serialised and wrapped in the per-call delimiters
  `<<DATA-{token}>>` ... `<<END-DATA-{token}>>`, with every delimiter-like prefix removed from
  its content first.

Rendering uses a sandboxed environment, and the inputs are passed as variables, never compiled,
so jinja syntax inside agent text (`{{ 7*7 }}`) stays literal text.

The data delimiters are deterministic (`content_token`): the token is derived from the content
and a per-installation secret, so the same request is rendered the same way on every call and a
fresh cache reproduces the same verdict.

A random token per call made P(pass) move between runs (a small model reads the token too),
so verdicts near the cut flipped. The token is now HMAC-SHA256(secret, template hash, answer
mode, inputs), cut to `TOKEN_HEX_DIGITS` hex digits: judged content cannot compute it without
the secret, and `prompts.strip_delimiters` still removes every delimiter-like text from the
data whatever token it guesses. The secret is random, created once per installation in
`$TOOLGRADE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/toolgrade`, else `~/.config/toolgrade`
(file `delimiter-secret`, mode 0600); `TOOLGRADE_DELIMITER_SECRET` gives it outright (tests, a
team sharing one across machines). A home that cannot be written costs reproducibility across
processes only: the secret is then random for the process, and said once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

from toolgrade.errors import PromptError
from toolgrade.judging.cache import canonical_json
from toolgrade.models import JUDGE_DIMENSIONS, JUDGE_INPUTS, JudgeDimension

AnswerMode = Literal["reasoned", "logprob"]
#: Length of the per-call delimiter token.
TOKEN_HEX_DIGITS = 4

#: Inputs that are written by the case author and belong to the instructions, not the data.
TRUSTED_INPUTS: frozenset[str] = frozenset({"rubric"})

# Any opening or closing delimiter prefix, tolerant of case and of spaces an attacker might add
# to slip past an exact-match filter.
_DELIMITER_RE = re.compile(r"<<\s*(?:end\s*-\s*)?data\s*-", re.IGNORECASE)

#: The one jinja environment every prompt file is rendered in (templates, checklists, the
#: examples' layout): sandboxed even for the trusted files, strict about undefined names.
PROMPT_ENV = SandboxedEnvironment(
    undefined=StrictUndefined,
    autoescape=False,  # plain-text prompts, not HTML
    keep_trailing_newline=False,
    trim_blocks=True,
    lstrip_blocks=True,
)


def strip_delimiters(text: str) -> str:
    """Remove every delimiter-like prefix, repeatedly, since one removal can join a new one."""
    previous = None
    while previous != text:
        previous = text
        text = _DELIMITER_RE.sub("", text)
    return text


def serialise(value: Any) -> str:
    """Plain text for strings, indented JSON for everything else."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def new_token() -> str:
    """A fresh per-call delimiter token (`TOKEN_HEX_DIGITS` hex digits).

    Four digits, not more: every data block carries the token twice, and on a small local model
    each hex digit is about a token of prompt to evaluate (16 digits made the delimiters 40% of
    an argument_equivalence request; with 6 digits a block costs 20 tokens, with 4, 17).
    Unguessability is not what keeps data in its block: `strip_delimiters` removes every
    delimiter-like prefix from the data, whatever token it guesses; the token only tells the
    model which markers are this request's.
    """
    return secrets.token_hex(TOKEN_HEX_DIGITS // 2)


def markers(token: str) -> tuple[str, str]:
    """The opening and closing delimiters for `token`."""
    return f"<<DATA-{token}>>", f"<<END-DATA-{token}>>"


def wrap(value: Any, token: str) -> str:
    """One untrusted value, serialised, cleaned of delimiters and fenced with `token`."""
    opening, closing = markers(token)
    return f"{opening}\n{strip_delimiters(serialise(value))}\n{closing}"


@dataclass(frozen=True)
class RenderedPrompt:
    """The two parts of a rendered judge prompt, with the token and template hash used."""

    system: str
    user: str
    token: str
    template_hash: str

    def messages(self) -> list[dict[str, str]]:
        """Chat messages: the system part, then the user part."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user},
        ]


class EvidenceTemplate(Protocol):
    """What renders a request's prompt: a dimension's `PromptTemplate`, or one that lays solved
    examples before the item (`judging.examples`)."""

    @property
    def template_hash(self) -> str:
        """The hash verdicts rendered by it are stamped with."""
        ...

    def render(
        self, inputs: Mapping[str, Any], *, answer_mode: AnswerMode = "reasoned",
        token: str | None = None,
    ) -> RenderedPrompt:
        """Both parts of the prompt for `inputs` (see `PromptTemplate.render`)."""
        ...


class PromptTemplate:
    """One dimension's template, compiled once; `render` is thread-safe.

    `origin` (the file it was read from) names it in error messages.
    """

    def __init__(
        self, dimension: JudgeDimension, source: str, origin: str | Path | None = None
    ) -> None:
        self.dimension: JudgeDimension = dimension
        self.source = source
        self.origin = str(origin) if origin is not None else f"{dimension}.jinja"
        self.template_hash = hashlib.sha256(source.encode("utf-8")).hexdigest()
        try:
            self._template = PROMPT_ENV.from_string(source)
        except TemplateSyntaxError as exc:
            raise PromptError(f"{self.origin}:{exc.lineno}: {exc.message}") from exc
        except TemplateError as exc:
            raise PromptError(f"{self.origin}: {exc}") from exc
        missing = {"system", "user"} - set(self._template.blocks)
        if missing:
            raise PromptError(f"{self.origin}: missing block(s) {sorted(missing)}")

    def block_names(self) -> dict[str, frozenset[str]]:
        """The variables each block is rendered with (`system`: the delimiters, the answer mode
        and any trusted input; `user`: the judged inputs)."""
        inputs = set(JUDGE_INPUTS[self.dimension])
        return {
            "system": frozenset(
                {"data_open", "data_close", "answer_mode"} | (inputs & TRUSTED_INPUTS)
            ),
            "user": frozenset(inputs - TRUSTED_INPUTS),
        }

    def check_names(self) -> None:
        """Raise PromptError (file:line) when a block names a variable it is not rendered with.

        Rendering would fail on every request of the dimension; this finds it on loading, before
        any model call. Loop variables, `set` names and jinja's globals are not flagged.
        """
        tree = PROMPT_ENV.parse(self.source)
        given = self.block_names()
        for block in tree.find_all(nodes.Block):
            if block.name not in given:
                continue
            body = nodes.Template(block.body, lineno=block.lineno)
            body.set_environment(PROMPT_ENV)
            unknown = meta.find_undeclared_variables(body) - given[block.name]
            if not unknown:
                continue
            found = [n for n in block.find_all(nodes.Name) if n.name in unknown]
            first = min(found, key=lambda n: n.lineno) if found else None
            name = first.name if first is not None else sorted(unknown)[0]
            line = first.lineno if first is not None else block.lineno
            raise PromptError(
                f"{self.origin}:{line}: block {block.name}: '{name}' is not defined there "
                f"(it is rendered with {', '.join(sorted(given[block.name]))})"
            )

    def check_inputs(self, inputs: Mapping[str, Any]) -> None:
        """Raise PromptError unless `inputs` carries exactly the dimension's keys."""
        wanted = set(JUDGE_INPUTS[self.dimension])
        missing, extra = wanted - set(inputs), set(inputs) - wanted
        if missing or extra:
            raise PromptError(
                f"{self.dimension}: inputs must be {sorted(wanted)}; "
                f"missing {sorted(missing)}, unexpected {sorted(extra)}"
            )

    def render(
        self,
        inputs: Mapping[str, Any],
        *,
        answer_mode: AnswerMode = "reasoned",
        token: str | None = None,
    ) -> RenderedPrompt:
        """Render both parts; untrusted inputs go only into the user part, fenced by `token`."""
        self.check_inputs(inputs)
        token = token or new_token()
        opening, closing = markers(token)
        system_vars: dict[str, str | None] = {
            "data_open": opening,
            "data_close": closing,
            "answer_mode": answer_mode,
        }
        for name in TRUSTED_INPUTS & set(inputs):
            value = inputs[name]
            system_vars[name] = None if value is None else strip_delimiters(serialise(value))
        user_vars: dict[str, str | None] = {
            name: wrap(value, token) for name, value in inputs.items() if name not in TRUSTED_INPUTS
        }
        return RenderedPrompt(
            system=self._block("system", system_vars),
            user=self._block("user", user_vars),
            token=token,
            template_hash=self.template_hash,
        )

    def _block(self, name: str, variables: dict[str, str | None]) -> str:
        context = self._template.new_context(variables)
        try:
            return "".join(self._template.blocks[name](context)).strip() + "\n"
        except TemplateError as exc:
            line = self._template_line(exc)
            where = f"{self.origin}:{line}" if line is not None else self.origin
            raise PromptError(f"{where}: block {name}: {exc}") from exc

    def _template_line(self, exc: BaseException) -> int | None:
        """The template line a render error was raised at (the innermost template frame)."""
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<template>":
                line = self._template.get_corresponding_lineno(tb.tb_lineno)
            tb = tb.tb_next
        return line


def read_prompt_file(filename: str, directory: Path | None, what: str) -> tuple[bytes, str]:
    """The bytes of a prompt file (`directory`'s, else the one shipped in judge_prompts/) and
    where they came from; PromptError naming the file when it cannot be read as UTF-8."""
    location: Any = (directory / filename if directory is not None
                     else resources.files("toolgrade") / "judge_prompts" / filename)
    try:
        raw: bytes = location.read_bytes()
        raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptError(f"{location}: cannot read {what}: {exc}") from exc
    return raw, str(location)


def load_template(dimension: JudgeDimension, directory: Path | None = None) -> PromptTemplate:
    """The dimension's template from `directory`, else the one shipped in the package."""
    raw, origin = read_prompt_file(f"{dimension}.jinja", directory, "template")
    template = PromptTemplate(dimension, raw.decode("utf-8"), origin)
    template.check_names()
    return template


def load_templates(directory: Path | None = None) -> dict[JudgeDimension, PromptTemplate]:
    """All four dimensions' templates."""
    return {dim: load_template(dim, directory) for dim in JUDGE_DIMENSIONS}


log = logging.getLogger(__name__)

SECRET_ENV = "TOOLGRADE_DELIMITER_SECRET"
SECRET_FILE = "delimiter-secret"
_lock = threading.Lock()
_cached: bytes | None = None


def config_dir() -> Path:
    """`$TOOLGRADE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/toolgrade`, else `~/.config/toolgrade`."""
    explicit = os.environ.get("TOOLGRADE_CONFIG_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "toolgrade"


def _read_or_create(path: Path) -> bytes:
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(32)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(fresh + "\n")
    try:
        os.link(tmp, path)  # first writer wins; a concurrent one reads the winner's
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return bytes.fromhex(path.read_text(encoding="ascii").strip())


def installation_secret() -> bytes:
    """This installation's delimiter secret (see the module docstring)."""
    global _cached
    given = os.environ.get(SECRET_ENV)
    if given:
        return given.encode()
    with _lock:
        if _cached is None:
            try:
                _cached = _read_or_create(config_dir() / SECRET_FILE)
            except OSError as exc:
                log.warning("cannot keep the judge's delimiter secret in %s (%s); verdicts are "
                            "reproducible within this process only", config_dir(), exc)
                _cached = secrets.token_bytes(32)
        return _cached


def content_token(
    secret: bytes, template_hash: str, answer_mode: str, inputs: Mapping[str, Any]
) -> str:
    """The delimiter token of one request: the same request gives the same token."""
    message = canonical_json([template_hash, answer_mode, dict(inputs)]).encode()
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()
    return digest[:TOKEN_HEX_DIGITS]
