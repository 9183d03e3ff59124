"""Step 3, run the hidden suites: real pytest, in the trusted process, collected once per session.

A :class:`SuiteSession` starts one pytest session in a background thread. Our plugin collects the lesson's
tests once and then waits; each :meth:`SuiteSession.run` hands it a target (one learner's worker, or the
live kernel for self-check), runs every selected test against it with pytest's own runtest protocol (or its
steps without the hooks, where no plugin needs them: :mod:`grader.suites.runtest`) and returns one
:class:`TestOutcome` per test. A batch therefore pays for importing and collecting the suites
once, not once per notebook.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import sys
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, Literal, cast

import pytest

from grader.errors import LessonError
from grader.files import write_atomic
from grader.lessons import require_solution
from grader.model import Lesson, Params, ParamValue, TestOutcome
from grader.params import default_params, every_params
from grader.suites.namespace import NamespaceTarget
from grader.suites.reference import load_reference, solution_namespace
from grader.suites.replay import ExampleReplay, forget_local_constants
from grader.suites.runtest import run_lean, runs_lean
from grader.testing import (
    KnownSlip,
    Learner,
    LearnerHung,
    LearnerRaised,
    Mismatch,
    MissingAnswer,
    NotAttempted,
    Target,
)

_INI = Path(__file__).with_name("pytest.ini")

if sys.version_info < (3, 11):  # pragma: no cover - the builtin arrived in 3.11; pytest depends on the backport
    from exceptiongroup import BaseExceptionGroup

#: Held while a session imports its suites, and while it records its examples. In ``importlib`` mode pytest
#: names a suite module after its path below the root (``test_values``, ``conftest``) and reuses any module of
#: that name already in ``sys.modules``: a second lesson with a ``conftest.py`` would get the first lesson's.
#: So each session imports its own modules alone, then takes them out of ``sys.modules`` (its tests keep them
#: alive). Recording runs hypothesis's engine, which parses modules' source as pytest's import does, and
#: CPython 3.11 can fail two threads building ASTs at once ("AST constructor recursion depth mismatch").
_IMPORTING = threading.Lock()
#: What that CPython race says (a SystemError); a session that failed to start with it is started once more.
_AST_RACE = "SystemError: AST constructor recursion depth mismatch"


@dataclass(frozen=True)
class _Job:
    target: Target
    questions: frozenset[str] | None
    result: Future[tuple[TestOutcome, ...]]
    notes: dict[str, Any] = field(default_factory=dict)
    """What ``Learner.once`` keeps while this job's tests run: one notebook's, never another's."""
    params: Params = ()
    """The learner parameters this notebook is graded on (the ``params`` fixture); () for a lesson with none."""


