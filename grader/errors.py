"""One root exception for everything the grader can report to a person.

Every subclass carries a sentence a person can act on (``str(err)``); the CLI prints it and maps the class
to an exit code. Catching :class:`GraderError` catches every grader failure: timeouts and crashes are
subclasses, not siblings (nbclient's ``DeadKernelError``/``CellExecutionError`` split is the warning).
"""

from __future__ import annotations


class GraderError(Exception):
    """Something stopped grading; the message says what to do next."""


class UsageError(GraderError):
    """The command was called wrongly (a missing file, an unknown option value)."""


class NoSandbox(UsageError):
    """Other people's notebooks would be graded outside a sandbox, which nobody asked for (``--isolation``)."""


class NotebookUnreadable(GraderError):
    """The file is not a notebook we can read (bad JSON, wrong format version, not a notebook)."""


class LessonError(GraderError):
    """A lesson definition or its hidden suites are broken: an instructor must fix them."""


class ExecutionTimeout(GraderError):
    """The learner's notebook ran longer than the wall-clock limit and was stopped."""


class WorkerCrashed(GraderError):
    """The process running the learner's code died (a crash, a memory limit, ``os._exit``)."""


class MachineFailed(WorkerCrashed):
    """The grading machine failed, not the learner's code (a worker that did not start, a lender that could not
    run the solution): the notebook is not graded (``crashed``, which a batch retries), never scored as lost."""


class CorpusError(LessonError):
    """A file of a lesson's mistakes corpus has a malformed header: the lesson's author must fix it."""


class CourseSecretMissing(GraderError):
    """A lesson gives each learner their own numbers and the course secret that draws them is missing or weak."""


class ResultsUnwritable(GraderError):
    """The results folder's gradebook could not be written (its disk full, read-only, or locked by another run); what
    was graded before is kept in it."""


class Stopped(GraderError):
    """A signal (SIGTERM, SIGINT, SIGHUP) stopped the command on purpose; ``grade`` exits with 128 + ``signum``."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum
