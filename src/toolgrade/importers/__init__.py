"""toolgrade.importers."""
