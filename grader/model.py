"""The typed values that pass between the pipeline's steps.

All are frozen dataclasses: a step receives one, returns another, and never mutates what it was given.
read -> :class:`Submission`; execute -> :class:`Execution`; suites -> tuple of :class:`TestOutcome`;
score -> :class:`Report`. :class:`Lesson` is the data an instructor writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

QuestionKind = Literal["value", "choice", "function"]
Reveal = Literal["never", "expected"]
"""What a learner's feedback may state: ``never`` the answer (an expected value, the right letter), or the
``expected`` results of the checks. The teaching assistant's views always show them."""
REVEAL_POLICIES: tuple[Reveal, ...] = get_args(Reveal)


@dataclass(frozen=True)
class Kind:
    """What one kind of question is, as every module that treats kinds differently reads it (never its name)."""

    name: QuestionKind
    reveal: Reveal
    """What its feedback reveals to learners by default (lesson.toml's ``reveal`` overrides it per question): the
    answer of a by-hand value or a choice never; a function's checks may show their expected results, which are
    the lesson's to compute, not to copy."""
    is_called: bool
    """The learner writes a function the hidden tests call: its reference stands in for it while later questions
    are tested (:meth:`Lesson.stand_ins`), lesson.toml's ``uses`` may name it, and self-check warms up for it."""
    audited: bool
    """The lesson's audit mutates its solution to see whether the hidden suites notice (``grade audit``)."""


#: Every kind of question, by name: the one table of kinds. The lesson loader accepts exactly these, and
#: ``tests/test_registries.py`` checks it against :data:`QuestionKind` and that no module compares a kind's name.
KINDS: dict[QuestionKind, Kind] = {
    kind.name: kind
    for kind in (
        Kind("value", reveal="never", is_called=False, audited=False),
        Kind("choice", reveal="never", is_called=False, audited=False),
        Kind("function", reveal="expected", is_called=True, audited=True),
    )
}
TestStatus = Literal["passed", "failed", "not-attempted", "missing", "error"]
QuestionStatus = Literal["passed", "partial", "failed", "not-attempted", "missing", "error"]
ReportStatus = Literal["graded", "timed-out", "crashed", "unreadable"]
ParamValue = int | float | str
"""One value of a learner parameter: a number, or a name shown in the text (an accelerator's)."""
Params = tuple[tuple[str, ParamValue], ...]
"""A learner's numbers: each field of the lesson's parameters and its value, in declaration order."""


@dataclass(frozen=True)
class LessonParam:
    """One learner parameter a lesson declares (``[params.<name>]`` in lesson.toml): the values it may take.

    Each choice is a set of fields drawn together (an accelerator's name and its bandwidth); a parameter with
    plain values has one field, its own name. ``default`` is the choice the lesson's own pages show.
    """

    name: str
    choices: tuple[Params, ...]
    default: int = 0
    questions: tuple[str, ...] = ()
    """The questions whose answers depend on this parameter."""

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(field for field, _ in self.choices[0])


@dataclass(frozen=True)
class Question:
    """One graded item of a lesson; ``id`` is the variable or function name the learner fills in."""

    id: str
    kind: QuestionKind
    points: float
    hint: str = ""
    title: str = ""
    uses: tuple[str, ...] = ()
    """Earlier lesson functions this one is meant to call (documentation, kept for compatibility: while a
    question is tested every earlier function question is answered by the reference anyway)."""
    reveal: Reveal = "never"
    """See :data:`Reveal`; the lesson loader gives each kind its default (:data:`KINDS`)."""

    @property
    def is_called(self) -> bool:
        """See :attr:`Kind.is_called`."""
        return KINDS[self.kind].is_called


@dataclass(frozen=True)
class Lesson:
    """A lesson definition: its questions and where its notebook, solution and hidden suites live."""

    id: str
    title: str
    root: Path
    questions: tuple[Question, ...]
    suites: Path
    solution: Path
    notebook: Path
    params: tuple[LessonParam, ...] = ()
    """Learner parameters (grader/params.py): each learner's own numbers for the questions that use them."""

    @property
    def max_score(self) -> float:
        return sum(q.points for q in self.questions)

    def question(self, qid: str) -> Question:
        for q in self.questions:
            if q.id == qid:
                return q
        known = ", ".join(q.id for q in self.questions)
        raise KeyError(f"lesson {self.id!r} has no question {qid!r}; its questions are: {known}")

    @property
    def stand_ins(self) -> dict[str, tuple[str, ...]]:
        """For each function question, the lesson functions the reference stands in for while it is tested.

        Every function question that comes before it in the lesson, so a bug costs points once, in its own
        question; never a later one, so nobody earns points by calling an answer they did not write.
        """
        lent: dict[str, tuple[str, ...]] = {}
        earlier: tuple[str, ...] = ()
        for q in self.questions:
            if q.is_called:
                lent[q.id] = earlier
                earlier += (q.id,)
        return lent


