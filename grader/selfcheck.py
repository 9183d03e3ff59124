"""Self-check inside the notebook: ``check("generate")``, ``check_all()`` and ``hint("generate")``.

The notebook's first cell calls ``connect("decode", globals())``, which hands us the kernel's namespace
explicitly. The same hidden tests the grader uses run against it, in this kernel, so answers come back
in well under a second once the suites are loaded (they start loading in the background at connect time).

This is for the learner's benefit only: it runs their code in their own kernel, with no isolation. The
grade that counts comes from ``grade``, which runs the notebook in a separate worker.
"""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Any, Callable

from grader.execute.channel import RemoteError, to_plain
from grader.model import Lesson, QuestionResult


class NamespaceTarget:
    """A :class:`grader.testing.Target` over a live namespace; values cross as plain copies, as in grading."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._ns = namespace

    def _lookup(self, name: str) -> Any:
        if name not in self._ns:
            raise RemoteError("NotDefined", name)
        return self._ns[name]

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]) -> Any:
        fn = self._lookup(name)
        missing = object()
        saved = {k: self._ns.get(k, missing) for k in swaps}
        self._ns.update(swaps)
        try:
            result = fn(*args, **kwargs)
            return to_plain(result, export=lambda f: f)
        except Exception as err:
            raise RemoteError(type(err).__name__, str(err), traceback.format_exc()) from None
        finally:
            for k, old in saved.items():
                if old is missing:
                    self._ns.pop(k, None)
                else:
                    self._ns[k] = old

    def value(self, name: str) -> Any:
        try:
            return to_plain(self._lookup(name), export=lambda f: f)
        except TypeError as err:
            raise RemoteError("TypeError", str(err)) from None


class SelfCheck:
    """The self-check helpers for one lesson, bound to one notebook namespace."""

    def __init__(self, lesson: Lesson, namespace: dict[str, Any]) -> None:
        self.lesson = lesson
        self._target = NamespaceTarget(namespace)
        self._session: Any = None
        self._error: BaseException | None = None
        self._loading = threading.Thread(target=self._load, name="self-check-suites", daemon=True)
        self._loading.start()

    def _load(self) -> None:
        from grader.suites.session import SuiteSession

        try:
            self._session = SuiteSession(self.lesson).__enter__()
        except BaseException as err:  # reported on the first check
            self._error = err

    def _results(self, ids: list[str]) -> list[QuestionResult]:
        from grader.score import score_question

        self._loading.join()
        if self._error is not None:
            raise self._error
        outcomes = self._session.run(self._target, frozenset(ids))
        return [score_question(self.lesson.question(i), [o for o in outcomes if o.question == i]) for i in ids]

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


_MARK = {"passed": "✓", "partial": "~", "failed": "✗", "not-attempted": "·", "missing": "✗", "error": "✗"}


def describe(result: QuestionResult, detail: bool) -> str:
    head = f"{_MARK.get(result.status, '?')} {result.id}: {result.score:g}/{result.max_score:g}"
    if result.status == "passed":
        return f"{head}, all checks pass. Well done!"
    if result.status == "not-attempted":
        return f"{head}, not attempted yet: fill in the answer, run its cell, then check again."
    lines = [f"{head}, {result.status}."]
    shown = result.feedback if detail else result.feedback[:1]
    lines += [f"    {line}" for line in shown]
    if detail:
        lines.append(f'    Stuck? Try hint("{result.id}").')
    return "\n".join(lines)


def connect(lesson_id: str, namespace: dict[str, Any], lessons: str | Path | None = None) -> tuple[
    Callable[[str], None], Callable[[], None], Callable[[str], None]
]:
    """Bind the self-check helpers to this notebook: ``check, check_all, hint = connect("decode", globals())``."""
    from grader.lessons import load_lesson

    helper = SelfCheck(load_lesson(lesson_id, Path(lessons) if lessons else None), namespace)
    return helper.check, helper.check_all, helper.hint
