"""Replaying recorded examples (grader/suites/replay.py) must give exactly the engine's outcome and feedback.

Each test grades the same answers in two sessions, one that runs every property through hypothesis's
engine and one that replays the examples recorded from the first passing run, and compares every outcome
and message. The answers include stateful and flaky ones, and properties that use hypothesis's API in
their bodies (which only the engine can serve).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from grader.lessons import load_lesson
from grader.model import Lesson, TestOutcome
from grader.read import read_submission
from grader.selfcheck import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO, property_tests
from tests.fixtures.decode_mistakes import MISTAKES

SOLUTION = REPO / "solutions" / "decode.ipynb"
NOTEBOOK = REPO / "notebooks" / "decode.ipynb"

# Answers whose behaviour changes from call to call: the engine calls a failing example twice (once to
# find it, once to report it), a replay once, and both must still agree.
STATEFUL = {
    "decode_step_seconds": (
        "calls = []\n"
        "def decode_step_seconds(param_bytes, bandwidth):\n"
        "    calls.append(1)\n"
        "    return param_bytes / bandwidth if len(calls) % 7 else bandwidth / param_bytes"
    ),
    "generate": (
        "def generate(next_token, prompt, n):\n"
        "    if n > 6:\n"
        "        raise ValueError('too long')\n"
        "    seq = list(prompt)\n"
        "    for _ in range(n):\n"
        "        seq.append(next_token(seq))\n"
        "    return seq"
    ),
}

Namespaces = Callable[[], list[dict[str, object]]]


def notebook_namespace(tmp_path: Path, source: Path, replacements: dict[str, str]) -> dict[str, object]:
    """Execute a notebook in process, as the in-process floor does, with some answer cells replaced."""
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        if cell.get("id") in replacements:
            cell.source = replacements[cell["id"]]
    path = tmp_path / f"nb{len(list(tmp_path.iterdir()))}.ipynb"
    nbformat.write(nb, path)
    namespace: dict[str, object] = {"__name__": "__main__"}
    for cell in read_submission(path).cells:
        if not cell.skip:
            try:
                exec(compile(cell.source, str(path), "exec"), namespace)
            except Exception:  # noqa: BLE001 - a broken cell is part of the submission being graded
                pass
    return namespace


def both_ways(
    lesson: Lesson, namespaces: Namespaces
) -> tuple[list[tuple[TestOutcome, ...]], list[tuple[TestOutcome, ...]], int]:
    """Outcomes from the engine-only session and from the replaying one (fresh namespaces for each)."""
    with SuiteSession(lesson, replay=False) as engine:
        by_engine = [engine.run(NamespaceTarget(ns)) for ns in namespaces()]
    with SuiteSession(lesson) as replaying:
        by_replay = [replaying.run(NamespaceTarget(ns)) for ns in namespaces()]
        replayed = replaying.replayed
    return by_engine, by_replay, replayed


@pytest.mark.slow
def test_every_decode_answer_gets_the_engines_outcome_and_feedback(tmp_path: Path) -> None:
    def namespaces() -> list[dict[str, object]]:
        folder = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        cases = [{}]  # the solution first: its run records every property's examples
        cases += [{qid: source} for qid, (source, _) in sorted(MISTAKES.items())]
        cases += [{qid: source for qid, (source, _) in MISTAKES.items()}, STATEFUL, {}]
        spaces = [notebook_namespace(folder, SOLUTION, case) for case in cases]
        return spaces + [notebook_namespace(folder, NOTEBOOK, {})]

    by_engine, by_replay, replayed = both_ways(load_lesson("decode"), namespaces)
    assert len(by_engine) == len(MISTAKES) + 5
    for engine, replay in zip(by_engine, by_replay, strict=False):
        assert replay == engine
    assert any(o.status == "failed" for outcomes in by_engine for o in outcomes)
    given_tests = property_tests(REPO / "exercises" / "decode" / "suites")
    assert replayed == given_tests * (len(by_engine) - 1)  # every property of every later run, failures too


LESSON_EXTRA = """
import random

from hypothesis import assume, given, note, settings, strategies as st

from grader.testing import NO_SHRINK, expect_close, question


@question("square")
@settings(max_examples=10, phases=NO_SHRINK)
@given(x=st.integers(-20, 20))
def test_square_assumes_on_the_answer(learner, x):
    got = learner.call("square", x)
    assume(got != 0)  # which examples count depends on the learner: never replayed
    expect_close(got, x * x)


@question("square")
@settings(max_examples=5, phases=NO_SHRINK)
@given(data=st.data())
def test_square_draws_in_its_body(learner, data):
    x = data.draw(st.integers(0, 9))
    expect_close(learner.call("square", x), x * x)


@question("square")
@settings(max_examples=5, phases=NO_SHRINK)
@given(x=st.integers(0, 9))
def test_square_takes_notes(learner, x):
    note(f"x = {x}")  # only works inside the engine: a replay hands the run back to it
    expect_close(learner.call("square", x), x * x)


@question("square")
@settings(max_examples=5, phases=NO_SHRINK)
@given(x=st.integers(0, 9))
def test_square_of_a_seeded_draw(learner, x):
    y = random.randint(0, 100)  # the engine seeds random with 0 for each example; a replay must too
    expect_close(learner.call("square", x + y), (x + y) ** 2)
