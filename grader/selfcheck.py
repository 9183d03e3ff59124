"""Self-check inside the notebook: ``check("generate")``, ``check_all()`` and ``hint("generate")``.

The notebook's first cell calls ``connect("decode", globals())``, which hands us the kernel's namespace
explicitly. The same hidden tests the grader uses run against it, in this kernel, so answers come back
in well under a second once the suites are loaded (they start loading in the background at connect time).

This is for the learner's benefit only: it runs their code in their own kernel, with no isolation. The
grade that counts comes from ``grade``, which runs the notebook in a separate worker.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.config import DEFAULT_LIMITS
from grader.execute.calls import ResultIdentity, changed_arguments, plain_copy, stood_in
from grader.execute.protocol import ChannelTimeout, RemoteError, Returned
from grader.model import Lesson, QuestionResult
from grader.text import plain

if TYPE_CHECKING:
    from grader.suites.session import SuiteSession


class _Stop(BaseException):
    """Raised inside a learner call that ran past its time limit (see :class:`_Deadline`)."""


class _Deadline:
    """Stops the calling thread's learner call after ``seconds`` by raising :class:`_Stop` in that thread.

    A worker process can be killed; a kernel thread cannot, so this is the in-kernel stand-in for the
    grader's per-call time limit: a loop that never ends costs its own question, as in ``grade``, instead of
    hanging every check after it. It stops Python code (the common ``while True`` loop), not a blocking C
    call. The exception is raised again every ``retry`` seconds in case learner code catches it.

    Deadlines are watched by one long-lived thread (:class:`_Watchdog`): a timer thread per call cost more
    than most of the calls it guarded (a check makes hundreds).
    """

    def __init__(self, seconds: float, retry: float = 0.5) -> None:
        self._thread_id = threading.get_ident()
        self._retry = retry
        self.fired = False
        self.due = time.monotonic() + seconds
        _WATCHDOG.arm(self)

    def _fire(self) -> None:
        """Called by the watchdog, holding its lock, once the deadline has passed (and every ``retry`` after)."""
        self.fired = True
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id), ctypes.py_object(_Stop))
        self.due = time.monotonic() + self._retry

    def disarm(self) -> bool:
        """Stop watching, drop a stop not yet delivered, and say whether the deadline passed."""
        while True:
            try:
                with _WATCHDOG.lock:
                    _WATCHDOG.drop(self)
                    if self.fired:
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id), None)
                return self.fired
            except _Stop:  # delivered while disarming: it still counts as a timeout
                self.fired = True


class _Watchdog:
    """One daemon thread that fires every armed :class:`_Deadline` when it is due.

    It sleeps until the earliest deadline and is woken only when a deadline earlier than that is armed, so
    a call costs a lock, not a thread. Started on first use, and again in a forked child.
    """

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self._armed: dict[int, _Deadline] = {}
        self._waking_at: float | None = None
        self._pid = 0

    def arm(self, deadline: _Deadline) -> None:
        with self.lock:
            if self._pid != os.getpid():
                self._pid, self._armed, self._waking_at = os.getpid(), {}, None
                threading.Thread(target=self._watch, name="self-check-deadlines", daemon=True).start()
            self._armed[id(deadline)] = deadline
            if self._waking_at is None or deadline.due < self._waking_at:
                self.lock.notify()

    def drop(self, deadline: _Deadline) -> None:
        """Forget ``deadline``; the caller holds :attr:`lock`."""
        self._armed.pop(id(deadline), None)

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for deadline in [d for d in self._armed.values() if d.due <= now]:
                    deadline._fire()
                self._waking_at = min((d.due for d in self._armed.values()), default=None)
                self.lock.wait(None if self._waking_at is None else self._waking_at - now)


_WATCHDOG = _Watchdog()


def _copy(value: Any) -> Any:
    """A plain-data copy (callables kept as they are), so self-check treats arguments as grading does."""
    return plain_copy(value)


class NamespaceTarget:
    """A :class:`grader.testing.Target` over a live namespace; values cross as plain copies, as in grading.

    Each call has the grader's per-call time limit (``call_timeout``); a call that runs past it is reported
    as the worker reports it, as a :class:`ChannelTimeout`.
    """

    def __init__(self, namespace: dict[str, Any], call_timeout: float = DEFAULT_LIMITS.call_timeout) -> None:
        self._ns = namespace
        self._call_timeout = call_timeout
        self._results = ResultIdentity()

    def _lookup(self, name: str) -> Any:
        if name not in self._ns:
            raise RemoteError("NotDefined", name)
        return self._ns[name]

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        fn = self._lookup(name)
        deadline = _Deadline(self._call_timeout)
        try:
            try:
                given_args, given_kwargs = _copy(args), _copy(kwargs)  # copies, as across the channel
                with stood_in(self._ns, swaps):
                    result = fn(*given_args, **given_kwargs)
            finally:
                timed_out = deadline.disarm()
            if timed_out:
                raise _Stop
            changed = changed_arguments(given_args, given_kwargs, args, kwargs)
            same_as = self._results.same_as(result, given_args, given_kwargs)
            return Returned(plain_copy(result), tuple(changed), same_as)
        except _Stop:
            raise ChannelTimeout("no answer in time") from None
        except Exception as err:
            raise RemoteError(type(err).__name__, str(err), traceback.format_exc()) from None

    def value(self, name: str) -> Any:
        try:
            return plain_copy(self._lookup(name))
        except TypeError as err:
            raise RemoteError("TypeError", str(err)) from None


class SelfCheck:
    """The self-check helpers for one lesson, bound to one notebook namespace."""

    def __init__(self, lesson: Lesson, namespace: dict[str, Any]) -> None:
        self.lesson = lesson
        self._target = NamespaceTarget(namespace)
        self._error: BaseException | None = None
        self._loading = threading.Thread(target=self._load, name="self-check-suites", daemon=True)
        self._loading.start()

    def _load(self) -> None:
        try:
            _warm_up(self.lesson, shared_session(self.lesson))
        except BaseException as err:  # reported on the first check
            self._error = err

    def _results(self, ids: list[str]) -> list[QuestionResult]:
        self._loading.join()
        if self._error is not None:
            raise self._error
        return question_results(self.lesson, self._target, ids)

    def check(self, question_id: str) -> None:
        """Run the hidden checks of one question against your current answer and print the result."""
        if not self._known(question_id):
            return
        (result,) = self._results([question_id])
        print(describe(result, detail=True))

    def check_all(self) -> None:
        """Run every question's checks and print one line each, then your total."""
        results = self._results([q.id for q in self.lesson.questions])
        for result in results:
            print(describe(result, detail=False))
        total = sum(r.score for r in results)
        print(f"Total: {total:g} / {self.lesson.max_score:g}")

    def hint(self, question_id: str) -> None:
        """Print the lesson author's hint for one question."""
        if self._known(question_id):
            print(f"Hint for {question_id}: {self.lesson.question(question_id).hint or 'no hint for this one.'}")

    def _known(self, question_id: str) -> bool:
        ids = [q.id for q in self.lesson.questions]
        if question_id in ids:
            return True
        print(f"There is no question {question_id!r} in this lesson. The questions are: {', '.join(ids)}.")
        return False


