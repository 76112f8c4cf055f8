"""Configuration: `--config FILE`, else `toolgrade.toml`, else `[tool.toolgrade]` in pyproject.toml.

CLI options override the file. Bad configuration raises `ConfigError` (exit 2).
"""

from __future__ import annotations

import tomllib
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from toolgrade.errors import ConfigError, NotUtf8Error, read_utf8
from toolgrade.jsonio.bounds import long_integer_reason
from toolgrade.models import Combination, JudgeDimension
from toolgrade.settings.cache import CacheSettings

#: How a served model is asked a checklist: all questions in one request, or one per request.
ChecklistRequests: TypeAlias = Literal["batch", "per_question"]


class _Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DimensionSettings(_Settings):
    """Per-dimension overrides of the judge settings."""

    enabled: StrictBool | None = Field(
        default=None,
        description="False: this dimension is not judged; its judge-only fields stay unscored.",
    )
    model: str | None = None
    mode: Literal["reasoned", "logprob"] | None = None
    checklist: StrictBool | None = Field(
        default=None,
        description="Logprob mode: answer the dimension's checklist of yes/no questions "
        "(judge_prompts/<dimension>.checklist.yaml) instead of the single question.",
    )
    checklist_requests: ChecklistRequests | None = Field(
        default=None, description="How a served model is asked this dimension's checklist "
        "(see [judge] checklist_requests).")
    threshold: StrictFloat | None = Field(default=None, ge=0.0, le=1.0)
    kappa_floor: StrictFloat | None = Field(default=None, ge=-1.0, le=1.0)
    escalate_to: str | None = Field(
        default=None, description="This dimension's escalation judge (see [judge] escalate_to).")
    combination: Combination | None = Field(
        default=None,
        description="Logprob mode: combine P(pass) with the dimension's deterministic signals "
        "(weights as `toolgrade calibrate --fit` stores them in the record; `threshold` is "
        "then the cut on the combined P(pass)).",
    )
    band: tuple[StrictFloat, StrictFloat] | None = Field(
        default=None,
        description="Logprob mode: the abstention band [low, high] on the final P(pass); a "
        "verdict inside it is unscored, reason uncertain (default: the calibration record's).",
    )
    target_kappa: StrictFloat | None = Field(
        default=None, ge=-1.0, le=1.0,
        description="The decided-items kappa the band is fitted to (`calibrate --fit`) and "
        "picked at from the record's levels (`run`); default 0.8.",
    )
    examples: StrictInt | None = Field(
        default=None, ge=0,
        description="This dimension's nearest labelled examples per item (see [judge] examples).")
    examples_from: list[Path] | None = Field(
        default=None,
        description="This dimension's extra labelled sets for examples (see [judge] "
        "examples_from; replaces the [judge] list).")

    @field_validator("band")
    @classmethod
    def _ordered_band(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        if value is not None and not 0.0 <= value[0] <= value[1] <= 1.0:
            raise ValueError("band is [low, high] with 0 <= low <= high <= 1")
        return value

    @field_validator("examples_from")
    @classmethod
    def _expand_homes(cls, value: list[Path] | None) -> list[Path] | None:
        # Settings files say "~/labels/..."; Path does not expand "~" by itself.
        return [path.expanduser() for path in value] if value is not None else None


class JudgeSettings(_Settings):
    """How LLM judges are built. `model=None` means the embedded local model when installed."""

    enabled: StrictBool = True
    model: str | None = None
    api_base: str | None = Field(
        default=None,
        description="The base URL of the server every model of this judge is served from (an "
        "OpenAI-compatible vLLM, Ollama or TGI server: http://host:8000/v1); unset: the "
        "provider's own endpoint. The escalation judge does not inherit it.",
    )
    api_key_env: str | None = Field(
        default=None,
        description="The environment variable holding the served model's API key (never the "
        "key itself in a settings file); unset: the provider's own variable.",
    )
    mode: Literal["reasoned", "logprob"] = "reasoned"
    checklist: StrictBool = Field(
        default=False,
        description="Logprob mode: answer each dimension's checklist of yes/no questions instead "
        "of the single question (usually set per dimension).",
    )
    checklist_requests: ChecklistRequests = Field(
        default="batch",
        description="Checklist mode, served models: \"batch\" asks every question of an item in "
        "one request per order (a JSON object of booleans, P(yes) from their log-probabilities; "
        "questions it leaves unread are asked alone); \"per_question\": one request per "
        "question. The local model is always asked one question per request.",
    )
    threshold: StrictFloat = Field(
        default=0.5, ge=0.0, le=1.0, description="P(pass) cut in logprob mode."
    )
    temperature: StrictFloat = Field(default=0.0, ge=0.0)
    max_tokens: StrictInt = Field(default=512, ge=1)
    timeout_s: StrictFloat = Field(default=60.0, gt=0.0, allow_inf_nan=False)
    max_in_flight: StrictInt | None = Field(
        default=None,
        ge=1,
        description="Requests to the judge's server in flight at once, per process, across "
        "every judge engine of the process (N processes: up to N times this); unset: only "
        "`concurrency` bounds each engine.",
    )
    requests_per_minute: StrictInt | None = Field(
        default=None, ge=1, description="Requests started in any 60 s, per process; unset: no cap."
    )
    max_retry_after_s: StrictFloat = Field(
        default=60.0,
        ge=0.0,
        allow_inf_nan=False,
        description="The longest a server's Retry-After (429, 503) is waited before a retry.",
    )
    max_attempts: StrictInt = Field(default=4, ge=1)
    concurrency: StrictInt = Field(default=4, ge=1)
    use_cache: StrictBool = True
    cache_dir: Path | None = None
    # Written as the top-level [cache] table; carried here so every engine built from judge
    # settings (escalation, calibration, worker processes) reaches the same store.
    cache: CacheSettings = Field(default_factory=CacheSettings)
    kappa_floor: StrictFloat | None = Field(
        default=None, ge=-1.0, le=1.0, description="Refuse a judge whose kappa CI low is below."
    )
    calibration_dir: Path | None = Field(
        default=None, description="Where calibration records are looked up for `run`."
    )
    require_calibration: StrictBool | None = Field(
        default=None,
        description="A judge that decides outcomes (judge_alternates, judge_quality) needs a "
        "calibration record over its kappa floor. Unset: one under it does not decide (the "
        "items it would decide are unscored, awaiting adjudication); true: such a run is "
        "refused (exit 2); false: it decides uncalibrated (warned).",
    )
    escalate_to: str | None = Field(
        default=None,
        description="Any litellm model: items the judge leaves unscored (uncertain, awaiting "
        "adjudication, a failed call...) are asked of it before they are left for people.",
    )
    dimensions: dict[JudgeDimension, DimensionSettings] = Field(default_factory=dict)
    combination: Combination | None = Field(
        default=None, description="Set per dimension only: [judge.dimensions.D] combination."
    )
    band: tuple[float, float] | None = Field(
        default=None, description="Set per dimension only: [judge.dimensions.D] band."
    )
    target_kappa: StrictFloat | None = Field(
        default=None, ge=-1.0, le=1.0,
        description="The decided-items kappa every dimension's band is fitted to and picked "
        "at (a dimension's own `target_kappa` wins); default 0.8.",
    )
    examples: StrictInt = Field(
        default=0, ge=0,
        description="Nearest labelled examples: the K items of the dimension's labelled sets "
        "most like the judged one (BM25), shown as solved examples before it; 0: none.",
    )
    examples_from: list[Path] = Field(
        default_factory=list,
        description="Labelled JSONL sets the examples are drawn from beside the shipped set "
        "(e.g. `toolgrade adjudicate --export-set` files; relative to the working directory).",
    )

    @field_validator("combination")
    @classmethod
    def _per_dimension_only(cls, value: Combination | None) -> Combination | None:
        # Each dimension has its own signals: one set of weights cannot serve all four.
        if value is not None:
            raise ValueError("set a combination per dimension: [judge.dimensions.D] combination")
        return value

    @field_validator("band")
    @classmethod
    def _band_per_dimension_only(
        cls, value: tuple[float, float] | None
    ) -> tuple[float, float] | None:
        # A band is fitted on one dimension's P(pass): it means nothing on another's.
        if value is not None:
            raise ValueError("set a band per dimension: [judge.dimensions.D] band")
        return value

    @field_validator("cache_dir", "calibration_dir")
    @classmethod
    def _expand_home(cls, value: Path | None) -> Path | None:
        # Settings files say "~/.cache/..."; Path does not expand "~" by itself.
        return value.expanduser() if value is not None else None

    @field_validator("examples_from")
    @classmethod
    def _expand_homes(cls, value: list[Path]) -> list[Path]:
        return [path.expanduser() for path in value]

    @property
    def asks_checklist(self) -> bool:
        """True when the checklist is asked: set, and in logprob mode (the reasoned judge
        writes its own reason instead)."""
        return self.checklist and self.mode == "logprob"

    def for_dimension(self, dimension: JudgeDimension) -> JudgeSettings:
        """These settings with the dimension's overrides applied."""
        override = self.dimensions.get(dimension)
        if override is None:
            return self
        # Attributes, not model_dump(): a nested model (combination) must stay a model.
        changes = {
            k: v for k in type(override).model_fields if (v := getattr(override, k)) is not None
        }
        return self.model_copy(update=changes)


class Settings(_Settings):
    """Everything `toolgrade run` can be configured with."""

    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    # Strict: TOML `true` or "0.9" is a mistake to report, not a minimum of 1 or 0.9.
    gates: dict[str, StrictFloat] = Field(
        default_factory=dict, description="Minimums on summary figures, e.g. 'selection.f1' = 0.9."
    )
    progress: StrictBool = True
    source: str | None = Field(default=None, description="The file the settings came from.")

    @model_validator(mode="before")
    @classmethod
    def _cache_rides_with_the_judge(cls, data: Any) -> Any:
        # The file's top-level [cache] table becomes judge.cache (see JudgeSettings.cache).
        if not isinstance(data, dict) or "cache" not in data:
            return data
        data = dict(data)
        cache = data.pop("cache")
        judge = data.get("judge", {})
        if not isinstance(judge, dict) or "cache" in judge:
            raise ValueError("set the cache once, in the [cache] table")
        data["judge"] = {**judge, "cache": cache}
        return data

    @property
    def cache(self) -> CacheSettings:
        """The `[cache]` table (kept in `judge.cache`)."""
        return self.judge.cache


#: A value as `tomllib` reads it: TOML has dates and times beside JSON's types.
TomlValue: TypeAlias = (
    "str | int | float | bool | datetime | date | time | list[TomlValue] | dict[str, TomlValue]"
)
#: A TOML table (a whole file, or one of its tables).
TomlTable: TypeAlias = dict[str, TomlValue]


def _read_toml(path: Path) -> TomlTable:
    try:
        return tomllib.loads(read_utf8(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    except NotUtf8Error as exc:
        raise ConfigError(f"{path}:{exc.line}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's digit limit, as for JSON inputs
        raise ConfigError(f"{path}: invalid TOML: {long_integer_reason(read_utf8(path))}"
                          ) from exc


#: The table toolgrade reads in a pyproject.toml; error messages name fields below it.
PYPROJECT_TABLE = "tool.toolgrade"


def _toolgrade_table(data: TomlTable) -> TomlTable | None:
    """A pyproject.toml's `[tool.toolgrade]` table; None when it has none (also when `tool`
    is not a table at all)."""
    tool = data.get("tool")
    table = tool.get("toolgrade") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def find_config(
    explicit: Path | None, cwd: Path | None = None
) -> tuple[Path | None, TomlTable]:
    """The configuration file and its toolgrade table, by the documented precedence."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: configuration file not found")
        data = _read_toml(explicit)
        if explicit.name != "pyproject.toml":
            return explicit, data
        table = _toolgrade_table(data)
        if table is None:
            raise ConfigError(f"{explicit}: no [{PYPROJECT_TABLE}] table in it")
        return explicit, table
    base = cwd or Path.cwd()
    own = base / "toolgrade.toml"
    if own.is_file():
        return own, _read_toml(own)
    pyproject = base / "pyproject.toml"
    if pyproject.is_file():
        table = _toolgrade_table(_read_toml(pyproject))
        if table is not None:
            return pyproject, table
    return None, {}


def _field_name(loc: tuple[int | str, ...]) -> str:
    """A validation error's location as the file spells it ([cache] lives in judge.cache)."""
    if loc[:2] == ("judge", "cache"):
        loc = loc[1:]
    return ".".join(str(part) for part in loc)


def load_settings(explicit: Path | None = None, cwd: Path | None = None) -> Settings:
    """Load and validate settings; errors name the file and the key."""
    path, table = find_config(explicit, cwd)
    try:
        settings = Settings.model_validate({**table, "source": str(path) if path else None})
    except ValidationError as exc:
        where = str(path) if path else "settings"
        # In a pyproject.toml the fields sit under [tool.toolgrade]: name them as written there.
        prefix = f"{PYPROJECT_TABLE}." if path is not None and path.name == "pyproject.toml" else ""
        problems = "; ".join(
            f"{prefix}{_field_name(err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"{where}: {problems}") from exc
    return settings
