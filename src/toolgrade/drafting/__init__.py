"""`toolgrade draft`: a suite drafted from recorded runs, every inferred line marked for review.

See docs/draft.md.
"""
