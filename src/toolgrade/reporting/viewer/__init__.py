"""`toolgrade view DIR`: a local web viewer over an output folder's results and transcripts.

`index` reads results.jsonl once into small rows with byte offsets, `query` filters, searches
and pages them, `pages` renders the list and run views, `server` serves them on loopback.
"""
