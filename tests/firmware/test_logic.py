"""The firmware's pure logic under CPython: every case of fw_cases.py as one pytest test."""

from collections.abc import Callable

import fw_cases
import pytest


@pytest.mark.parametrize(("name", "case"), fw_cases.all_cases(), ids=lambda v: str(v))
def test_case(name: str, case: Callable[[], None]) -> None:
    case()


def test_there_are_cases() -> None:
    assert len(fw_cases.all_cases()) >= 20
