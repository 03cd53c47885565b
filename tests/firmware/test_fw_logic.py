"""The firmware's pure logic under CPython: every case of fw_cases.py as one pytest test."""

import fw_cases
import pytest

NAMES = [name for name, _ in fw_cases.all_cases()]


@pytest.mark.parametrize("name", NAMES)
def test_case(name: str) -> None:
    getattr(fw_cases, name)()


def test_there_are_cases() -> None:
    assert len(NAMES) >= 20
