"""Learner parameters: each learner works a lesson's by-hand parts on their own numbers.

(Not :mod:`grader.solution_variants`, which is about solution notebooks with one extra cell.) A lesson declares
its parameters in ``lesson.toml``; each takes one of a list of values, or a range with a step::

    [params.params_b]                 # billions of parameters: 9, 11, ..., 41
    range = [9, 41]
    step = 2
    default = 13                      # what the lesson's own pages show
    questions = ["gb_per_step", "ms_per_token", "max_tokens_per_s"]

    [params.accelerator]              # a choice of several fields drawn together; the first is the page's
    values = [{ gpu = "NVIDIA H100 SXM", tb_per_s = 3.35 }, { gpu = "NVIDIA H200 SXM", tb_per_s = 4.8 }]

The lesson source names the fields in braces, ``{params_b}``, in its text and in the answer cells of the
questions that use them (the solution computes from them); :func:`render` fills them in. Who gets which numbers
is one rule, :func:`draw`: an HMAC-SHA256, keyed by the course secret, of the lesson and the learner's identity
(the LMS identity where there is one, else the batch's learner id), mapped onto each parameter's values. A
learner cannot choose theirs (they do not know the secret), and a teaching assistant who has it reproduces
anyone's (``grade params LESSON --learner ID``). The secret is read from ``$GRADER_COURSE_SECRET``, else from
the file ``.grader-secret`` in the lessons folder, which is never committed (:func:`course_secret`).

A notebook released to a learner carries a *display copy* of their numbers in its metadata
(``metadata.grader.params``, ``metadata.grader.learner``). Grading recomputes the numbers from the identity and
never trusts the copy; a copy that disagrees is flagged (:func:`swap_note`): two learners who swapped notebooks.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.environment import SECRET_ENV
from grader.errors import CourseSecretMissing, LessonError
from grader.model import Lesson, LessonParam, Params, ParamValue, QuestionResult, Submission, TestOutcome

#: The file, in the lessons folder, that holds the course secret when ``$GRADER_COURSE_SECRET`` is not set.
SECRET_FILE = ".grader-secret"
#: A secret shorter than this is refused: a guessable secret would let a learner compute everyone's numbers.
MIN_SECRET_CHARS = 16
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# -- declared in lesson data ------------------------------------------------------------------------------


def parse_params(data: Mapping[str, Any], where: Path, questions: Sequence[str]) -> tuple[LessonParam, ...]:
    """The ``[params.<name>]`` tables of a lesson definition, checked; :class:`LessonError` says what to fix."""
    declared: list[LessonParam] = []
    seen: set[str] = set()
    for name, table in data.items():
        if not isinstance(table, dict):
            raise LessonError(f"In {where}, [params.{name}] must be a table with `values` or `range` and `step`.")
        param = _parse_one(str(name), table, f"In {where}, [params.{name}]")
        unknown = sorted(set(param.questions) - set(questions))
        if unknown:
            raise LessonError(f"In {where}, [params.{name}] `questions` names {unknown}, not questions of the lesson.")
        twice = sorted(seen & set(param.fields))
        if twice:
            raise LessonError(f"In {where}, the field {twice[0]!r} is declared by two parameters; rename one.")
        seen.update(param.fields)
        declared.append(param)
    return tuple(declared)


def _parse_one(name: str, table: Mapping[str, Any], where: str) -> LessonParam:
    extra = sorted(set(table) - {"values", "range", "step", "default", "questions"})
    if extra:
        raise LessonError(f"{where} has unknown keys {extra}: write `values`, or `range` and `step`.")
    questions = tuple(str(q) for q in table.get("questions", ()))
    if "values" in table and "range" not in table:
        values = table["values"]
        if not isinstance(values, list) or not values:
            raise LessonError(f"{where} `values` must be a non-empty list.")
        choices = tuple(_choice(name, value, where) for value in values)
        fields = [tuple(f for f, _ in c) for c in choices]
        if any(f != fields[0] for f in fields):
            raise LessonError(f"{where}: every value must have the same fields ({', '.join(fields[0])}).")
        default = 0
        if "default" in table:
            matching = [i for i, c in enumerate(choices) if len(c) == 1 and c[0][1] == table["default"]]
            if not matching:
                raise LessonError(f"{where} `default` must be one of its values.")
            default = matching[0]
    elif "range" in table and "values" not in table:
        choices, default = _range(name, table, where)
    else:
        raise LessonError(f"{where} needs either `values = [...]` or `range = [low, high]` with `step`.")
    if len(set(choices)) != len(choices):
        raise LessonError(f"{where} lists a value twice.")
    return LessonParam(name, choices, default, questions)


def _choice(name: str, value: Any, where: str) -> Params:
    fields = value.items() if isinstance(value, dict) else [(name, value)]
    choice: list[tuple[str, ParamValue]] = []
    for field, v in fields:
        if not _FIELD.match(str(field)):
            raise LessonError(f"{where}: {field!r} is not a name the text can refer to as {{{field}}}.")
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise LessonError(f"{where}: {field} = {v!r} must be a number or a string.")
        choice.append((str(field), v))
    return tuple(choice)


def _range(name: str, table: Mapping[str, Any], where: str) -> tuple[tuple[Params, ...], int]:
    bounds, step = table["range"], table.get("step")
    numbers = (int, float)
    if not (
        isinstance(bounds, list)
        and len(bounds) == 2
        and all(isinstance(b, numbers) and not isinstance(b, bool) for b in [*bounds, step])
        and isinstance(step, numbers)
        and step > 0
        and bounds[0] <= bounds[1]
    ):
        raise LessonError(f"{where} needs `range = [low, high]` (low <= high) and a `step` above 0.")
    low, high = bounds
    count = int((high - low) / step + 1e-9) + 1
    whole = all(isinstance(x, int) for x in (low, high, step))
    values = [low + k * step if whole else round(low + k * step, 12) for k in range(count)]
    default = table.get("default", low)
    if default not in values:
        raise LessonError(f"{where} `default` = {default!r} is not one of the range's values.")
    return tuple(((name, v),) for v in values), values.index(default)


def fields(lesson: Lesson) -> tuple[str, ...]:
    """Every field name a lesson's text may refer to, in declaration order."""
    return tuple(field for param in lesson.params for field in param.fields)


