"""`toolgrade mcp catalogue`: a server's tools, listed through the official MCP SDK.

The SDK is imported here only, when a catalogue is fetched: `toolgrade --help` and every other
command start without it, and without the `mcp` extra installed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolgrade.errors import ToolgradeError
from toolgrade.models.catalogue import catalogue_document

if TYPE_CHECKING:
    from mcp import Client

#: How long to wait for the server to answer, unless the caller says.
DEFAULT_TIMEOUT_S = 30.0


class McpServerError(ToolgradeError):
    """The server could not be reached, did not answer in time, or answered wrongly."""


def fetch_catalogue(
    command: Sequence[str] | None, url: str | None, timeout: float = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """The catalogue document of the server started by `command` (stdio) or at `url`
    (streamable HTTP): `initialize`, then `tools/list` page by page."""
    try:
        import anyio
    except ImportError as exc:  # pragma: no cover - anyio comes with the SDK
        raise McpServerError(_NO_SDK) from exc
    where = url or " ".join(command or [])
    try:
        return anyio.run(_fetch, command, url, timeout)
    except TimeoutError as exc:
        raise McpServerError(
            f"the MCP server ({where}) did not answer initialize and tools/list within "
            f"{timeout:g} s"
        ) from exc
    except McpServerError:
        raise
    except Exception as exc:
        raise McpServerError(f"the MCP server ({where}) failed: {_reason(exc)}") from exc


_NO_SDK = "the MCP SDK is not installed: pip install 'toolgrade[mcp]'"


def _client(command: Sequence[str] | None, url: str | None, timeout: float) -> Client:
    try:
        from mcp import Client, StdioServerParameters, stdio_client
    except ImportError as exc:
        raise McpServerError(_NO_SDK) from exc
    if url:
        return Client(url, mode="legacy", read_timeout_seconds=timeout)
    if not command:
        raise McpServerError("give the server's command after `--`, or --url")
    server = StdioServerParameters(command=command[0], args=list(command[1:]))
    # The server's own stderr goes to the terminal's (a captured sys.stderr has no file).
    transport = stdio_client(server, errlog=sys.__stderr__ or sys.stderr)
    return Client(transport, mode="legacy", read_timeout_seconds=timeout)


async def _fetch(command: Sequence[str] | None, url: str | None, timeout: float
                 ) -> dict[str, Any]:
    import anyio

    client = _client(command, url, timeout)
    with anyio.fail_after(timeout):
        async with client:
            info = client.server_info
            tools: list[dict[str, Any]] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
                tools += [t.model_dump(by_alias=True, exclude_none=True, mode="json")
                          for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
    name = info.name if info is not None else None
    version = info.version if info is not None else None
    return catalogue_document(tools, name, version)


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap the real one)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())
