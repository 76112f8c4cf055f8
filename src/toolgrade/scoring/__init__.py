"""toolgrade.scoring."""
