"""Examples kept on disk between processes (replay.py's ``export``/``load``, SuiteSession's ``examples`` file).

A session given an ``examples`` file records every property's examples once, by running the reference
solution, and later sessions replay from their first notebook on. The outcome and feedback must still be the
engine's, for passing and failing answers, and a file made under another hypothesis or Python, or broken, is
never used.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.selfcheck import NamespaceTarget
from grader.suites.replay import ExampleReplay, _decode, _encode, _plain
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO, property_tests
from tests.fixtures.decode_mistakes import MISTAKES
from tests.test_replay import LESSON_EXTRA, SQUARES, notebook_namespace


def squares_with_extras(tmp_path: Path) -> Lesson:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "test_extra.py").write_text(LESSON_EXTRA)
    return load_lesson("squares", root)


def squares_namespaces() -> list[dict[str, object]]:
    spaces = []
    for name in SQUARES:
        ns: dict[str, object] = {}
        exec(SQUARES[name], ns)
        spaces.append(ns)
    return spaces


@pytest.mark.slow  # about 2 s: three suite sessions
def test_kept_examples_give_the_engines_outcome_from_the_first_notebook(tmp_path: Path) -> None:
    lesson = squares_with_extras(tmp_path)
    kept = tmp_path / "cache" / "examples.json"
    with SuiteSession(lesson, replay=False) as engine:
        expected = [engine.run(NamespaceTarget(ns)) for ns in squares_namespaces()]
    with SuiteSession(lesson, examples=kept):  # records them from the reference, and writes the file
        pass
    stamp = json.loads(kept.read_text())["stamp"]
    assert stamp["format"] == 2 and set(stamp) == {"format", "hypothesis", "python"}
    with SuiteSession(lesson, examples=kept) as loaded:
        got = [loaded.run(NamespaceTarget(ns)) for ns in squares_namespaces()]
        replayed = loaded.replayed
    assert got == expected
    assert any(o.status == "failed" for outcomes in expected for o in outcomes)
    # The seeded-draw property and test_square_many's passes replay from the first notebook on. A property
    # drawing in its body is never kept; one that assumes or notes is kept if the reference's run did not
    # need the engine, and a replay hands it back to the engine when it does (as replay.py does in memory).
    assert replayed >= len(SQUARES)
    names = set(json.loads(kept.read_text())["examples"])
    assert "test_extra.py::test_square_of_a_seeded_draw" in names
    assert not {n for n in names if "draws_in_its_body" in n}


def test_a_file_from_elsewhere_or_broken_is_not_used_and_is_made_again(tmp_path: Path) -> None:
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    kept = tmp_path / "examples.json"
    bogus = {"test_squares.py::test_square_many": [{"d": {"x": 1e300}}]}  # what a real run would not draw
    for text in (
        json.dumps({"stamp": {"format": 1, "hypothesis": "0.0.1", "python": [3, 0]}, "examples": bogus}),
        "{not json",
        json.dumps(["a", "list"]),
    ):
        kept.write_text(text)
        with SuiteSession(lesson, examples=kept) as session:
            ns: dict[str, object] = {}
            exec(SQUARES["right"], ns)
            statuses = {o.name: o.status for o in session.run(NamespaceTarget(ns))}
            assert statuses["test_square_many"] == "passed"
        made = json.loads(kept.read_text())
        assert made["stamp"]["hypothesis"] != "0.0.1" and made["examples"] and made["examples"] != bogus


def test_without_replay_nothing_is_kept(tmp_path: Path) -> None:
    kept = tmp_path / "examples.json"
    with SuiteSession(load_lesson("squares", FIXTURE_LESSONS), replay=False, examples=kept):
        pass
    assert not kept.exists()


@pytest.mark.parametrize(
    "value",
    [
        {"prompt": [1, 2], "n": 0},
        {"t": (1, 2.5, "x", None, True), "d": {"nested": [(), {}, [[]]]}},
        {"f": -0.0, "big": 10**30, "tiny": 5e-324, "neg": -7},
    ],
)
def test_plain_examples_come_back_with_their_types(value: dict[str, object]) -> None:
    assert _plain(value)
    back = _decode(json.loads(json.dumps(_encode(value))))
    assert back == value and repr(back) == repr(value)  # repr: a tuple stays a tuple, True stays True, -0.0


def test_a_nan_comes_back_as_a_nan() -> None:
    back = _decode(json.loads(json.dumps(_encode({"x": math.nan}))))
    assert math.isnan(back["x"])


@pytest.mark.parametrize("value", [{"s": {1, 2}}, {"b": b"x"}, {"k": {1: "int key"}}, {"o": object()}])
def test_other_values_are_not_kept(value: dict[str, object]) -> None:
    assert not _plain(value)
    replay = ExampleReplay()
    replay._examples["t.py::test_x"] = (value,)
    replay._examples["t.py::test_y"] = ({"x": 1},)
    assert set(replay.export()) == {"t.py::test_y"}


def test_what_was_never_recorded_by_this_session_is_not_loaded() -> None:
    replay = ExampleReplay()
    assert replay.load({"t.py::test_unknown": [{"d": {"x": 1}}]}) == 0  # no such test installed
    assert ExampleReplay(enabled=False).load({"t.py::test_unknown": [{"d": {"x": 1}}]}) == 0


@pytest.mark.slow
def test_decode_answers_get_the_engines_outcome_from_kept_examples(tmp_path: Path) -> None:
    lesson = load_lesson("decode")
    kept = tmp_path / "examples.json"
    chosen = sorted(MISTAKES.items())[::6]

    def namespaces() -> list[dict[str, object]]:
        folder = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
        folder.mkdir()
        cases = [{qid: source} for qid, (source, _) in chosen] + [{}]
        return [notebook_namespace(folder, REPO / "solutions" / "decode.ipynb", c) for c in cases] + [
            notebook_namespace(folder, REPO / "notebooks" / "decode.ipynb", {})
        ]

    with SuiteSession(lesson, replay=False) as engine:
        expected = [engine.run(NamespaceTarget(ns)) for ns in namespaces()]
    with SuiteSession(lesson, examples=kept):
        pass
    with SuiteSession(lesson, examples=kept) as loaded:
        got = [loaded.run(NamespaceTarget(ns)) for ns in namespaces()]
        replayed = loaded.replayed
    assert got == expected
    given_tests = property_tests(REPO / "exercises" / "decode" / "suites")
    assert replayed == given_tests * len(expected)  # every property of every notebook, the first and failures too


@pytest.mark.slow  # about 2.5 s: builds a bundle and grades Decode's solution in a process
def test_the_gradescope_image_records_the_examples_once(tmp_path: Path) -> None:
    """setup.sh grades the solution once while the image is built, so every submission replays from the start."""
    import os
    import subprocess
    import sys
    import zipfile

    from grader.integrations.gradescope_bundle import build_bundle

    source = tmp_path / "source"
    build_bundle(load_lesson("decode"), tmp_path / "bundle.zip")
    with zipfile.ZipFile(tmp_path / "bundle.zip") as zf:
        zf.extractall(source)
        setup = zf.read("setup.sh").decode()
    recording = setup[setup.index("export GRADER_LESSONS") : setup.index("# The learner's worker")]  # not the closing
    recording = recording.replace('"$VENV/bin/python"', sys.executable)
    assert sys.executable in recording  # the line that records the examples, run with this Python
    cache = tmp_path / "cache"
    env = {**os.environ, "GRADER_CACHE_DIR": str(cache)}
    subprocess.run(["bash", "-c", f"set -e\n{recording}"], cwd=source, env=env, check=True, timeout=300)
    (kept,) = (cache / "examples").glob("decode-*.json")
    assert len(json.loads(kept.read_text())["examples"]) == property_tests(REPO / "exercises" / "decode" / "suites")
