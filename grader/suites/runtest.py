"""How one hidden test runs: pytest's runner protocol, or its three steps without the hooks nobody here needs.

Why: pytest's ``runtestprotocol`` runs a test in three phases (setup, call, teardown), and for each calls a hook
through every plugin that implements it, times it (``CallInfo``) and builds a report through another hook. For
the hidden suites' tests, most of which take tens of microseconds, that bookkeeping was most of the time: for a
Decode notebook, 26 ms of the 27 ms its 65 tests took in process, of which 11.5 ms in the tests themselves.

So a test that no plugin here treats specially runs as pytest's own runner would run it, without the hooks:
its fixtures set up (``SetupState.setup``), its function called (``Item.runtest``, which still calls the
``pytest_pyfunc_call`` hook: the examples' replay, :mod:`grader.suites.replay`) and its fixtures torn down
(``SetupState.teardown_exact``), each step's exception kept as the phase's report would keep it (the first one
wins). A test runs the whole protocol instead (:func:`runs_lean` says which) when something could make the
hooks matter:

- a ``@given`` test, or one with hypothesis's decorators: hypothesis's plugin wraps its call (its reporter,
  its statistics, its check that ``@settings`` is not used without ``@given``);
- a ``skip``, ``skipif`` or ``xfail`` mark: pytest's skipping plugin reads them in the hooks;
- a fixture whose plugin hooks into the phases or their reports (``capsys`` and its kin, ``tmp_path``);
- any implementation of the phases' or the reports' hooks beyond those of :data:`_BUILTIN` (a course's
  ``conftest.py``, a plugin given to the session): whatever it does, it gets to do it.

``tests/test_runtest.py`` runs every lesson's corpus both ways and compares every outcome and message.
"""

from __future__ import annotations

from typing import Any

import pytest

#: The plugins whose implementations of the phases' hooks the lean path may leave out, by the name pytest
#: registers them under: what they do for a test that :func:`runs_lean` lets through is nothing a verdict
#: depends on (the runner's own steps are the lean path; capture is off; a thread's uncaught exception is a
#: warning; skipping, hypothesis and tmp_path act only on tests that are not let through).
_BUILTIN = frozenset(
    {
        "runner",
        "skipping",
        "capturemanager",
        "threadexception",
        "unittest",
        "tmpdir",
        "_hypothesis_pytestplugin",
    }
)
_PHASE_HOOKS = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown", "pytest_runtest_makereport")
_MARKS = ("skip", "skipif", "xfail")
#: Fixtures whose plugin acts in the phases' hooks (capture) or in the report's (tmp_path's retention).
_HOOKED_FIXTURES = frozenset(
    {"capsys", "capsysbinary", "capfd", "capfdbinary", "capteesys", "tmp_path", "tmpdir", "tmp_path_factory"}
)
#: What hypothesis's plugin checks on a test without ``@given`` (it refuses hypothesis's other decorators there).
_HYPOTHESIS_ATTRIBUTES = (
    "is_hypothesis_test",
    "hypothesis_explicit_examples",
    "_hypothesis_internal_use_seed",
    "_hypothesis_internal_settings_applied",
    "_hypothesis_internal_use_reproduce_failure",
    "is_hypothesis_strategy_function",
)


def runs_lean(item: pytest.Item, own: object) -> bool:
    """Whether ``item`` may run without the phases' hooks (see the module's docstring); ``own`` is the session's
    plugin, whose report hook the caller replaces by keeping each phase's exception itself."""
    if type(item) is not pytest.Function:  # a unittest case's function is one that its plugin reports
        return False
    if any(hasattr(item.obj, name) for name in _HYPOTHESIS_ATTRIBUTES):
        return False
    if any(True for name in _MARKS for _ in item.iter_markers(name)):
        return False
    if _HOOKED_FIXTURES.intersection(item.fixturenames):
        return False
    for hook in _PHASE_HOOKS:
        for impl in getattr(item.ihook, hook).get_hookimpls():
            if impl.plugin is not own and impl.plugin_name not in _BUILTIN:
                return False
    return True


def run_lean(item: pytest.Function, nextitem: pytest.Item | None = None) -> BaseException | None:
    """Set up, call and tear down ``item`` as pytest's runner does, without the phases' hooks; returns the first
    exception a phase raised (None: it passed). ``KeyboardInterrupt`` and ``pytest.exit`` propagate, as pytest
    lets them."""
    state: Any = item.session._setupstate
    if not item._request:  # the last run of this item let its request go (as runtestprotocol does)
        item._initrequest()
    failed: BaseException | None = None
    try:
        try:
            state.setup(item)
            item.runtest()
        except (KeyboardInterrupt, pytest.exit.Exception):
            raise
        except BaseException as err:  # noqa: BLE001 - a phase's failure, as CallInfo keeps it
            failed = err
        try:
            state.teardown_exact(nextitem)
        except (KeyboardInterrupt, pytest.exit.Exception):
            raise
        except BaseException as err:  # noqa: BLE001
            failed = failed or err
    finally:
        item._request = False  # type: ignore[assignment]
        item.funcargs = None  # type: ignore[assignment]
    return failed