def default_params(lesson: Lesson) -> Params:
    """The numbers on the lesson's own pages (the committed notebooks, a notebook released to nobody)."""
    return tuple(item for param in lesson.params for item in param.choices[param.default])


def every_params(lesson: Lesson) -> list[Params]:
    """Every set of numbers a learner can get (the default first): what lesson checks run over."""
    combos = [tuple(item for choice in combo for item in choice) for combo in _product(lesson.params)]
    first = default_params(lesson)
    return [first, *(c for c in combos if c != first)]


def _product(params: Sequence[LessonParam]) -> list[tuple[Params, ...]]:
    return list(itertools.product(*(p.choices for p in params)))


def spread(lesson: Lesson) -> list[Params]:
    """A few sets of numbers that between them take every value of every parameter, the page's first: what the
    mistakes corpus and the audit grade on (every combination would multiply their cost)."""
    count = max((len(p.choices) for p in lesson.params), default=0)
    sets = [
        tuple(item for p in lesson.params for item in p.choices[(p.default + k) % len(p.choices)]) for k in range(count)
    ]
    return sets or [()]


def in_order(lesson: Lesson, params: Params) -> Params:
    """``params`` in the lesson's field order (a notebook's metadata comes back with its keys sorted), or () when
    they are not the lesson's fields."""
    values = dict(params)
    if sorted(values) != sorted(fields(lesson)) or len(values) != len(params):
        return ()
    return tuple((field, values[field]) for field in fields(lesson))


def is_valid(lesson: Lesson, params: Params) -> bool:
    """Whether ``params`` is one set of numbers the lesson can give (a display copy is checked with this)."""
    if not lesson.params or not in_order(lesson, params):
        return False
    values = dict(params)
    return all(any(all(values[f] == v for f, v in choice) for choice in p.choices) for p in lesson.params)


# -- one rule for who gets which --------------------------------------------------------------------------


