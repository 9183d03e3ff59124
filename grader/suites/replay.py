"""Draw each property's examples once per session, then replay them for every later learner.

Why: in the grading profile (``derandomize``, no deadline) hypothesis draws the same examples for a
``@given`` test in every run, whoever's answer it calls, up to the first failing example: the draws come
from a fixed seed and the choices made so far, never from what the learner returned (nor, once
:func:`forget_local_constants` has run, from the modules the process imported). Drawing them was
most of a notebook's grading time (the engine's bookkeeping for ~140 examples, against ~150 cheap learner
calls), so a session records the examples of the first run of each property that passes, and later runs
call the test's body directly with those examples, in the same order, each under the seeded ``random``
the engine gives an example.

The outcome is the engine's: a replay that passes every example is a run the engine would pass; without
the shrink phase (``NO_SHRINK``, every graded Decode property) the engine stops at the first failing
example and reports its exception, which is what a replay raises. A failure in a property that shrinks is
handed to the engine, so that the feedback shows the example it shrinks to; if the engine cannot reproduce
it (an answer that changes from call to call), the failure seen stands, as hypothesis's own ``Flaky`` would.
A body that uses hypothesis's API (``note``, ``target``, ``assume`` work only inside the engine) always runs
through the engine from then on. A property is never recorded if another learner could make the engine
draw differently: not derandomized, with a deadline or an example database, drawing in its body
(``st.data()``), rejecting examples, or run by a class that customises how examples execute.
``tests/test_replay.py`` checks that every outcome and message is the engine's.

The examples do not depend on the process either, so a session can keep them on disk (:meth:`ExampleReplay.
export`, :meth:`ExampleReplay.load`): :class:`grader.suites.session.SuiteSession` records them once per lesson
version by running the reference solution, and every later process replays from its first notebook on. Only
plain data is kept (None, bool, int, float, str, and lists, tuples and string-keyed dicts of them, each with
its type); a property that drew anything else is recorded in memory only, as before.
"""

from __future__ import annotations

import copy
import functools
import random
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import pytest

#: Where a property that must always run through the engine is recorded as such.
_NEVER: tuple[dict[str, Any], ...] = ()

_EXECUTION_HOOKS = ("setup_example", "teardown_example", "execute_example")


@dataclass
class _Recording:
    """What one engine run of one test drew: filled by the wrapped body, read when the run ends."""

    fixtures: frozenset[str]
    examples: list[dict[str, Any]] = field(default_factory=list)
    unreplayable: bool = False


#: The recording of the run in progress in this thread, if any. The wrapper around a body is installed on
#: the test function itself, not on one session; each session runs its tests in its own thread, and a
#: context variable lets the wrapper find that thread's recording without reaching into any session.
_CURRENT: ContextVar[_Recording | None] = ContextVar("grader_replay_recording", default=None)


