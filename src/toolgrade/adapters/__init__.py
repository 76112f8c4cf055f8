"""toolgrade.adapters."""
