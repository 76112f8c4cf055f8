"""A small seeded corpus of mutated suites and run files of every accepted format, through
`validate` and `run`: each ends in exit 0, 1 or 2, with no traceback, within a deadline and an
address-space cap (benchmarks/fuzz_inputs.py runs 500 and more and prints the figures)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from script_modules import load_script

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    return load_script(BENCH / "fuzz_inputs.py", "bench_fuzz_inputs")


def test_the_corpus_is_seeded_and_covers_every_format(fuzz: ModuleType) -> None:
    first, again = fuzz.corpus(2, seed=7), fuzz.corpus(2, seed=7)
    assert [i.data for i in first] == [i.data for i in again]
    assert {i.fmt for i in first} == {fmt for fmt, _, _ in fuzz.FORMATS}


def test_every_seed_is_valid_input(fuzz: ModuleType, tmp_path: Path) -> None:
    """Mutations start from good input, so they explore near it, not only the first byte."""
    for fmt, role, name in fuzz.FORMATS:
        item = fuzz.FuzzInput(fmt, role, name, "none", fuzz.seeds_cache()[fmt])
        folder = tmp_path / fmt
        folder.mkdir()
        code, text, trace = fuzz.invoke(fuzz.arguments(item, folder, "validate"))
        assert (code, trace) == (0, None), text


@pytest.mark.parametrize("n", range(14))
def test_mutated_input_ends_in_0_1_or_2_without_a_traceback(
    fuzz: ModuleType, tmp_path: Path, n: int
) -> None:
    item = fuzz.corpus(2, seed=0)[n]
    for command in ("validate", "run"):
        folder = tmp_path / command
        folder.mkdir()
        outcome = fuzz.run_forked(fuzz.arguments(item, folder, command), folder)
        label = f"{item.fmt} {item.mutation} {command}"
        assert outcome.code in (0, 1, 2), f"{label}: {outcome.first_line}"  # None: a hang
        assert outcome.traceback is None, f"{label}:\n{outcome.traceback}"
        assert not outcome.wrote_on_bad_input, label
