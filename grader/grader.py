"""The warm pipeline of one grading process: a :class:`Grader`.

A Grader holds what is costly to build and is reused from one notebook to the next: each lesson loaded,
fingerprinted when it was loaded, and its hidden suites imported and collected once (a :class:`SuiteSession`
kept open), and the :class:`Runner` that starts every learner's worker (from warm zygotes where it can).
``grade NOTEBOOK`` (:func:`grade_notebook`), the Gradescope entry, each batch grading process
(:class:`grader.batch.work.GradingContext`) and the daemon each hold one; nothing else starts workers or
opens suite sessions.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.config import cache_dir
from grader.execute.runner import Runner
from grader.execute.upkeep import keep_to_one_cpu
from grader.lessons import load_lesson, suites_fingerprint
from grader.model import Lesson, Params, Report, Submission
from grader.pipeline import GradeOptions, failed_report, grade_submission, lent_solution, read_for_lesson

if TYPE_CHECKING:
    # Collecting suites imports pytest and hypothesis (~0.6 s): only when a Grader first opens a lesson, so
    # a batch process, which holds no Grader, never imports them.
    from grader.suites.session import SuiteSession


class Grader:
    """Lessons and their open suites, and the runner of learners' workers, for one set of grading options."""

    def __init__(self, options: GradeOptions, *, fork: bool = True) -> None:
        """``options.lesson`` plays no part: a Grader grades any lesson, named notebook by notebook.

        ``fork`` False: spawn every worker (one notebook, for which booting a zygote would not pay).
        """
        self.options = options
        self.runner = Runner(options.limits, options.mode, fork=fork)
        self._sessions: dict[str, tuple[Lesson, SuiteSession, str]] = {}
        self._settled: set[str] | None = set() if fork else None
        """The lessons this warm Grader has graded a notebook of (None: a cold one, which never settles)."""
        self._lock = threading.Lock()  # Dask, and the daemon, may grade several notebooks of one process in threads

    @classmethod
    def cold(cls, options: GradeOptions) -> Grader:
        """A Grader for one notebook: workers are spawned, nothing is kept warm."""
        return cls(options, fork=False)

    def session(self, lesson_id: str) -> tuple[Lesson, SuiteSession]:
        """The lesson and its open suites; raises :class:`LessonError` if the lesson or its suites are broken."""
        lesson, suites, _ = self._open(lesson_id)
        return lesson, suites

    def _open(self, lesson_id: str) -> tuple[Lesson, SuiteSession, str]:
        with self._lock:
            if lesson_id not in self._sessions:
                # As pytest's entry-point plugins are not loaded (suites/session.py), hypothesis's are not: what
                # another package installed beside the grader registers must not change how a notebook is graded
                # (and finding them scans every installed package's metadata, ~15 ms a process). Before the import.
                os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")
                from grader.suites.session import SuiteSession

                lesson = load_lesson(lesson_id, self.options.lessons_root, self.options.suites)
                fingerprint = suites_fingerprint(lesson)  # before collecting: what the collected suites were made from
                examples = cache_dir() / "examples" / f"{lesson.id}-{fingerprint[:32]}.json"
                self._sessions[lesson_id] = (lesson, SuiteSession(lesson, examples=examples).__enter__(), fingerprint)
            return self._sessions[lesson_id]

    def _lesson(self, lesson_id: str) -> Lesson:
        """The lesson, from its open session if there is one (without opening it: that imports pytest)."""
        with self._lock:
            opened = self._sessions.get(lesson_id)
        return opened[0] if opened else load_lesson(lesson_id, self.options.lessons_root, self.options.suites)

    def changed(self, lesson_id: str) -> bool:
        """Whether lesson ``lesson_id`` changed on disk since this Grader collected its suites (then it is stale)."""
        lesson, _, fingerprint = self._open(lesson_id)
        return suites_fingerprint(lesson) != fingerprint

    def grade(
        self,
        submission: Submission,
        lesson_id: str,
        *,
        contain: bool = True,
        questions: frozenset[str] | None = None,
    ) -> Report:
        """Grade one submission: learner behaviour never raises; a broken lesson raises :class:`LessonError`,
        which an instructor must fix. ``contain`` (one of many: a batch's, the daemon's): a grader failure becomes
        a ``crashed`` report; else it raises (one notebook's ``grade``, whose command says what failed). ``questions``:
        run only those questions' hidden tests (None: all), as a service check of one question does."""
        with self.grading(submission, lesson_id, contain=contain, questions=questions) as report:
            return report

    @contextmanager
    def grading(
        self,
        submission: Submission,
        lesson_id: str,
        *,
        contain: bool = True,
        questions: frozenset[str] | None = None,
    ) -> Iterator[Report]:
        """:meth:`grade`, with the notebook's workers ended as the caller's block ends instead of before it gets the
        report: the daemon sends the learner the answer first. Ending a forked worker (it exits, the zygote makes sure
        nothing of it is left, sweeping if anything is) is ~2 ms that a learner waiting for the answer need not wait
        for."""
        solution = lent_solution(self._lesson(lesson_id))
        with self.runner.workers() as workers:
            # Both boot while the suites are imported and collected, if that is still to do.
            workers.boot(submission, solution)
            lesson, suites = self.session(lesson_id)
            workers.ready()  # a boot that failed raises here, uncontained, as when it ran on this thread
            try:
                report = grade_submission(submission, lesson, suites, workers, solution, questions)
            except Exception as err:
                if not contain:
                    raise
                reason = f"The grader failed on this notebook ({type(err).__name__}: {err}); please report it."
                report = failed_report(lesson, submission, reason[:500], "crashed")
            yield report  # outside the try: what the caller's block raises is not this notebook's crash
        self._settle(lesson_id)

    def _settle(self, lesson_id: str) -> None:
        """Once a warm Grader has graded its first notebook of a lesson, what it keeps for the next ones (the
        suites, pytest, hypothesis, the examples) is set aside from the garbage collector (``gc.freeze``): a full
        collection traversed all of it every few notebooks (~16 ms each: bench/RESULTS.md, round 20). Garbage
        with cycles is collected first; what is frozen is never freed, so only what lives as long as the Grader."""
        with self._lock:
            if self._settled is None or lesson_id in self._settled:
                return
            self._settled.add(lesson_id)
        gc.collect()
        gc.freeze()

    def warm(self, lesson_id: str | None = None) -> None:
        """Collect ``lesson_id``'s suites and boot a zygote now, so that the first notebook waits for neither."""
        if lesson_id is not None:
            self.session(lesson_id)
        self.runner.warm()

    def warm_soon(self) -> None:
        """Boot a zygote in the background, so that it boots while this process imports and collects the suites."""
        self.runner.warm_soon()

    def close(self) -> None:
        with self._lock:
            for _, session, _ in self._sessions.values():
                session.__exit__()
            self._sessions.clear()
        self.runner.close()
        if self._settled:
            gc.unfreeze()  # what it kept may be freed now

    def abandon(self) -> None:
        """On the way out of a dying process: stop the zygotes and delete their folders, nothing slower."""
        self.runner.abandon()

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def grade_notebook(path: Path, options: GradeOptions | None = None, params: Params | None = None) -> Report:
    """Grade one notebook file. Raises :class:`grader.errors.GraderError` subclasses for unreadable input.

    ``params``: the learner parameters to grade it on, when the caller knows whose it is (Gradescope); None
    grades it on the numbers it states (:func:`grader.params.graded_params`)."""
    options = options or GradeOptions()
    with Grader.cold(options) as grader:  # first: its sandbox is probed while the notebook is read
        submission, lesson_id = read_for_lesson(path, options)
        if params is not None:
            submission = replace(submission, params=params)
        return grader.grade(submission, lesson_id, contain=False)


def keep_this_process_to_one_cpu() -> None:
    """For a process that grades alone (the daemon): keep it, and the workers its Graders start, on the CPU it runs
    on now (see :func:`grader.execute.upkeep.keep_to_one_cpu`). Call it before any Grader starts a zygote."""
    keep_to_one_cpu()
