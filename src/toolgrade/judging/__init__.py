"""toolgrade.judging."""
