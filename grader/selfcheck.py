"""Self-check inside the notebook: ``check("generate")``, ``check_all()`` and ``hint("generate")``.

The notebook's first cell calls ``connect("decode", globals())``, which hands us the kernel's namespace
explicitly. The same hidden tests the grader uses run against it, in this kernel, so answers come back
in well under a second once the suites are loaded (they start loading in the background at connect time).

This is for the learner's benefit only: it runs their code in their own kernel, with no isolation. The
grade that counts comes from ``grade``, which runs the notebook in a separate worker.

A notebook released with the course service calls ``connect_service`` instead (:class:`ServiceSelfCheck`): the
same helpers, and ``submit``, but nothing of the lesson is in this kernel; each check is a request to the service
(:mod:`grader.service.client`), printed here with the same :func:`describe`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.config import DEFAULT_LIMITS, FEEDBACK_COLUMNS, Limits
from grader.model import Lesson, Params, QuestionResult
from grader.params import default_params, from_mapping, in_order, is_integrity_flag, is_valid, render
from grader.suites.namespace import NamespaceTarget as NamespaceTarget  # re-exported: integrations and tests use it
from grader.text import plain, wrapped

if TYPE_CHECKING:
    from grader.service.client import Service
    from grader.suites.session import SuiteSession


class SelfCheck:
    """The self-check helpers for one lesson, bound to one notebook namespace. Each call of a learner function
    has the per-call time limit of ``limits`` (``grade``'s defaults unless given), and each ``check`` or
    ``check_all`` the budget for all its calls that grading gives one notebook, so a notebook whose every function
    is slow costs the learner a bounded wait and the sentence ``grade`` would say."""

    def __init__(
        self, lesson: Lesson, namespace: dict[str, Any], params: Params = (), limits: Limits = DEFAULT_LIMITS
    ) -> None:
        """``params``: the learner's numbers as their released notebook states them (a display copy: the
        official grade recomputes them from who the learner is); the lesson's defaults when not one it can give."""
        self.lesson = lesson
        self.params = in_order(lesson, params) if is_valid(lesson, params) else default_params(lesson)
        self._namespace, self._budget = namespace, limits.budget
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
        target = NamespaceTarget(self._namespace, self._budget)  # one check, one notebook's budget for calls
        return question_results(self.lesson, target, ids, self.params)

    def check(self, question_id: str) -> None:
        """Run the hidden checks of one question against your current answer and print the result."""
        if not self._known(question_id):
            return
        (result,) = self._results([question_id])
        print(describe(result, detail=True, columns=_columns()))

    def check_all(self) -> None:
        """Run every question's checks and print one line each, then your total."""
        results = self._results([q.id for q in self.lesson.questions])
        for result in results:
            print(describe(result, detail=False, columns=_columns()))
        total = sum(r.score for r in results)
        print(f"Total: {total:g} / {self.lesson.max_score:g}")

    def hint(self, question_id: str) -> None:
        """Print the lesson author's hint for one question."""
        if self._known(question_id):
            text = render(self.lesson.question(question_id).hint, self.params)
            print(f"Hint for {question_id}: {text or 'no hint for this one.'}")

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
    question = next((q.id for q in lesson.questions if q.is_called), None)
    if question is None or id(session) in _warmed:
        return
    _warmed.add(id(session))
    from grader.suites.reference import load_reference

    try:
        session.run(NamespaceTarget(vars(load_reference(lesson.solution))), frozenset([question]))
    except Exception:  # noqa: BLE001 - only a warm-up
        pass