def identity_of(learner: str, lms_identity: str = "") -> str:
    """Which identity draws a learner's numbers: the LMS identity where there is one (the LMS's own key for the
    learner: a Canvas user id, a Gradescope email), else the learner id. The release, the batch, Gradescope and
    nbgrader all use this rule, so each agrees on whose numbers a notebook is graded on."""
    return lms_identity.strip() or learner


def draw(lesson: Lesson, identity: str, secret: bytes) -> Params:
    """The numbers of the learner ``identity``: each parameter's value chosen by HMAC-SHA256(secret, lesson,
    identity, parameter). The same identity always gets the same numbers; without the secret nobody can tell."""
    who = identity.strip()
    if not who:
        raise LessonError(f"A learner of lesson {lesson.id!r} has no identity, so their numbers cannot be drawn.")
    chosen: list[tuple[str, ParamValue]] = []
    for param in lesson.params:
        message = "\0".join((lesson.id, who, param.name)).encode()
        digest = hmac.new(secret, message, hashlib.sha256).digest()
        chosen.extend(param.choices[int.from_bytes(digest[:8], "big") % len(param.choices)])
    return tuple(chosen)


def secret_path(lessons_root: Path) -> Path:
    return lessons_root / SECRET_FILE


_TAKEN: dict[str, str] = {}
"""``$GRADER_COURSE_SECRET`` once :func:`take_secret_from_environment` has moved it here from ``os.environ``."""
_PR_SET_DUMPABLE = 4


def take_secret_from_environment() -> None:
    """Move ``$GRADER_COURSE_SECRET`` from this process's environment into its memory, before it starts any process.

    Every process started from then on (grading processes, the daemon, workers) is started without it, so their
    ``/proc/PID/environ`` never holds it. This process's own ``/proc/PID/environ`` shows the environment it was
    *started* with, which still holds it: so this process becomes non-dumpable (``PR_SET_DUMPABLE`` 0, as
    ssh-agent does), which closes that file, its memory and ptrace to every process without ``CAP_SYS_PTRACE``,
    learner code of the grader's own uid included (SECURITY.md, "The course secret"). The ``grade`` command
    calls it first thing (:func:`grader.cli.main`); a library caller of a batch gets
    :func:`secret_kept_from_children` instead."""
    text = os.environ.pop(SECRET_ENV, None)
    if text is None:
        return
    _TAKEN[SECRET_ENV] = text
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: no /proc to read it from
        pass


@contextmanager
def secret_kept_from_children() -> Iterator[None]:
    """While it lasts, ``$GRADER_COURSE_SECRET`` is out of ``os.environ`` (kept in memory), so the processes started
    meanwhile (a batch's grading processes) are started without it; it is put back after, for a library caller
    (the ``grade`` command has taken it out for good already: :func:`take_secret_from_environment`)."""
    text = os.environ.pop(SECRET_ENV, None)
    if text is None:
        yield
        return
    _TAKEN[SECRET_ENV] = text
    try:
        yield
    finally:
        del _TAKEN[SECRET_ENV]
        os.environ.setdefault(SECRET_ENV, text)


def course_secret(lessons_root: Path) -> bytes | None:
    """The course secret: ``$GRADER_COURSE_SECRET`` (or where :func:`take_secret_from_environment` put it), else the
    lessons folder's ``.grader-secret``; None if neither."""
    text = os.environ.get(SECRET_ENV) or _TAKEN.get(SECRET_ENV)
    if not text:
        path = secret_path(lessons_root)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as err:
            raise CourseSecretMissing(
                f"The course secret {path} cannot be read ({err}); fix its permissions."
            ) from None
    secret = text.strip()
    if len(secret) < MIN_SECRET_CHARS:
        raise CourseSecretMissing(
            f"The course secret is shorter than {MIN_SECRET_CHARS} characters, so learners could guess it: "
            f"put a long random one in {SECRET_ENV} or {secret_path(lessons_root)} "
            '(python3 -c "import secrets; print(secrets.token_urlsafe(32))").'
        )
    return secret.encode()


