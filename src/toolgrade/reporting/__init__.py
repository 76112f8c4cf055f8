"""toolgrade.reporting."""
