"""`toolgrade compare`: a new grading against a base, paired by case, with statistics.

`read_grading` reads an output folder, `compare_gradings` builds the `Comparison` (compare.json)
and `write_comparison` writes compare.json, compare.md and compare.html (docs/compare.md).
"""
