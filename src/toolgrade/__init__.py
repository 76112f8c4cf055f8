"""toolgrade."""