class ExampleReplay:
    """Per test item: the examples its first passing engine run drew (``_NEVER``: always the engine)."""

    def __init__(self, enabled: bool = True) -> None:
        self._enabled = enabled
        self._examples: dict[str, tuple[dict[str, Any], ...]] = {}
        self._bodies: dict[str, Callable[..., Any]] = {}
        self._shrinks: dict[str, bool] = {}
        self._properties: list[str] = []
        """Every ``@given`` test's node id, replayable or not (see :meth:`unrecorded`)."""
        self.replayed = 0
        """Runs decided by a replay so far."""

    def install(self, items: list[pytest.Item]) -> None:
        """Wrap each eligible ``@given`` test's body (its public ``hypothesis.inner_test``) to record its calls."""
        from hypothesis import Phase, is_hypothesis_test

        for item in items if self._enabled else ():
            if not isinstance(item, pytest.Function):
                continue
            test = item.obj
            if not is_hypothesis_test(test):
                continue
            self._properties.append(item.nodeid)
            if not _draws_alike(test, item):
                continue
            handle = test.hypothesis
            body = getattr(handle, "_grader_body", None)
            if body is None:  # once per function, whichever session or parametrized item comes first
                body = handle.inner_test
                handle._grader_body = body
                handle.inner_test = _recorder(body)
            self._bodies[item.nodeid] = body
            # The engine's own run decides a failure when it shrinks (the feedback shows the example it shrinks
            # to), and when it has several explicit examples: it runs every one of them before it reports, so
            # which failure it reports is its own to say (seen: not always the first a replay meets).
            explicit = len(getattr(test, "hypothesis_explicit_examples", ()))
            self._shrinks[item.nodeid] = Phase.shrink in test._hypothesis_internal_use_settings.phases or explicit > 1

    @contextmanager
    def recording(self, item: pytest.Item) -> Iterator[Callable[[bool], None]]:
        """Record an engine run of ``item`` if it has no examples yet; the caller says whether it passed."""
        if item.nodeid not in self._bodies or item.nodeid in self._examples:
            yield lambda passed: None
            return
        run = _Recording(frozenset(getattr(item, "fixturenames", ())))

        def done(passed: bool) -> None:
            if run.unreplayable:
                self._examples[item.nodeid] = _NEVER
            elif passed and run.examples:
                self._examples[item.nodeid] = tuple(run.examples)

        token = _CURRENT.set(run)
        try:
            yield done
        finally:
            _CURRENT.reset(token)

    def unrecorded(self) -> tuple[str, ...]:
        """The ``@given`` tests with no examples to replay (node ids): never run to a pass yet, or drawn again by the
        engine for every learner (not derandomized, rejecting examples, drawing in the body...). Once a session has
        graded the solution there should be none: a lesson's gates say which (tests/test_lesson_gates.py)."""
        return tuple(nodeid for nodeid in self._properties if not self._examples.get(nodeid))

    def export(self) -> dict[str, list[Any]]:
        """The complete records of plain data, by test node id, encoded for JSON (see :meth:`load`)."""
        return {
            nodeid: [_encode(example) for example in examples]
            for nodeid, examples in self._examples.items()
            if examples and all(_plain(example) for example in examples)
        }

    def load(self, records: object) -> int:
        """Take the records :meth:`export` made (in any process) for tests this session can replay; how many."""
        if not self._enabled or not isinstance(records, dict):
            return 0
        loaded = 0
        for nodeid, encoded in records.items():
            if nodeid in self._bodies and nodeid not in self._examples and isinstance(encoded, list) and encoded:
                try:
                    examples = tuple(_decode(e) for e in encoded)
                except ValueError:
                    continue
                if all(isinstance(e, dict) for e in examples):
                    self._examples[nodeid] = examples
                    loaded += 1
        return loaded

    def run(self, item: pytest.Function) -> bool:
        """Run ``item`` from its recorded examples: True if it passed, its failure raised if it failed, False if
        it must run through hypothesis instead (nothing recorded, or its body uses hypothesis's API)."""
        examples = self._examples.get(item.nodeid)
        if not examples:
            return False
        from hypothesis.errors import HypothesisDeprecationWarning, HypothesisException, UnsatisfiedAssumption

        # The arguments pytest's own pytest_pyfunc_call passes: the test's fixtures (hypothesis draws the rest).
        fixtures = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}
        try:
            with warnings.catch_warnings():
                # `assume`, `reject`... outside the engine only warn that they are deprecated there: the first
                # such call is the sign that this body needs the engine, before it can judge anything
                warnings.simplefilter("error", HypothesisDeprecationWarning)
                self._replay(item, examples, fixtures)
        except (HypothesisException, UnsatisfiedAssumption, HypothesisDeprecationWarning):
            self._examples[item.nodeid] = _NEVER  # the body needs the engine: from now on it always gets it
            return False
        except _FAILURES as failure:
            self.replayed += 1
            if self._shrinks[item.nodeid]:
                item.obj(**fixtures)  # the engine, so that the feedback is the failure it reports
            raise failure  # ...and if it cannot reproduce the failure, the failure seen still stands
        except KeyboardInterrupt:
            raise
        except BaseException:  # NotAttempted, LearnerHung, pytest.skip: the engine lets these through at once
            self.replayed += 1
            raise
        self.replayed += 1
        return True

    def _replay(self, item: pytest.Function, examples: tuple[dict[str, Any], ...], fixtures: dict[str, Any]) -> None:
        body = self._bodies[item.nodeid]
        with _seeded_random() as reseed:
            for example in examples:
                reseed()
                body(**fixtures, **copy.deepcopy(example))


#: What hypothesis counts as a failing example (``hypothesis.core.failure_exceptions_to_catch``).
_FAILURES = (Exception, SystemExit, GeneratorExit, pytest.fail.Exception)


_SCALARS = (type(None), bool, int, float, str)