_sessions: dict[tuple[str, Path], SuiteSession] = {}
_sessions_lock = threading.Lock()


def shared_session(lesson: Lesson) -> SuiteSession:
    """This process's :class:`grader.suites.session.SuiteSession` for ``lesson``, started on first use.

    One per lesson per kernel: the self-check helpers and nbgrader's test cells
    (:mod:`grader.integrations.nbgrader`) share it, so the suites are collected once. A failed start is not
    remembered; the next call tries again.
    """
    from grader.suites.session import SuiteSession

    key = (lesson.id, lesson.suites)
    with _sessions_lock:
        if key not in _sessions:
            _sessions[key] = SuiteSession(lesson).__enter__()
        return _sessions[key]


_warmed: set[int] = set()


def _warm_up(lesson: Lesson, session: SuiteSession) -> None:
    """Run one function question's tests once against the solution, in the background after loading.

    Hypothesis sets itself up on the first generated test a thread runs (~35 ms: a garbage collection to
    register its random generator, strategy caches); paying that here keeps it out of the learner's first
    ``check``. Once per session; a failure here is left for the real check to report.
    """
    question = next((q.id for q in lesson.questions if q.kind == "function"), None)
    if question is None or id(session) in _warmed:
        return
    _warmed.add(id(session))
    from grader.suites.reference import load_reference

    try:
        session.run(NamespaceTarget(vars(load_reference(lesson.solution))), frozenset([question]))
    except Exception:  # noqa: BLE001 - only a warm-up
        pass


def question_results(lesson: Lesson, target: Any, ids: list[str]) -> list[QuestionResult]:
    """Run the hidden tests of questions ``ids`` against ``target`` and score each as ``grade`` does.

    When a passing test called the reference standing in for an earlier question, that question's tests run
    too, to know whether the learner's own answer passed (the feedback then says so, as ``grade`` does).
    """
    from grader.score import note_stand_ins, score_question

    session = shared_session(lesson)
    outcomes = session.run(target, frozenset(ids))
    earlier = {n for o in outcomes if o.status == "passed" for n in o.stood_in} - set(ids)
    earlier &= {q.id for q in lesson.questions}
    if earlier:
        outcomes += session.run(target, frozenset(earlier))
    scored = [
        score_question(q, [o for o in outcomes if o.question == q.id])
        for q in lesson.questions
        if q.id in earlier or q.id in ids
    ]
    noted = {r.id: r for r in note_stand_ins(scored, outcomes)}
    return [noted[i] for i in ids]


_MARK = {"passed": "✓", "partial": "~", "failed": "✗", "not-attempted": "·", "missing": "✗", "error": "✗"}


def describe(result: QuestionResult, detail: bool) -> str:
    head = f"{_MARK.get(result.status, '?')} {result.id}: {result.score:g}/{result.max_score:g}"
    if result.status == "passed":
        return "\n".join([f"{head}, all checks pass. Well done!", *(f"    {line}" for line in result.feedback[1:])])
    if result.status == "not-attempted":
        return f"{head}, not attempted yet: fill in the answer, run its cell, then check again."
    lines = [f"{head}, {result.status}."]
    shown = result.feedback if detail else result.feedback[:1]
    lines += [f"    {plain(line)}" for line in shown]  # printed in Jupyter, and in nbgrader's kernel by its test cells
    if detail:
        lines.append(f'    Stuck? Try hint("{result.id}").')
    return "\n".join(lines)


def connect(
    lesson_id: str, namespace: dict[str, Any], lessons: str | Path | None = None
) -> tuple[Callable[[str], None], Callable[[], None], Callable[[str], None]]:
    """Bind the self-check helpers to this notebook: ``check, check_all, hint = connect("decode", globals())``."""
    from grader.lessons import load_lesson

    helper = SelfCheck(load_lesson(lesson_id, Path(lessons) if lessons else None), namespace)
    return helper.check, helper.check_all, helper.hint