def require_secret(lesson: Lesson, lessons_root: Path) -> bytes:
    """The course secret, for a lesson with learner parameters; :class:`CourseSecretMissing` says how to set it."""
    secret = course_secret(lessons_root)
    if secret is None:
        raise CourseSecretMissing(
            f"Lesson {lesson.id!r} gives each learner their own numbers, drawn with the course secret, and there is "
            f"none: set {SECRET_ENV}, or write one line to {secret_path(lessons_root)} "
            '(python3 -c "import secrets; print(secrets.token_urlsafe(32))" > that file). Never commit it, and '
            "keep the same secret for the whole course: it decides every learner's numbers."
        )
    return secret


def learner_params(lesson: Lesson, identity: str, secret: bytes | None) -> Params:
    """The numbers a grade that knows the learner uses (a batch, Gradescope, nbgrader): drawn from ``identity``
    when the course has a secret; a course without one gives everyone the lesson page's numbers, as before."""
    if not lesson.params:
        return ()
    return default_params(lesson) if secret is None else draw(lesson, identity, secret)


def needs_secret(lesson: Lesson, submissions: Sequence[Submission], lessons_root: Path) -> bytes | None:
    """The course secret for grading ``submissions`` one by one (a Gradescope submission); None for a lesson
    without parameters or a course without a secret. :class:`CourseSecretMissing` when one of them was released
    with its learner's own numbers (:func:`unconfirmed_numbers`) and there is no secret to recompute them.

    A batch never calls this: there, such a notebook is refused alone, so one learner's metadata cannot stop a
    class (:mod:`grader.batch.run`)."""
    secret = course_secret(lessons_root) if lesson.params else None
    if any(unconfirmed_numbers(lesson, s, secret) for s in submissions):
        require_secret(lesson, lessons_root)
    return secret


def unconfirmed_numbers(lesson: Lesson, submission: Submission, secret: bytes | None) -> str | None:
    """Why ``submission`` is not graded, when the course has no secret and its display copy is a set of numbers
    the lesson can give other than the page's: it was released to one learner with their own numbers, which
    only the secret recomputes (graded on the page's, they would be marked wrong). None otherwise: a course with
    a secret recomputes everyone's; a notebook without a display copy, or with one no release writes
    (``{"a": 1}``), is graded on the page's numbers like everyone's in a course without one.

    This is that notebook's row only: what a learner's metadata holds never stops the batch."""
    if secret is not None or not lesson.params or not is_valid(lesson, submission.shown_params):
        return None
    if in_order(lesson, submission.shown_params) == default_params(lesson):
        return None
    return (
        "This notebook was released with one learner's own numbers (its metadata.grader.params), and this course "
        "has no secret to recompute whose they are, so it was not graded. Teaching assistant: set "
        f"{SECRET_ENV} (or write {SECRET_FILE} in the lessons folder) to the secret the notebooks were released "
        "with, and run the batch again; learners who were never released their own numbers are graded without it."
    )


# -- what grading uses ------------------------------------------------------------------------------------


def on_learner_numbers(
    lesson: Lesson,
    submission: Submission,
    run: Callable[[frozenset[str] | None, Params], Sequence[TestOutcome]],
    questions: frozenset[str] | None = None,
) -> tuple[Params, Sequence[TestOutcome], OtherNumbers | None, tuple[str, ...]]:
    """All grading asks of learner parameters, in one place: the numbers ``submission`` is graded on
    (:func:`graded_params`), the outcomes ``run`` gives on them (``run(questions, numbers)``: the suites of those
    questions, None for all, against the learner's worker), a Part 1 right for another set of numbers
    (:func:`other_numbers`, which runs some suites again on other numbers; the report marks its answers), and the
    report's flags in the order it shows them, first (:func:`swap_note`, that one's note, :func:`self_graded_note`).
    ``questions``: only those questions' suites run (None: all)."""
    graded = graded_params(lesson, submission)
    outcomes = run(questions, graded)
    copied = other_numbers(lesson, graded, outcomes, run)
    flags = (
        swap_note(lesson, submission, graded),
        copied and copied.note,
        self_graded_note(lesson, submission, graded),
    )
    return graded, outcomes, copied, tuple(n for n in flags if n)


