"""Units and calendar names that both the checks and the judges read, defined once.

Exact conversion factors (the international pound and mile), so a check and a judge signal
never disagree about what "23 kg" is in pounds; and the month names with the abbreviations
agents write ("Sept", "Jan").
"""

from __future__ import annotations

#: One international avoirdupois pound, in kilograms (exact by definition).
KG_PER_LB = 0.45359237
#: One international mile, in metres (exact by definition).
M_PER_MILE = 1609.344
#: One ounce, in kilograms.
KG_PER_OZ = KG_PER_LB / 16
LB_PER_KG = 1 / KG_PER_LB
KM_PER_MILE = M_PER_MILE / 1000

#: The months in order, each with the spellings agents use for it (lower case).
MONTH_SPELLINGS: tuple[tuple[str, ...], ...] = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
    ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
    ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"),
)
#: Spelling (lower case) -> month number (1-12).
MONTH_NUMBERS: dict[str, int] = {
    name: number for number, names in enumerate(MONTH_SPELLINGS, start=1) for name in names
}
#: The full month names, capitalised as written in prose.
MONTH_NAMES: tuple[str, ...] = tuple(names[0].capitalize() for names in MONTH_SPELLINGS)
