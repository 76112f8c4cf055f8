"""toolgrade.cli."""