def _plain(value: Any) -> bool:
    """Whether ``value`` is plain data that :func:`_encode` keeps exactly, types included."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is list or kind is tuple:
        return all(_plain(v) for v in value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    return False


def _encode(value: Any) -> Any:
    """JSON for plain data: a tuple is ``{"t": [...]}``, a dict ``{"d": {...}}``, a list a JSON array."""
    if type(value) is tuple:
        return {"t": [_encode(v) for v in value]}
    if type(value) is dict:
        return {"d": {k: _encode(v) for k, v in value.items()}}
    if type(value) is list:
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    """What :func:`_encode` was given; ValueError for anything it does not make."""
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, inner),) = value.items()
        if tag == "t" and isinstance(inner, list):
            return tuple(_decode(v) for v in inner)
        if tag == "d" and isinstance(inner, dict):
            return {k: _decode(v) for k, v in inner.items()}
    if type(value) in _SCALARS:
        return value
    raise ValueError("not a recorded example")


def _recorder(body: Callable[..., Any]) -> Callable[..., Any]:
    """``body``, noting what each call was given while a run of its test is being recorded."""
    from hypothesis.errors import UnsatisfiedAssumption
    from hypothesis.strategies import DataObject

    @functools.wraps(body)
    def recording(*args: Any, **kwargs: Any) -> Any:
        run = _CURRENT.get()
        if run is not None:
            drawn = {k: v for k, v in kwargs.items() if k not in run.fixtures}
            if args or any(isinstance(v, DataObject) for v in drawn.values()):
                run.unreplayable = True
            else:
                run.examples.append(copy.deepcopy(drawn))  # before the body can change them
        try:
            return body(*args, **kwargs)
        except UnsatisfiedAssumption:
            if run is not None:
                run.unreplayable = True
            raise

    return recording


def forget_local_constants() -> None:
    """Make hypothesis draw the same examples in every process: without the literals of the process's own modules.

    Why: since 6.131 hypothesis sometimes (p = 0.05 per drawn value) draws a constant found in the source of any
    "local" module in ``sys.modules`` (not the standard library nor site-packages: the grader run from a checkout,
    the suites' conftest.py, a learner's own module beside the notebook). So the examples of one derandomized
    property depended on what the process had imported: the grading process recorded some, a learner's kernel
    (self-check, nbgrader's test cells) drew others, and a wrong answer could fail other examples in the two and
    get another score (Decode's ``test_order_generated`` drew ``[..., 100]`` in one and ``[..., 160]`` in the
    other). Hypothesis has no setting for it, so its one private hook is replaced by the empty pool, for the
    whole process (a learner's own hypothesis tests in the kernel lose only that heuristic); its cache of
    permitted constants is emptied too, in case it was filled before. Another hypothesis without the hook is left
    alone (``tests/test_replay.py`` then fails if draws depend on the imported modules again).
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another hypothesis
        return
    if getattr(providers, "_get_local_constants", _no_local_constants) is _no_local_constants:
        return  # a hypothesis without local constants, or replaced already
    providers._get_local_constants = _no_local_constants
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None and hasattr(cache, "cache"):
        cache.cache.clear()


@functools.cache
def _no_local_constants() -> Any:
    """The empty pool of local constants (hypothesis's ``Constants``), in place of the process's modules' literals."""
    from hypothesis.internal.constants_ast import Constants

    return Constants()


def _draws_alike(test: Any, item: pytest.Item) -> bool:
    """Whether the engine draws the same examples for this test in every run, whatever the learner does."""
    settings = getattr(test, "_hypothesis_internal_use_settings", None)
    if settings is None or not settings.derandomize or settings.deadline is not None or settings.database is not None:
        return False  # random draws; a timing check a replay does not make; examples saved by earlier runs
    instance = getattr(item, "instance", None)
    return not any(hasattr(instance, hook) for hook in _EXECUTION_HOOKS)


@contextmanager
def _seeded_random() -> Iterator[Callable[[], None]]:
    """Yield a function that seeds every PRNG hypothesis manages (``random``, numpy's global generator if
    loaded, any ``register_random``-ed one) with 0 for the next example, as the engine does for each example
    it runs; their states are restored at the end.

    The engine saves, seeds and restores them around every example (~140 us); what a body sees is the same
    seeded state either way, so here each is saved and seeded once per test and reset per example (~10 us).
    """
    managed = _managed_randoms()
    saved = [(r, r.getstate()) for r in managed]
    seeded = []
    for r in managed:
        r.seed(0)
        seeded.append((r, r.getstate()))

    def reseed() -> None:
        for r, state in seeded:
            r.setstate(state)

    try:
        yield reseed
    finally:
        for r, state in saved:
            r.setstate(state)


def _managed_randoms() -> list[Any]:
    """The generators hypothesis seeds for each example: its registry, plus numpy's (registered lazily)."""
    try:
        from hypothesis.internal.entropy import RANDOMS_TO_MANAGE

        refs = list(RANDOMS_TO_MANAGE.data.values())  # type: ignore[attr-defined]  # as hypothesis reads it
        managed = [r for r in (ref() for ref in refs) if r is not None]
    except (ImportError, AttributeError):  # pragma: no cover - another hypothesis: the standard ones
        managed = [random]
    numpy = sys.modules.get("numpy")
    if numpy is not None and not any(getattr(r, "getstate", None) == numpy.random.get_state for r in managed):
        managed.append(_NumpyGlobal(numpy))
    return managed


class _NumpyGlobal:
    """numpy's global generator with the ``seed``/``getstate``/``setstate`` of ``random``."""

    def __init__(self, numpy: Any) -> None:
        self.seed, self.getstate, self.setstate = numpy.random.seed, numpy.random.get_state, numpy.random.set_state
