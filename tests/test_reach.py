"""Which stand-ins a call sends (grader/execute/reach.py): only those the learner's function can reach, read from
its code, with every outcome and message what sending them all gives; everything when the code cannot be
followed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.variants import variant_notebook
from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, SKIP_TAG, lessons_root
from grader.execute.reach import reach_of
from grader.execute.runner import Workers
from grader.execute.target import WorkerTarget
from grader.execute.worker import LearnerProcess
from grader.lessons import available_lessons, load_lesson
from grader.model import Lesson, Report
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.namespace import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import REPO
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
    assert reach("alone") == {"alone", "math", "sum"}  # parameters and a comprehension's target are not globals
    assert reach("closure") == {"closure"}  # the enclosing function's local, not the global
    assert reach("comprehension") == {"comprehension"}
    chain = reach("total")
    assert chain is not None and {"total", "step", "range"} <= chain and "alone" not in chain
    for name in ("through_a_class", "through_a_lambda", "declared", "after_a_comprehension", "defaulted"):
        assert "step" in (reach(name) or {"step"}), name  # a method's `step` is the global; the target did not leak
    assert reach("decorated") is None  # rebound by a name the notebook never defines: cannot be followed
    # joined both ways through the statements that name them: what a function names can lead back to it
    assert "through_a_class" in (reach("step") or set())


HELPER = "def helper(*a):\n    return 1\n"
#: Ways to reach ``helper`` from ``f`` that a review of the first version found unseen (each ran the cells, put a
#: probe in ``helper``'s place and called ``f``): code hung on an object by a statement that binds nothing, a
#: nested ``global``, a class body's own names, name mangling, lookups by a string, a path into ``builtins``.
REACHED_UNSEEN = {
    "an attribute set on the function": "def f():\n    return f.cb()\nf.cb = lambda: helper()\n",
    "a lambda appended to a list": "CALLBACKS = []\nCALLBACKS.append(lambda: helper())\n"
    "def f():\n    return CALLBACKS[0]()\n",
    "a lambda stored under a key": "TABLE = {}\nTABLE['k'] = lambda: helper()\ndef f():\n    return TABLE['k']()\n",
    "a registering decorator": "REG = []\ndef register(fn):\n    REG.append(fn)\n    return fn\n"
    "@register\ndef g():\n    return helper()\ndef f():\n    return REG[0]()\n",
    "a method set on a class later": "class C:\n    pass\nC.m = staticmethod(lambda: helper())\n"
    "def f():\n    return C.m()\n",
    "a set-up function run at import": "HOOKS = {}\ndef setup():\n    HOOKS['x'] = lambda: helper()\nsetup()\n"
    "def f():\n    return HOOKS['x']()\n",
    "an __init_subclass__ registry": "PLUGINS = []\nclass Base:\n    def __init_subclass__(cls, **kw):\n"
    "        PLUGINS.append(cls)\nclass P(Base):\n    def run(self):\n        return helper()\n"
    "def f():\n    return PLUGINS[0]().run()\n",
    "a nested global over a local": "def f():\n    helper = None\n    def g():\n        global helper\n"
    "        return helper()\n    return g()\n",
    "a class's global over a local": "def f():\n    helper = None\n    class C:\n        global helper\n"
    "        x = helper()\n    return C.x\n",
    "a class body's own name": "def f():\n    helper = None\n    class C:\n        x = helper()\n        helper = 2\n"
    "    return C.x\n",
    "a class body's own method name": "def f():\n    helper = None\n    class C:\n        y = helper()\n"
    "        def helper(self):\n            return 0\n    return C.y\n",
    "attrgetter by a string": "import operator\ndef f():\n"
    "    return operator.attrgetter('__globals__')(f)['helper']()\n",
    "a class pattern's attribute": "def f():\n    match f:\n        case object(__globals__={'helper': h}):\n"
    "            return h()\n",
    "a generator's frame in a pattern": "def gen():\n    yield 1\ndef f():\n    match gen():\n"
    "        case object(gi_frame=object(f_globals={'helper': h})):\n            return h()\n",
    "a format field": "def f():\n    return '{0.__globals__[helper]}'.format(f)\n",
    "the loader's builtins": "def f():\n    return __loader__.load_module('builtins').eval('helper()')\n",
    "numpy's measure": "import numpy as np\ndef f():\n    np.testing.measure('helper()', 1)\n",
    "numpy's bmat": "import numpy as np\ndef f():\n    return np.bmat('helper')\n",
    "a module's builtins by a public path": "import fractions\ndef f():\n"
    "    return fractions.re.enum.bltns.eval('helper()')\n",
    "statistics' sys": "import statistics\ndef f():\n    match statistics.sys._getframe(0):\n"
    "        case object(f_globals={'helper': h}):\n            return h()\n",
}


class _Probe:
    """Stands where ``helper`` was, and notes being called, formatted or made an array."""

    def __init__(self) -> None:
        self.touched: list[str] = []

    def __call__(self, *args: Any) -> int:
        self.touched.append("called")
        return 0

    def __format__(self, spec: str) -> str:
        self.touched.append("formatted")
        return "probe"

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        import numpy

        self.touched.append("made an array")
        return numpy.zeros((1, 1))


@pytest.mark.parametrize("way", sorted(REACHED_UNSEEN))
def test_a_name_reached_another_way_is_in_the_reach_or_nothing_is_known(way: str) -> None:
    cells = [HELPER, REACHED_UNSEEN[way]]
    reach = reach_of(cells)("f")
    namespace: dict[str, Any] = {}
    for cell in cells:
        exec(cell, namespace)  # noqa: S102 - the test's own cells
    probe = namespace["helper"] = _Probe()
    try:
        namespace["f"]()
    except Exception:  # noqa: BLE001 - only whether the probe was reached matters
        pass
    assert probe.touched, f"{way}: the probe was not reached, so this case shows nothing"
    assert reach is None or "helper" in reach, f"{way}: reached ({probe.touched}) but not in {sorted(reach)}"


#: A second review's ways, each run as the worker runs cells (its plain shell, the display hook, IPython's shell for
#: what needs it): objects every import or builtin shares, the display hook's ``_``, the garbage collector, class
#: bodies' own bindings, comprehension targets, ``__builtins__`` rebound, strings built at run time, ``__match_args__``,
#: and cells that only look like syntax errors.
REACHED_IN_THE_WORKER = {
    "a module attribute, imported again inside": [
        "import math\nmath.cb = lambda: helper()",
        "def f():\n    import math\n    return math.cb()",
    ],
    "a module imported under another name": [
        "import math\nmath.cb = lambda: helper()",
        "import math as m2",
        "def f():\n    return m2.cb()",
    ],
    "a from-import inside": [
        "import cmath\ncmath.cb = lambda: helper()",
        "def f():\n    from cmath import cb\n    return cb()",
    ],
    "a site builtin's attribute": ["license.cb = lambda: helper()", "def f():\n    return license.cb()"],
    "a site builtin's class": [
        "type(license).cb = staticmethod(lambda: helper())",
        "def f():\n    return credits.cb()",
    ],
    "the display hook's _": ["for _ in range(3):\n    pass\ndel _", "lambda: helper()", "def f():\n    return _()"],
    "a finalizer": [
        "class D:\n    def __del__(self):\n        helper()\nd = D()\nd.me = d\ndel d",
        "def f():\n    import gc\n    gc.collect()",
    ],
    "a class body's augmented assignment": ["def f():\n    class C:\n        helper += 1\n    return C"],
    "a class body's import": [
        "def f():\n    helper = 0\n    class C:\n        x = helper()\n        import math as helper\n    return C.x"
    ],
    "a class body's except name": [
        "def f():\n    helper = 0\n    class C:\n        try:\n"
        "            raise ValueError\n        except ValueError as helper:\n            pass\n"
        "        x = helper()\n    return C.x"
    ],
    "an attribute as a comprehension's target": ["def f():\n    return [1 for helper.x in range(2)]"],
    "an item as a comprehension's target": ["def f():\n    d = {}\n    return [0 for d[helper()] in range(2)]"],
    "a walrus in a top-level comprehension": [
        "[(len := lambda x: helper(x)) for _ in range(1)]",
        "def f():\n    return len([1])",
    ],
    "__builtins__ as a class": [
        "class __builtins__:\n    def __class_getitem__(cls, name):\n        return helper",
        "def f():\n    return len([1])",
    ],
    "__builtins__ by an import": [
        "import math as __builtins__\nimport math\nmath.len = lambda x: helper(x)",
        "def f():\n    return len([1])",
    ],
    "a format string built at run time": [
        "def f():\n    s = '{0.' + '_' * 2 + 'globals' + '_' * 2 + '[hel' + 'per]}'\n    return s.format(f)"
    ],
    "a format string from bytes": ["def f():\n    return b'{0.__globals__[helper]}'.decode().format(f)"],
    "__match_args__ from __prepare__": [
        "class Meta(type):\n    def __prepare__(name, bases):\n        u = '_' * 2\n"
        "        return {u + 'match_args' + u: (u + 'globals' + u,)}\n    def __instancecheck__(cls, obj):\n"
        "        return True\nclass M(metaclass=Meta):\n    pass\ndef f():\n    match f:\n        case M(g):\n"
        "            return g['hel' + 'per']()"
    ],
    "a cell after a \\x1c line": ["\x1cdef len(x):\n    return helper(x)\n", "def f():\n    return len([1])"],
    "a cell after a \\x85 line": ["def g():\n    return 0", "\x85g = lambda: helper()", "def f():\n    return g()"],
}
#: Runs one case as the worker runs cells, in a process of its own (IPython's shell is one per process), and prints
#: whether the probe in ``helper``'s place was touched and what the reach was.
IN_A_WORKER = """
import json, sys, io, contextlib
from grader.execute.cells import PlainShell, run_cell
from grader.execute.reach import reach_of
cells = json.loads(sys.argv[1])
shell, touched = PlainShell(), []
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    for cell in cells:
        run_cell(shell, cell)
class Probe:
    def __call__(self, *args, **kwargs): touched.append("called"); return 1
    def __setattr__(self, name, value): touched.append("set " + name)
    def __iadd__(self, other): touched.append("added to"); return self
    def __format__(self, spec): touched.append("formatted"); return "probe"
namespace = shell.built.user_ns if shell.built is not None else shell.user_ns
namespace["helper"] = Probe()
try:
    namespace["f"]()
except Exception:
    pass
reach = reach_of(cells)("f")
print(json.dumps({"touched": touched, "reach": None if reach is None else sorted(reach)}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("way", sorted(REACHED_IN_THE_WORKER))
def test_a_name_reached_in_the_worker_another_way_is_in_the_reach_or_nothing_is_known(way: str) -> None:
    cells = [HELPER, *REACHED_IN_THE_WORKER[way]]
    ran = subprocess.run(
        [sys.executable, "-c", IN_A_WORKER, json.dumps(cells)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    seen = json.loads(ran.stdout.splitlines()[-1])
    assert seen["touched"], f"{way}: the probe was not reached, so this case shows nothing"
    assert seen["reach"] is None or "helper" in seen["reach"], f"{way}: reached ({seen['touched']}) unseen"


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