def question_results(lesson: Lesson, target: Any, ids: list[str], params: Params | None = None) -> list[QuestionResult]:
    """Run the hidden tests of questions ``ids`` against ``target`` and score each as ``grade`` does, on the
    learner parameters ``params`` (None: the lesson's defaults).

    When a passing test called the reference standing in for an earlier question (or credited an answer carried
    forward from an earlier one), that question's tests run too, to know whether the learner's own answer passed
    (the feedback then says so, as ``grade`` does).
    """
    from grader.score import note_stand_ins, score_question

    session = shared_session(lesson)
    outcomes = session.run(target, frozenset(ids), params)
    known, earlier = {q.id for q in lesson.questions}, set[str]()
    new = {n for o in outcomes if o.status == "passed" for n in (*o.stood_in, *o.carried)}
    while new := (new & known) - earlier - set(ids):
        earlier |= new
        outcomes += session.run(target, frozenset(new), params)
        # an earlier answer that was itself carried forward: the note names the wrong one further up the chain
        new = {n for o in outcomes if o.question in new and o.status == "passed" for n in o.carried}
    scored = [
        score_question(q, [o for o in outcomes if o.question == q.id])
        for q in lesson.questions
        if q.id in earlier or q.id in ids
    ]
    noted = {r.id: r for r in note_stand_ins(scored, outcomes)}
    return [noted[i] for i in ids]


_MARK = {"passed": "✓", "partial": "~", "failed": "✗", "not-attempted": "·", "missing": "✗", "error": "✗"}


#: How far a feedback line is indented under its question's line.
_INDENT = "    "


def _columns() -> int | None:
    """The width printed feedback is wrapped to, at spaces: in a Jupyter kernel, whose frontend (JupyterLab)
    breaks a line wider than the output anywhere, mid-word ("the ti" / "me in seconds"); None (one line per
    sentence, as the grader wrote it) elsewhere, where the terminal or the page wraps. In a kernel is: IPython's
    running shell has a kernel (ipykernel's shell); ipykernel merely imported (a test process, a tool) is not."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return FEEDBACK_COLUMNS if getattr(shell, "kernel", None) is not None else None


def _line(text: str, indent: str, columns: int | None) -> str:
    return wrapped(text, indent, columns) if columns else f"{indent}{plain(text)}"


def describe(result: QuestionResult, detail: bool, columns: int | None = None) -> str:
    """One question's result as self-check prints it; each feedback line wrapped to ``columns`` when given."""
    head = f"{_MARK.get(result.status, '?')} {result.id}: {result.score:g}/{result.max_score:g}"
    if result.status == "passed":
        return "\n".join(
            [f"{head}, all checks pass. Well done!", *(_line(line, _INDENT, columns) for line in result.feedback[1:])]
        )
    if result.status == "not-attempted":
        return f"{head}, not attempted yet: fill in the answer, run its cell, then check again."
    lines = [f"{head}, {result.status}."]
    shown = result.feedback if detail else result.feedback[:1]
    lines += [_line(line, _INDENT, columns) for line in shown]  # printed in Jupyter, and by nbgrader's test cells
    if detail:
        lines.append(f'    Stuck? Try hint("{result.id}").')
    return "\n".join(lines)


def connect(
    lesson_id: str,
    namespace: dict[str, Any],
    lessons: str | Path | None = None,
    params: dict[str, Any] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Callable[[str], None], Callable[[], None], Callable[[str], None]]:
    """Bind the self-check helpers to this notebook: ``check, check_all, hint = connect("decode", globals())``.

    A notebook released to one learner passes their numbers, ``params={...}`` (``grade build --roster``);
    ``limits``: the course's, when it grades with other than ``grade``'s defaults."""
    from grader.lessons import load_lesson

    lesson = load_lesson(lesson_id, Path(lessons) if lessons else None)
    helper = SelfCheck(lesson, namespace, from_mapping(params), limits)
    return helper.check, helper.check_all, helper.hint


