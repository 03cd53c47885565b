"""Simulator scripts: parsing, the options' script, and clear errors."""

from __future__ import annotations

import pytest

from companion.devices.errors import SimulatorScriptError
from companion.devices.tower_sim import Action, parse_script, script_from_options


def test_script_parses_every_verb() -> None:
    text = """
    # a round of El Grande
    rate 4
    drops 3 red
    drops 2          # unknown colour
    pulse 18000
    glitch 300
    wait 0.5
    corrupt 0.1
    lose 0.05
    garbage 0.02
    unplug 0.4
    reset
    """
    assert parse_script(text) == [
        Action("rate", 4),
        Action("drops", 3, "red"),
        Action("drops", 2),
        Action("pulse", 18000),
        Action("glitch", 300),
        Action("wait", 0.5),
        Action("corrupt", 0.1),
        Action("lose", 0.05),
        Action("garbage", 0.02),
        Action("unplug", 0.4),
        Action("reset"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("drops 3\nfly 2", "line 2: unknown command 'fly'"),
        ("drops", "line 1: usage is `drops N [COLOUR|random]`"),
        ("rate x", "line 1: 'x' is not a number"),
        ("corrupt 1.5", "line 1: 1.5 is out of range"),
        ("drops 2 purple", "colour 'purple' is not one of yellow, green, blue, red, black"),
        ("reset now", "usage is `reset`"),
        ("rate 0", "above 0"),
    ],
)
def test_bad_scripts_say_which_line_and_why(text: str, message: str) -> None:
    with pytest.raises(SimulatorScriptError) as info:
        parse_script(text, "s.txt")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_options_become_a_script_in_drop_order() -> None:
    script = script_from_options(10, 50, unplug_every=4, unplug_for=0.2, reset_after=[6])
    assert script == [
        Action("rate", 50),
        Action("drops", 4),
        Action("unplug", 0.2),
        Action("drops", 2),
        Action("reset"),
        Action("drops", 2),
        Action("unplug", 0.2),
        Action("drops", 2),
    ]
    assert sum(a.number for a in script if a.verb == "drops") == 10