"""

SQUARES = {
    "right": "def square(x): return x * x",
    "doubles": "def square(x): return 2 * x",
    "zero at 0": "def square(x): return x * x if x else 1",
    "wrong at 49": "def square(x): return 0 if x == 49 else x * x",
    "wrong once": "n = []\ndef square(x):\n    n.append(x)\n    return x * x + (len(n) == 9)",
}


def test_properties_only_the_engine_can_judge_get_the_engines_outcome(tmp_path: Path) -> None:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "test_extra.py").write_text(LESSON_EXTRA)
    lesson = load_lesson("squares", root)

    def namespaces() -> list[dict[str, object]]:
        spaces = []
        for name in ["right", *SQUARES, "right"]:
            ns: dict[str, object] = {}
            exec(SQUARES[name], ns)
            spaces.append(ns)
        return spaces

    by_engine, by_replay, replayed = both_ways(lesson, namespaces)
    for engine, replay in zip(by_engine, by_replay, strict=False):
        assert replay == engine
    failed = {o.name for outcomes in by_engine for o in outcomes if o.status == "failed"}
    assert {"test_square_many", "test_square_of_a_seeded_draw", "test_square_assumes_on_the_answer"} <= failed
    # Replayed: test_square_many (passes only: it shrinks), test_square_of_a_seeded_draw (passes and
    # failures). Never: the assuming, drawing and noting properties.
    assert replayed >= len(SQUARES) + 1  # at least the seeded-draw property, in every run after the first


ASSUMES_ONLY = """
from hypothesis import assume, given, settings, strategies as st

from grader.testing import NO_SHRINK, expect_close, question


@question("square")
@settings(max_examples=5, phases=NO_SHRINK)
@given(x=st.integers(0, 9))
def test_square_assumes_what_always_holds(learner, x):
    assume(x >= 0)
    expect_close(learner.call("square", x), x * x)
"""


def test_a_body_that_calls_assume_is_handed_to_the_engine_not_replayed(tmp_path: Path) -> None:
    """Called outside the engine, ``assume`` only warned that this is deprecated, and the replay went on; its first
    call is now the sign that the body needs the engine (the warning is gone)."""
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    for path in (root / "squares" / "suites").glob("test_*.py"):
        path.unlink()
    (root / "squares" / "suites" / "test_assumes.py").write_text(ASSUMES_ONLY)

    def namespaces() -> list[dict[str, object]]:
        return [{"square": lambda x: x * x}, {"square": lambda x: x * x}]

    by_engine, by_replay, replayed = both_ways(load_lesson("squares", root), namespaces)
    assert by_replay == by_engine
    assert replayed == 0


@pytest.mark.parametrize("replay", [False, True])
def test_a_session_without_a_passing_run_never_replays(replay: bool) -> None:
    with SuiteSession(load_lesson("squares", FIXTURE_LESSONS), replay=replay) as session:
        for _ in range(3):
            ns: dict[str, object] = {}
            exec(SQUARES["doubles"], ns)
            session.run(NamespaceTarget(ns))
        assert session.replayed == 0


def test_two_sessions_of_one_lesson_record_and_replay_apart() -> None:
    """Both sessions share the suite module's test functions (pytest imports it once per process); each
    must record its own runs, even while the other runs the same tests in its own thread."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)

    def learner(name: str) -> NamespaceTarget:
        ns: dict[str, object] = {}
        exec(SQUARES[name], ns)
        return NamespaceTarget(ns)

    with SuiteSession(lesson, replay=False) as engine:
        expected = [engine.run(learner(name)) for name in SQUARES]
    with SuiteSession(lesson) as first, SuiteSession(lesson) as second:
        with ThreadPoolExecutor(2) as pool:
            runs = [
                pool.submit(lambda s=s: [s.run(learner(name)) for name in ["right", *SQUARES]]) for s in (first, second)
            ]
            results = [run.result() for run in runs]
        assert first.replayed > 0 and second.replayed > 0
    for outcomes in results:
        assert outcomes[1:] == expected


def test_a_propertys_draws_do_not_depend_on_the_modules_the_process_imported(tmp_path: Path) -> None:
    """The examples recorded in the grading process are the ones a learner's kernel draws (self-check, nbgrader's
    cells), though each imported other modules: hypothesis must not draw the literals of the process's own
    modules (since 6.131 it does, 5% of draws, from every module outside the standard library and site-packages).
    Seen: Decode's ``test_order_generated`` drew other prompts in a kernel, so 4 wrong answers scored otherwise."""
    import importlib.util
    import sys

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from grader.suites.session import _load_hypothesis_profile

    _load_hypothesis_profile()  # what every session does first
    seen: list[int] = []

    @settings(derandomize=True, database=None, deadline=None, max_examples=200)
    @given(st.integers(0, 10**9))
    def draws(x: int) -> None:
        seen.append(x)

    draws()
    before, seen[:] = list(seen), []
    literals = tmp_path / "many_literals.py"  # a local module, as a learner's helper or the grader's checkout is
    literals.write_text("VALUES = [" + ", ".join(str(7_000_001 + 13 * i) for i in range(500)) + "]\n")
    spec = importlib.util.spec_from_file_location("many_literals", literals)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["many_literals"] = module
    try:
        spec.loader.exec_module(module)
        draws()
    finally:
        del sys.modules["many_literals"]
    assert seen == before