@dataclass(frozen=True)
class Cell:
    """A code cell as the learner left it. ``skip`` marks self-check cells the grader does not run."""

    index: int
    source: str
    skip: bool = False


@dataclass(frozen=True)
class Submission:
    """A readable notebook: its code cells, the lesson it declares (if any) and a content hash."""

    path: Path
    cells: tuple[Cell, ...]
    lesson_id: str | None
    digest: str
    params: Params | None = None
    """The learner parameters this notebook is graded on, set by the caller that knows whose it is (a batch from
    the learner's identity); None: the display copy below, else the lesson's defaults (grader/params.py)."""
    shown_params: Params = ()
    """The display copy of its learner's numbers that the release wrote into the notebook's metadata."""
    shown_learner: str | None = None
    """Whose notebook the release says it is (``metadata.grader.learner``); never trusted for grading."""


@dataclass(frozen=True)
class CellError:
    """An exception raised at the top level of one cell; execution went on after it."""

    index: int
    ename: str
    evalue: str
    preview: str


@dataclass(frozen=True)
class Execution:
    """What running the notebook's cells produced, as seen from the trusted side."""

    cell_errors: tuple[CellError, ...] = ()
    more_cell_errors: int = 0
    """Cells that raised beyond those in ``cell_errors`` (the worker lists at most ``protocol.MAX_CELL_ERRORS``)."""
    isolation: str = ""
    seconds: float = 0.0
    failure: str | None = None
    """Set when the notebook as a whole could not run (timeout, crash): every question then scores 0."""


@dataclass(frozen=True)
class TestOutcome:
    """One hidden test's result as pytest reported it; only ``passed`` earns points."""

    __test__ = False  # not a pytest test class, despite the name

    question: str
    name: str
    weight: float
    status: TestStatus
    message: str = ""
    stood_in: tuple[str, ...] = ()
    """Earlier questions' functions whose reference stand-in the learner's code called during this test."""
    carried: tuple[str, ...] = ()
    """Earlier by-hand answers, wrong, that this test's answer was credited for following from (carried forward)."""
    slip: bool = False
    """Failed with a known slip of the lesson on the learner's own numbers named (``KnownSlip``): never a copy."""


@dataclass(frozen=True)
class QuestionResult:
    id: str
    score: float
    max_score: float
    status: QuestionStatus
    feedback: tuple[str, ...] = ()
    """What the learner reads: the answer left out unless the question's ``reveal`` policy shows it."""
    staff_feedback: tuple[str, ...] = ()
    """What the teaching assistant reads: the same sentences with the expected values; () when identical."""

    @property
    def staff(self) -> tuple[str, ...]:
        """The teaching assistant's feedback lines."""
        return self.staff_feedback or self.feedback


@dataclass(frozen=True)
class Report:
    """The graded result of one notebook: what ``grade --json`` prints."""

    lesson: str
    path: str
    score: float
    max_score: float
    questions: tuple[QuestionResult, ...]
    errors: tuple[str, ...] = ()
    isolation: str = ""
    digest: str = ""
    status: ReportStatus = "graded"
    """``graded``; ``timed-out`` or ``crashed`` when the notebook could not run to the end (the reason is the
    last of ``errors`` and every question scores 0); ``unreadable`` when a batch could not read the file."""
    params: Params = ()
    """The learner parameters it was graded on (grader/params.py): what a feedback page fills a hint's
    ``{field}`` with; () for a lesson without them."""


@dataclass(frozen=True)
class OutlineLesson:
    """One lesson's place in its chapter: its id and what it needs from the lessons before it."""

    id: str
    needs: str = ""


@dataclass(frozen=True)
class Outline:
    """A chapter as its instructor orders it (``chapter.toml`` beside the lesson folders): the learners' index,
    and the column order of the teaching assistants' chapter view."""

    title: str
    objective: str
    lessons: tuple[OutlineLesson, ...]
