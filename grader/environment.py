"""The names of the environment variables the grader reads, and the values each takes: one table.

Nothing is imported here, so that ``grade``'s warm path (:mod:`grader.serve.client`), which a learner runs again
and again and which must not pay for :mod:`grader.config`'s imports (its dataclasses, ~10 ms), can read them too.
:mod:`grader.config` imports every name from here, with the defaults they override.
"""

#: Forces how learner code is isolated (see SECURITY.md): ``auto`` (the default: bubblewrap namespaces where they
#: work, else process limits), ``bubblewrap`` or ``process``.
ISOLATION_ENV = "GRADER_ISOLATION"

#: Chooses how a long-lived grader (a batch's grading processes, Dask workers) starts each learner's worker:
#: ``fork`` (the default: from a warm zygote, at the bubblewrap level) or ``spawn`` (a new interpreter per
#: notebook, as a single ``grade`` does). See SECURITY.md.
WORKERS_ENV = "GRADER_WORKERS"
WORKER_STARTS = ("fork", "spawn")

#: The warm grading daemon of ``grade NOTEBOOK`` (see :mod:`grader.serve`): ``auto`` (the default: use a running
#: daemon; start one only from an interactive terminal), ``on`` (always start one), ``off`` (never use one: every
#: ``grade`` starts cold).
DAEMON_ENV = "GRADER_DAEMON"
DAEMON_MODES = ("auto", "on", "off")
#: Seconds a daemon waits for its next request before it exits (default :data:`grader.config.DAEMON_IDLE_SECONDS`).
DAEMON_IDLE_ENV = "GRADER_DAEMON_IDLE"

#: The folder of lesson definitions (``--lessons`` wins over it).
LESSONS_ENV = "GRADER_LESSONS"
#: The course secret (grader/params.py; ``grade`` takes it out of its environment).
SECRET_ENV = "GRADER_COURSE_SECRET"

#: The folder where the grader keeps what it reuses between runs (hypothesis's tables of Unicode characters).
#: Default: the user's cache folder, never the current one, which is the learner's notebook folder when
#: ``check()`` runs, and ends up in what they submit.
CACHE_DIR_ENV = "GRADER_CACHE_DIR"

#: Where Gradescope lays out an autograder run (default :data:`grader.config.GRADESCOPE_ROOT`); ``grade gradescope
#: --root`` and the bundle's ``run_autograder`` read it first, so a test can point elsewhere.
GRADESCOPE_ROOT_ENV = "AUTOGRADER_ROOT"
