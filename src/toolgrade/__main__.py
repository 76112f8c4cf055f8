"""`python -m toolgrade`."""

from toolgrade.cli.main import main

main()
