"""The Decode suites' generated check of ``call_order_is_sequential`` draws every wrong ``generate`` its conftest
defines, and each of them is wrong.

Whether the suites catch wrong answers and keep right ones in other styles is the lesson's mistakes corpus
(``exercises/decode/mistakes/``, one file per answer), graded for every lesson by ``tests/test_lesson_gates.py``.
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any

from tests.conftest import REPO


def _decode_conftest() -> Any:
    path = REPO / "exercises" / "decode" / "suites" / "conftest.py"
    spec = importlib.util.spec_from_file_location("decode_conftest_for_tests", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_wrong_generate_is_drawn_by_the_generated_check() -> None:
    """The generated call_order check samples every wrong generate the conftest defines, and each of them
    differs from the sequential order for some n in 0..6 (so it is a wrong answer, not a right one renamed)."""
    conftest = _decode_conftest()
    source = (REPO / "exercises" / "decode" / "suites" / "test_generate.py").read_text()
    names = set(conftest.wrong_generates())
    listed = set(re.findall(r'"(\w+)"', source.split("WRONG_GENERATES = (")[1].split(")")[0]))
    assert listed == names
    for name, stand_in in conftest.wrong_generates().items():
        assert any(not conftest.expected_verdict(stand_in, p, n) for p in range(4) for n in range(7)), name
