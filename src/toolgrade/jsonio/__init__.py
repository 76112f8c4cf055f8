"""Reading and writing JSON and JSON Lines, the one way toolgrade does it.

- `lines`: JSON Lines reading that reports each malformed line (file, line, column) instead of
  stopping at the first, refuses what no output could write, and refuses a key written twice
  where asked (`unique_keys`);
- `keys`: the duplicate-key refusal itself (Python's `json` keeps the last value silently);
- `out`: JSON text for outputs, always valid whatever floats a run held;
- `values`: the names of arbitrary JSON values (`JsonValue`, `JsonObject`);
- `leaves`: one walker over nested JSON values (paths, keys, scalars), decoding JSON held in
  strings on request, so the injection screen, the judge signals and grounding read the same
  text.
"""
