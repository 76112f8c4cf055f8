"""MCP at the protocol: a server's catalogue from `tools/list`, and sessions recorded as runs.

`catalogue.fetch_catalogue` connects with the official SDK (the `mcp` extra, imported only
there); `proxy.run_proxy` forwards an agent's stdio traffic to a server unchanged and writes
the session's calls as a run. docs/mcp.md describes both.
"""