class ServiceSelfCheck:
    """The self-check helpers of a notebook released with the course service (``grade build --roster R --service
    URL``): ``check`` and ``check_all`` send the cells this kernel ran to the service, which grades them in its
    sandbox with the hidden suites and answers the learner-safe verdict, printed as local self-check prints it;
    ``hint`` prints the hints the release wrote into the setup cell (offline); ``submit`` hands in the saved
    notebook. Nothing of the lesson is needed on this machine. A failure prints one line, never a traceback."""

    def __init__(self, lesson_id: str, namespace: dict[str, Any], service: Service, hints: dict[str, str]) -> None:
        from grader.service.kernel import record_runs

        self.lesson_id, self.hints = lesson_id, hints
        self._namespace, self._service = namespace, service
        self._runs = record_runs(namespace)  # each cell's last run, for submit's note on unsaved cells

    def check(self, question_id: str) -> None:
        """Send the cells you ran to the course service, have one question checked, and print the result."""
        if self._known(question_id):
            self._checked([question_id], detail=True)

    def check_all(self) -> None:
        """Have every question checked by the course service; print one line each, then your total."""
        self._checked([], detail=False)

    def hint(self, question_id: str) -> None:
        """Print the lesson author's hint for one question (no service needed)."""
        if self._known(question_id):
            print(f"Hint for {question_id}: {self.hints[question_id] or 'no hint for this one.'}")

    def submit(self, path: str | Path | None = None) -> None:
        """Hand in this notebook as saved on disk (save it first: File > Save Notebook) and print the receipt."""
        from grader.service.client import receipt_text
        from grader.service.kernel import notebook_path, read_notebook, unsaved

        found = notebook_path(path, self._namespace)
        notebook = read_notebook(found) if found is not None else None
        if found is None or notebook is None:
            where = f"{found} is not a readable notebook" if found is not None else "this kernel cannot tell its file"
            print(f'Not handed in: {where}; save the notebook and call submit("path/to/notebook.ipynb").')
            return
        changed = unsaved(self._namespace, notebook, self._runs)
        if changed:
            print(
                f"Note: this kernel ran {changed} cell(s) that differ from the saved {found.name}: save first "
                "(File > Save Notebook), then submit again if they should count."
            )
        receipt = self._asked(lambda: self._service.submit(self.lesson_id, notebook))
        if receipt is not None:
            print(receipt_text(receipt))

    def _checked(self, ids: list[str], detail: bool) -> None:
        from grader.service.client import result_of
        from grader.service.kernel import notebook_path, ran_cells, read_notebook

        found = notebook_path(None, self._namespace)
        cells = ran_cells(self._namespace, read_notebook(found) if found is not None else None)
        answer = self._asked(lambda: self._service.check(self.lesson_id, ids, cells))
        if answer is None:
            return
        results = [result_of(q) for q in answer["questions"] if not ids or q["id"] in ids]  # as asked, as locally
        notes = answer.get("errors", [])
        flags = [line for line in notes if is_integrity_flag(line)]  # whose numbers: said once, before the answers
        for line in flags:
            print(_line(f"Note: {line}", "", _columns()))
        for result in results:
            print(describe(result, detail=detail, columns=_columns()))
        for line in notes:
            if line not in flags:
                print(_line(f"Note: {line}", "", _columns()))
        if not ids:
            print(f"Total: {sum(r.score for r in results):g} / {sum(r.max_score for r in results):g}")

    @staticmethod
    def _asked(ask: Callable[[], Any]) -> Any:
        """``ask()``, or None after printing its one-line failure (no traceback in the learner's notebook)."""
        from grader.errors import GraderError

        try:
            return ask()
        except GraderError as err:
            print(plain(str(err)))
            return None

    def _known(self, question_id: str) -> bool:
        if question_id in self.hints:
            return True
        print(f"There is no question {question_id!r} in this lesson. The questions are: {', '.join(self.hints)}.")
        return False


def connect_service(
    lesson_id: str, namespace: dict[str, Any], *, url: str, token: str, hints: dict[str, str]
) -> tuple[Callable[[str], None], Callable[[], None], Callable[[str], None], Callable[..., None]]:
    """Bind the service's self-check helpers to this notebook, as a released notebook's setup cell does:
    ``check, check_all, hint, submit = connect_service("decode", globals(), url=..., token=..., hints={...})``.

    ``hints``: each question's hint, in the lesson's order, on the learner's own numbers (the release writes
    them), so ``hint`` needs nothing but this cell."""
    from grader.service.client import Service

    service = Service(url, token)
    helper = ServiceSelfCheck(lesson_id, namespace, service, dict(hints))
    return helper.check, helper.check_all, helper.hint, helper.submit