def graded_params(lesson: Lesson, submission: Submission) -> Params:
    """The numbers ``submission`` is graded on: the caller's (from the learner's identity), else the notebook's
    display copy when it is one the lesson can give (a learner grading their own notebook), else the defaults."""
    if not lesson.params:
        return ()
    if submission.params is not None:
        return submission.params
    if is_valid(lesson, submission.shown_params):
        return in_order(lesson, submission.shown_params)
    return default_params(lesson)


#: How the two integrity flags begin (:func:`swap_note`, :func:`other_numbers_note`): what the reports look for,
#: to show them in an integrity section of their own rather than among a notebook's errors.
SWAP_OPENING = "This notebook shows "
COPY_OPENING = "Every answer that uses your numbers"


def is_integrity_flag(text: str) -> bool:
    """Whether a report's message is an integrity flag (a notebook released to someone else, or answers right
    only for other numbers), not something that went wrong while it ran."""
    return text.startswith((SWAP_OPENING, COPY_OPENING))


def swap_note(lesson: Lesson, submission: Submission, graded: Params) -> str | None:
    """A flag when the numbers the notebook shows are not the numbers it is graded on, else None: its display
    copy is another learner's (a swapped notebook), or it has none, so it shows the lesson page's numbers (a
    notebook nobody was released: the committed one, nbgrader's one release to all)."""
    if not lesson.params:
        return None
    shown = submission.shown_params or default_params(lesson)
    if dict(shown) == dict(graded):
        return None
    owner = f" (released to {submission.shown_learner!r})" if submission.shown_learner else ""
    whose = "other numbers than yours" if submission.shown_params else "the lesson page's numbers, not yours"
    return (
        f"{SWAP_OPENING}{whose}{owner}: it was graded on your own numbers, "
        f"{describe(graded)}. Work Part 1 in the notebook released to you."
    )


def self_graded_note(lesson: Lesson, submission: Submission, graded: Params) -> str | None:
    """For a notebook graded without knowing whose it is (``grade NOTEBOOK``): which numbers were used, and that
    the official grade recomputes them; None for a lesson without parameters or a grade that knew the learner."""
    if not lesson.params or submission.params is not None or not submission.shown_params:
        return None  # a notebook that was never released to one learner is graded on the page's numbers, as ever
    stated = dict(graded) == dict(submission.shown_params)
    which = "the numbers this notebook states" if stated else "the lesson page's numbers"
    return (
        f"Graded on {which} ({describe(graded)}); your instructor's grade recomputes your numbers from who you "
        "are, so work Part 1 in the notebook released to you."
    )


#: At most this many other sets of numbers are tried when a notebook's answers that use them are all wrong.
MAX_OTHER_SETS = 64


@dataclass(frozen=True)
class OtherNumbers:
    """A notebook whose answers that tell two sets of numbers apart are all right for another set, not the
    learner's (:func:`other_numbers`): the integrity flag, said once at the top of the report, and per question
    which set the answer matches, in place of a slip hunt on the learner's numbers that cannot succeed."""

    note: str
    questions: frozenset[str]
    whose: str
    """"the lesson page's numbers" or "another learner's numbers"."""
    differ: Params
    """That set's numbers where they differ from the learner's."""

    def mark(self, result: QuestionResult) -> QuestionResult:
        """``result`` with its feedback saying which set its answer is right for, when it is one of these
        questions and wrong (its score is unchanged); the teaching assistant keeps the checks' own lines after."""
        if result.id not in self.questions or result.status != "failed":
            return result
        line = (
            f"This answer is right for {self.whose} ({describe(self.differ)}), not for yours: see the note at the "
            "top, and work it on your own numbers."
        )
        return replace(result, feedback=(line,), staff_feedback=(line, *result.staff))


