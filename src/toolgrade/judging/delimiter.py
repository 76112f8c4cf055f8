"""Deterministic data delimiters: the token is derived from the content and a per-installation
secret, so the same request is rendered the same way on every call and a fresh cache
reproduces the same verdict.

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
import logging
import os
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolgrade.judging.cache import canonical_json
from toolgrade.judging.prompts import TOKEN_HEX_DIGITS

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
