"""toolgrade.calibration."""