class _Plugin:
    """The pytest plugin that serves jobs from a queue instead of running the tests once."""

    def __init__(self, lesson: Lesson, reference: SimpleNamespace, replay: bool) -> None:
        self.lesson = lesson
        self._reference = reference
        self.jobs: queue.Queue[_Job | None] = queue.Queue()
        self.ready: Future[list[Any]] = Future()
        self.current: Target | None = None
        self.current_notes: dict[str, Any] = {}
        self.current_params: Params = ()
        self.current_learner: Learner | None = None
        """The ``learner`` fixture of the test running now: it knows which stand-ins were called."""
        self.collect_errors: list[str] = []
        self.start_errors: list[str] = []
        self._excinfo: dict[str, BaseException] = {}
        self._lean: set[str] = set()
        """The tests that run without the phases' hooks (:mod:`grader.suites.runtest`), by node id."""
        self.replay = ExampleReplay(enabled=replay)
        self._every_params = [dict(p) for p in every_params(lesson)] if lesson.params else []

    # -- fixtures offered to the suites ------------------------------------------------------------------
    @pytest.fixture
    def learner(self) -> Learner:
        if self.current is None:
            raise LessonError(
                "The learner fixture exists only while a notebook is graded; a suite asked for it outside."
            )
        learner = self.current_learner = Learner(
            self.current, self.lesson.stand_ins, self._reference, self.current_notes
        )
        return learner

    @pytest.fixture
    def reference(self) -> SimpleNamespace:
        return self._reference

    @pytest.fixture
    def params(self) -> Mapping[str, ParamValue]:
        """The learner's numbers (grader/params.py), read-only: expected values and diagnoses are computed from
        them. A lesson without parameters gets an empty mapping."""
        return MappingProxyType(dict(self.current_params))

    @pytest.fixture
    def other_params(self) -> tuple[Mapping[str, ParamValue], ...]:
        """Every other set of the lesson's learner numbers (read-only), so a suite can tell a copied Part 1 from
        a slip (:class:`grader.checks.Use`'s ``others``). Empty for a lesson without parameters."""
        mine = dict(self.current_params) or dict(default_params(self.lesson))
        return tuple(MappingProxyType(p) for p in self._every_params if p != mine)

    # -- hooks ----------------------------------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "question(id, weight=1): the lesson question a hidden test grades")
        # Hypothesis formats a traceback for every failing example it tries while shrinking, through pytest's
        # ``repr_failure``; in the default (long) style that reads and annotates source, ~0.1 s a time, which
        # made a wrong answer cost seconds. Nobody reads those tracebacks here; the native style is cheap.
        config.option.tbstyle = "native"
        _load_hypothesis_profile()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext[-2000:]}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_load_initial_conftests(self) -> Iterator[None]:
        """Keep why the suites' own ``conftest.py`` could not be imported (pytest only prints it)."""
        outcome: Any = yield
        if outcome.excinfo is not None:
            self.start_errors.append(str(outcome.excinfo[1]))

    @property
    def raced(self) -> bool:
        """Whether this start failed on CPython's AST race (:data:`_AST_RACE`), not on the lesson."""
        return any(_AST_RACE in text for text in (*self.collect_errors, *self.start_errors))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
        """A plain report that keeps the exception for our feedback.

        pytest's own report formats a source-annotated traceback for every failure (~130 ms each, most
        of the cost of grading an untouched notebook); nobody reads it here, so we don't build it.
        """
        outcome: Literal["passed", "failed", "skipped"] = "passed"
        longrepr: Any = None
        if call.excinfo is not None:
            self._excinfo.setdefault(item.nodeid, call.excinfo.value)
            skipped = call.excinfo.errisinstance(pytest.skip.Exception)
            outcome = "skipped" if skipped else "failed"
            reason = f"{call.excinfo.typename}: {call.excinfo.value}"[:500]
            longrepr = (str(item.path), 0, reason) if skipped else reason
        when = cast(Literal["setup", "call", "teardown"], call.when)  # makereport is never called for "collect"
        return pytest.TestReport(
            item.nodeid, item.location, {}, outcome, longrepr, when, [], call.duration, call.start, call.stop
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        """A property whose examples were drawn earlier this session is run by replaying them (replay.py);
        one that has none yet, or whose failure only hypothesis can judge, runs through hypothesis."""
        return True if self.replay.run(pyfuncitem) else None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        try:
            items = [(item, _marker(item, self.lesson)) for item in session.items]
        except LessonError as err:
            self.ready.set_exception(err)
            return True
        if self.collect_errors or not items:
            detail = "\n".join(self.collect_errors) or "no tests were collected"
            self.ready.set_exception(LessonError(f"The hidden suites in {self.lesson.suites} cannot be used: {detail}"))
            return True
        _pin_hypothesis_seeds(item for item, _ in items)
        self.replay.install([item for item, _ in items])
        self._lean = {item.nodeid for item, _ in items if runs_lean(item, self)}
        self.ready.set_result([item for item, _ in items])
        while (job := self.jobs.get()) is not None:
            try:
                selected = [(i, m) for i, m in items if job.questions is None or m[0] in job.questions]
                self.current_notes = job.notes
                self.current_params = job.params
                job.result.set_result(
                    tuple(self._run(item, qid, weight, job.target) for item, (qid, weight) in selected)
                )
            except BaseException as err:  # never leave a caller waiting
                job.result.set_exception(err)
        return True

    def _run(self, item: pytest.Item, qid: str, weight: float, target: Target) -> TestOutcome:
        from _pytest.runner import runtestprotocol  # the public runner protocol, re-run once per target

        self.current, self.current_learner = target, None
        self._excinfo.pop(item.nodeid, None)
        reports: list[pytest.TestReport] = []
        try:
            with self.replay.recording(item) as recorded:
                if item.nodeid in self._lean:  # pytest's steps without the hooks: see runtest.py
                    failed = run_lean(cast(pytest.Function, item))
                    if failed is not None:
                        self._excinfo[item.nodeid] = failed
                    passed = failed is None
                else:
                    reports = runtestprotocol(item, nextitem=None, log=False)
                    passed = all(r.passed for r in reports) and any(r.when == "call" for r in reports)
                recorded(passed)
        finally:
            self.current = None
        learner = self.current_learner
        stood_in = tuple(sorted(learner.stood_in)) if learner is not None else ()
        name = item.name
        if passed:
            carried = tuple(sorted(learner.carried)) if learner is not None else ()
            return TestOutcome(qid, name, weight, "passed", stood_in=stood_in, carried=carried)
        error = _first_leaf(self._excinfo.pop(item.nodeid, None))
        return replace(_outcome(qid, name, weight, error, reports), stood_in=stood_in)


def _marker(item: pytest.Item, lesson: Lesson) -> tuple[str, float]:
    mark = item.get_closest_marker("question")
    if mark is None or not mark.args:
        raise LessonError(f"The hidden test {item.nodeid} has no @question(...) marker; add one naming its question.")
    qid = str(mark.args[0])
    if qid not in {q.id for q in lesson.questions}:
        raise LessonError(f"The hidden test {item.nodeid} grades {qid!r}, which lesson {lesson.id!r} does not define.")
    return qid, float(mark.kwargs.get("weight", 1.0))


def _first_leaf(error: BaseException | None) -> BaseException | None:
    """Hypothesis may group several failures; the first one is the one to explain."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _outcome(qid: str, name: str, weight: float, error: BaseException | None, reports: list[Any]) -> TestOutcome:
    if isinstance(error, NotAttempted):
        return TestOutcome(qid, name, weight, "not-attempted", str(error))
    if isinstance(error, MissingAnswer):
        return TestOutcome(qid, name, weight, "missing", str(error))
    if isinstance(error, LearnerHung):
        return TestOutcome(qid, name, weight, "error", str(error))
    if isinstance(error, (Mismatch, LearnerRaised)):
        return TestOutcome(qid, name, weight, "failed", str(error), slip=isinstance(error, KnownSlip))
    if isinstance(error, AssertionError):
        return TestOutcome(qid, name, weight, "failed", str(error).split("\nassert ")[0].strip() or "a check failed")
    if error is not None:
        return TestOutcome(qid, name, weight, "failed", f"the check stopped with {type(error).__name__}: {error}"[:500])
    skipped = any(r.skipped for r in reports)
    return TestOutcome(
        qid, name, weight, "error", "the test was skipped" if skipped else "the test did not report a pass"
    )


def _forget_modules_under(folder: Path) -> None:
    """Take the modules imported from ``folder`` out of ``sys.modules`` (see ``_IMPORTING``)."""
    prefixes = tuple({str(folder) + os.sep, str(folder.resolve()) + os.sep})
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.startswith(prefixes):
            del sys.modules[name]


def _pin_hypothesis_seeds(items: Iterator[pytest.Item]) -> None:
    """Give each derandomized ``@given`` test, once, the seed hypothesis would derive for it on every run.

    With ``derandomize`` hypothesis seeds a test from a digest of its source, which it recomputes twice per
    run (``inspect.getsource`` and tokenizing: ~10% of a notebook's test time). The same value set once with
    the public ``hypothesis.seed`` decorator gives the same examples, so the same score and feedback.
    Parametrized tests (which hypothesis keys per parameter) and tests that chose a seed keep the default.
    """
    try:
        from hypothesis import is_hypothesis_test, seed
        from hypothesis.internal.reflection import function_digest
    except ImportError:  # pragma: no cover - an older or newer hypothesis: keep its own behaviour
        return
    for item in items:
        test = getattr(item, "obj", None)
        if test is None or hasattr(item, "callspec") or not is_hypothesis_test(test):
            continue
        settings = getattr(test, "_hypothesis_internal_use_settings", None)
        if (
            not getattr(settings, "derandomize", False)
            or getattr(test, "_hypothesis_internal_use_seed", None) is not None
        ):
            continue
        digest = function_digest(test.hypothesis.inner_test)
        seed(int.from_bytes(digest, "big"))(test)
        test._hypothesis_internal_database_key = digest  # unused (database=None), but no longer recomputed


def _load_hypothesis_profile() -> None:
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis.configuration import set_hypothesis_home_dir

    from grader.config import cache_dir

    # Hypothesis keeps files in ./.hypothesis unless told otherwise (even with no example database): that is
    # the learner's folder when check() runs. Its own HYPOTHESIS_STORAGE_DIRECTORY still wins when set.
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        set_hypothesis_home_dir(cache_dir() / "hypothesis")

    settings.register_profile(
        "grading",
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        # The explain phase re-runs a failing test many times to annotate it (~20 s per failing test) and
        # changes neither the outcome nor our feedback, which comes from the shrunk example.
        phases=[p for p in Phase if p.name != "explain"],
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    settings.load_profile("grading")
    forget_local_constants()  # the same draws in the grading process and in a learner's kernel (replay.py)


def _plugin_args() -> list[str]:
    """Load only the plugins we give (:func:`_named_plugins`): entry-point plugins installed beside the grader
    (pytest-randomly, anyio, ...) must not change how a notebook is graded, and autoloading them made pytest rewrite
    the assertions of every module in their packages as they were imported (all of hypothesis: ~1 s a session).
    ``--disable-plugin-autoload`` needs pytest 8.4; older versions load entry points as before.
    """
    if pytest.version_tuple >= (8, 4):
        return ["--disable-plugin-autoload"]
    return []  # pragma: no cover


def _named_plugins() -> list[object]:
    """hypothesis's pytest plugin, given to pytest as the module itself: named with ``-p``, pytest first looked
    for it among the entry points of every installed package (~15 ms a session, on a cold grade's critical path)."""
    if pytest.version_tuple >= (8, 4):
        return [importlib.import_module("_hypothesis_pytestplugin")]
    return []  # pragma: no cover: autoloaded


class SuiteSession:
    """One lesson's hidden suites, collected once, ready to run against any number of targets."""

    def __init__(self, lesson: Lesson, *, replay: bool = True, examples: Path | None = None) -> None:
        """``replay=False`` runs every property through hypothesis's engine every time (see replay.py).

        ``examples``: a file that keeps the properties' examples between processes, for this version of the
        lesson (the caller names it by the lesson's fingerprint). If it is missing or was made by another
        hypothesis or Python, opening the session records the examples by running the reference solution
        once in this process (~0.3 s), and writes the file: from then on every process replays from its first
        notebook, instead of drawing through hypothesis's engine for each property until some learner passes it.
        """
        self.lesson = lesson
        self._replay = replay
        self._plugin = _Plugin(lesson, load_reference(require_solution(lesson)), replay)
        self._thread: threading.Thread | None = None
        self._examples_file = examples if replay else None

    def __enter__(self) -> SuiteSession:
        args = [
            str(self.lesson.suites),
            "-c",
            str(_INI),
            "--rootdir",
            str(self.lesson.suites),
            "--confcutdir",
            str(self.lesson.suites),  # no conftest.py from folders above the suites (a course repo's)
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:faulthandler",
            "-p",
            "no:logging",  # its capture handlers, set up and torn down around every phase of every test, were ~15%
            # of the suites' time; the learner's logging happens in the worker, out of its reach anyway
            "-p",
            "no:stepwise",
            "-p",
            "no:terminal",
            "-p",
            "no:unraisableexception",  # its session-end garbage collection costs ~0.1 s per session
            "--capture=no",
            *_plugin_args(),
        ]
        try:
            with _IMPORTING:
                try:
                    self._start(args)
                except LessonError:
                    # CPython 3.11 can fail to build an AST while another thread builds one (a SystemError,
                    # "AST constructor recursion depth mismatch", when pytest imports a suite module): a session
                    # that did not start for that reason, and only that one, is started once more.
                    if not self._plugin.raced:
                        raise
                    self._plugin = _Plugin(self.lesson, self._plugin._reference, self._replay)
                    self._start(args)
                if self._examples_file is not None:  # still alone: no other session imports while this one primes
                    self._keep_examples(self._examples_file)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self, args: list[str]) -> None:
        """Start pytest in the session's thread and wait until it has collected the suites (or failed to)."""
        self._thread = threading.Thread(target=self._main, args=(args, self._plugin), name="hidden-suites", daemon=True)
        self._thread.start()
        try:
            self._plugin.ready.result()
        finally:
            _forget_modules_under(self.lesson.suites)

    def _keep_examples(self, path: Path) -> None:
        """Load the examples kept in ``path``; if there are none for this environment, record and keep them."""
        import hypothesis

        # format 2: drawn without hypothesis's local constants (replay.forget_local_constants); a file of
        # format 1 was drawn with those of the process that recorded it, and is recorded again
        stamp = {"format": 2, "hypothesis": hypothesis.__version__, "python": list(sys.version_info[:2])}
        replay = self._plugin.replay
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(kept, dict) and kept.get("stamp") == stamp and replay.load(kept.get("examples")):
                return
        except (OSError, ValueError):
            pass
        try:
            self.run(NamespaceTarget(solution_namespace(self.lesson.solution)))  # it passes: every property recorded
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps({"stamp": stamp, "examples": replay.export()}, separators=(",", ":")))
        except Exception:  # noqa: BLE001 - only a speed-up: without the file, properties run through the engine
            pass

    def _main(self, args: list[str], plugin: _Plugin) -> None:
        """The session thread: pytest with ``plugin``, this start's own (a start that failed may still be ending)."""
        try:
            code = pytest.main(args, plugins=[plugin, *_named_plugins()])
        except BaseException as err:
            code = -1
            if not plugin.ready.done():
                plugin.ready.set_exception(LessonError(f"The hidden suites could not start: {err!r}"))
        if not plugin.ready.done():
            plugin.ready.set_exception(
                LessonError(f"The hidden suites in {self.lesson.suites} did not start (pytest exit {code}).")
            )

    def run(
        self, target: Target, questions: frozenset[str] | None = None, params: Params | None = None
    ) -> tuple[TestOutcome, ...]:
        """Run the selected questions' tests (all by default) against ``target``, on the learner parameters
        ``params`` (None: the lesson's defaults, the numbers on its pages)."""
        job = _Job(target, questions, Future(), params=default_params(self.lesson) if params is None else params)
        self._plugin.jobs.put(job)
        return job.result.result()

    @property
    def replayed(self) -> int:
        """How many test runs this session decided by replaying recorded examples (for tests and the bench)."""
        return self._plugin.replay.replayed

    @property
    def unreplayed(self) -> tuple[str, ...]:
        """The properties (``@given`` tests) that have no examples to replay: see :meth:`ExampleReplay.unrecorded`."""
        return self._plugin.replay.unrecorded()

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._plugin.jobs.put(None)
            self._thread.join()
