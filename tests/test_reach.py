"""Which stand-ins a call sends (grader/reach.py): only those the learner's function can reach, read from its code,
with every outcome and message what sending them all gives; everything when the code cannot be followed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.variants import variant_notebook
from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, SKIP_TAG, lessons_root
from grader.execute.runner import Workers
from grader.execute.target import WorkerTarget
from grader.execute.worker import LearnerProcess
from grader.lessons import available_lessons, load_lesson
from grader.model import Lesson, Report
from grader.pipeline import grade_submission, lent_solution
from grader.reach import reach_of
from grader.read import read_submission
from grader.suites.namespace import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.lesson_support import corpus_entries, notebook

ROOT = lessons_root()

CELLS = [
    "import math\n"
    "def step(param_bytes, bandwidth):\n    return param_bytes / bandwidth\n"
    "def total(n_tokens, param_bytes, bandwidth):\n"
    "    t = 0\n    for _ in range(n_tokens):\n        t += step(param_bytes, bandwidth)\n    return t\n"
    "def alone(step_count, bandwidth):\n    return math.sqrt(step_count) * sum(x for x in [bandwidth])\n",
    "class Holder:\n    step = 3\n    def get(self):\n        return step\n"
    "def through_a_class():\n    return Holder().get()\n"
    "later = lambda: total(1, 2, 3)\n"
    "def through_a_lambda():\n    return later()\n"
    "def closure():\n    step = 1\n    def inner():\n        return step\n    return inner()\n"
    "def declared():\n    global step\n    return step\n"
    "def comprehension(xs):\n    return [step for step in xs]\n"
    "def after_a_comprehension(xs):\n    [step for step in xs]\n    return step\n"
    "def defaulted(f=total):\n    return f\n"
    "def decorated():\n    return 1\n"
    "decorated = functools_like(decorated)\n",
]


def test_a_functions_reach_is_the_global_names_its_code_can_look_up() -> None:
    reach = reach_of(CELLS)
    assert reach("step") == {"step"}
    assert reach("total") == {"total", "step", "range"}
    assert reach("alone") == {"alone", "math", "sum"}  # parameters and a comprehension's target are not globals
    assert reach("through_a_class") == {"through_a_class", "Holder", "step"}  # a method's `step` is the global one
    assert reach("through_a_lambda") == {"through_a_lambda", "later", "total", "step", "range"}
    assert reach("closure") == {"closure"}  # the enclosing function's local, not the global
    assert "step" in reach("declared")  # type: ignore[operator]
    assert reach("comprehension") == {"comprehension"}
    assert "step" in reach("after_a_comprehension")  # type: ignore[operator]  # the target did not leak
    assert "total" in reach("defaulted")  # type: ignore[operator]
    assert reach("decorated") is None  # rebound by a name the notebook never defines: cannot be followed


@pytest.mark.parametrize(
    "code",
    [
        "def f():\n    return globals()['step']()",
        "def f():\n    return eval('step()')",
        "def f():\n    import sys\n    return sys.modules['__main__']",
        "def f():\n    return f.__globals__['step']",
        "def f():\n    import inspect\n    return inspect.currentframe().f_back.f_globals",
        "def f():\n    return getattr(mod, 'step')",
        "from os import *\ndef f():\n    return 1",
        "%time x = 1\ndef f():\n    return 1",
        "def f():\n    return check('step')",  # a name the notebook never binds (here, the grader's own helper)
    ],
)
def test_nothing_is_known_when_a_name_can_be_looked_up_another_way(code: str) -> None:
    assert reach_of([*CELLS, code])("f") is None


def test_a_name_the_notebook_does_not_define_is_not_known() -> None:
    assert reach_of(CELLS)("nowhere") is None


class _ReadTarget(NamespaceTarget):
    """A namespace target that sends only the stand-ins its cells' code can reach, as a worker's target does."""

    def __init__(self, namespace: dict[str, Any], sources: list[str]) -> None:
        super().__init__(namespace)
        self._reach = reach_of(sources)

    def reached(self, name: str) -> frozenset[str] | None:  # type: ignore[override]
        return self._reach(name)


def _sources(lesson: Lesson, code: str = "", path: Path | None = None) -> list[str]:
    cells = [
        c.source
        for c in notebook(path or lesson.solution).cells
        if c.cell_type == "code" and SKIP_TAG not in c.metadata.get("tags", [])
    ]
    return [*cells, code]


def _namespace(sources: list[str]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for source in sources:
        try:
            exec(source, namespace)  # noqa: S102 - the course's own corpus, as the floor runs it
        except Exception:  # noqa: BLE001 - a cell that fails is left failed, as the grader leaves it
            pass
    return namespace


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", available_lessons(ROOT))
def test_every_corpus_answer_gets_the_outcomes_and_messages_of_every_stand_in_sent(lesson_id: str) -> None:
    lesson = load_lesson(lesson_id, ROOT)
    made = {
        "solution": _sources(lesson),
        "untouched": _sources(lesson, path=lesson.notebook),
        **{e.name: _sources(lesson, e.code) for e in corpus_entries(lesson)},
    }
    known = 0
    with SuiteSession(lesson) as session:
        differ = []
        for name, sources in made.items():
            read = session.run(_ReadTarget(_namespace(sources), sources))
            every = session.run(NamespaceTarget(_namespace(sources)))
            known += any(reach_of(sources)(q.id) is not None for q in lesson.questions)
            if read != every:
                differ.append(name)
    assert differ == [], f"sending only the reached stand-ins changed {differ}"
    assert known == len(made)  # the corpus's code is followed (else this compared nothing)


DECODE = load_lesson("decode", ROOT)
HEAD = "def decode_time(n_tokens, param_bytes, bandwidth):\n    return "
UNUSED = HEAD + "n_tokens * param_bytes / bandwidth\n"
USED = HEAD + "n_tokens / tokens_per_second(param_bytes, bandwidth)\n"
SNEAKY = HEAD + "n_tokens / globals()['tokens_per_second'](param_bytes, bandwidth)\n"


@pytest.fixture(scope="module")
def decode_suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(DECODE)


def _graded(folder: Path, code: str, suites: SuiteSession) -> Report:
    path = folder / "variant.ipynb"
    # the learner's notebook, its stubs left: the only decode_time that reaches anything is ``code``'s
    path.write_text(json.dumps(variant_notebook(DECODE.notebook, code)), encoding="utf-8")
    with Workers(DEFAULT_LIMITS, DEFAULT_MODE) as workers:
        return grade_submission(read_submission(path), DECODE, suites, workers, lent_solution(DECODE))


@pytest.mark.slow
def test_a_worker_is_sent_only_the_stand_ins_its_function_reaches(
    tmp_path: Path, decode_suites: SuiteSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """decode_time's earlier questions are decode_step_seconds and tokens_per_second: a decode_time that calls
    neither is sent neither, one that calls tokens_per_second gets that one, and one that looks it up by a string
    gets both; each report is the one sending both always gives."""
    sent: dict[str, set[str]] = {}
    call = LearnerProcess.call

    def recorded(self: LearnerProcess, name: str, args: Any, kwargs: Any, swaps: Any, deadline: Any = None) -> Any:
        sent.setdefault(name, set()).update(swaps)
        return call(self, name, args, kwargs, swaps, deadline)

    monkeypatch.setattr(LearnerProcess, "call", recorded)
    every_one = set(DECODE.stand_ins["decode_time"])
    for code, expected in ((UNUSED, set()), (USED, {"tokens_per_second"}), (SNEAKY, every_one)):
        sent.clear()
        read = _graded(tmp_path, code, decode_suites)
        assert sent["decode_time"] == expected, code
        with monkeypatch.context() as every:
            every.setattr(WorkerTarget, "reached", lambda self, name: None)
            assert _graded(tmp_path, code, decode_suites) == read, code
    assert set(DECODE.stand_ins["decode_time"]) >= {"decode_step_seconds", "tokens_per_second"}