def other_numbers(
    lesson: Lesson,
    graded: Params,
    outcomes: Sequence[TestOutcome],
    rerun: Callable[[frozenset[str], Params], Sequence[TestOutcome]],
) -> OtherNumbers | None:
    """The flag when the answers that depend on where the learner's numbers and one other set the lesson gives
    differ (the page's, or another learner's: a copied or swapped Part 1) are all wrong for the learner's and
    all right for that set, else None.

    Only the questions whose parameters differ between the two sets can tell them apart: two learners who share
    a number (one accelerator, another model) give the same right answer to a question that uses only it, and
    that answer must not hide the copy. A slip leaves an answer right on the learner's own numbers, so it is
    never called a copy; nor are answers that are each a known slip on the learner's own numbers (the check
    named it: ``TestOutcome.slip``), even where they are also right on that set (13e9 parameters at 2 bytes per
    parameter are 26e9 at 1): that is evidence of a slip, and a match with another set may be chance. ``rerun``
    runs the suites of some questions on other numbers (the same notebook, the same worker)."""
    using = frozenset(q for p in lesson.params for q in p.questions)
    status: dict[str, set[str]] = {}
    for o in outcomes:
        if o.question in using:
            status.setdefault(o.question, set()).add(o.status)
    wrong = frozenset(q for q, seen in status.items() if seen == {"failed"})
    if not wrong:
        return None
    for other in [p for p in every_params(lesson) if p != graded][:MAX_OTHER_SETS]:
        telling = _telling(lesson, graded, other)
        if not telling or not telling <= wrong:
            continue  # some answer that tells the two sets apart is right (or unchecked) on the learner's own
        if all(o.slip for o in outcomes if o.question in telling and o.status == "failed"):
            continue  # each is a known slip on the learner's own numbers: evidence of slips, not of a copy
        if all(o.status == "passed" for o in rerun(telling, other)):
            whose = "the lesson page's numbers" if other == default_params(lesson) else "another learner's numbers"
            differ = tuple((f, v) for f, v in other if dict(graded).get(f) != v)
            note = (
                f"{COPY_OPENING} where they differ from {whose} ({', '.join(sorted(telling))}) "
                f"is right for {whose} ({describe(differ)}), not for yours ({describe(graded)}): work them on your "
                "own numbers."
            )
            return OtherNumbers(note, telling, whose, differ)
    return None


def other_numbers_note(
    lesson: Lesson,
    graded: Params,
    outcomes: Sequence[TestOutcome],
    rerun: Callable[[frozenset[str], Params], Sequence[TestOutcome]],
) -> str | None:
    """:func:`other_numbers`' flag alone, or None."""
    found = other_numbers(lesson, graded, outcomes, rerun)
    return found.note if found else None


def _telling(lesson: Lesson, graded: Params, other: Params) -> frozenset[str]:
    """The questions whose answers differ between two sets of numbers: those of the parameters they differ in."""
    mine, theirs = dict(graded), dict(other)
    return frozenset(
        q for p in lesson.params if any(mine.get(f) != theirs.get(f) for f in p.fields) for q in p.questions
    )


def render(text: str, params: Params) -> str:
    """``text`` with each ``{field}`` of ``params`` filled in; braces around any other name are left alone."""
    if not params:
        return text
    values = dict(params)
    pattern = re.compile(r"\{(" + "|".join(re.escape(f) for f in values) + r")\}")
    return pattern.sub(lambda m: shown(values[m.group(1)]), text)


def shown(value: ParamValue) -> str:
    """A value as the text shows it: 13, 3.35, 0.5, NVIDIA H100 SXM."""
    return format(value, "g") if isinstance(value, float) else str(value)


def describe(params: Params) -> str:
    """The numbers in one line, for a teaching assistant: ``params_b = 13, gpu = NVIDIA H100 SXM, ...``."""
    return ", ".join(f"{field} = {shown(value)}" for field, value in params)


def as_dict(params: Params) -> dict[str, ParamValue]:
    return dict(params)


def from_mapping(raw: Any) -> Params:
    """Plain ``{field: value}`` data (a notebook's display copy, a JSON message) as :data:`Params`; () if not that."""
    if not isinstance(raw, dict) or len(raw) > 64:
        return ()
    items: list[tuple[str, ParamValue]] = []
    for field, value in raw.items():
        if not (isinstance(field, str) and _FIELD.match(field)) or isinstance(value, bool):
            return ()
        if not isinstance(value, (int, float, str)) or (isinstance(value, str) and len(value) > 200):
            return ()
        items.append((field, value))
    return tuple(items)
