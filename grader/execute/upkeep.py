"""The second door into ``execute/``: the upkeep of a process that grades, none of which starts a worker.

A batch, its grading processes and the daemon check the isolation settings before anything is graded
(:func:`check_settings`; and what grades other people's notebooks, that it has a sandbox or was told to go
without: :func:`grading_others`), record the level in use (:func:`isolation_level`; a batch's grading processes
take its trial of bubblewrap as theirs: :func:`known_trial`, :func:`adopt_trial`), pin themselves to a CPU
(:func:`keep_to_one_cpu`), remove what killed grading processes left (:func:`remove_leftovers`,
:func:`remove_stale`), kill a dying process's workers (:func:`kill_workers`), and take in and end the sandboxes
a bwrap killed while starting left behind (:func:`adopt_orphans`, :func:`end_adopted_sandboxes`), and end at
once when their work is done (:func:`exit_at_once`). Workers themselves start only through
:mod:`grader.execute.runner`, the first door.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from grader.config import WorkerMode
from grader.execute.bubblewrap import Trial, adopt_trial, known_trial
from grader.execute.limits import (
    adopt_orphans,
    end_adopted_sandboxes,
    kill_group,
    live_processes,
    remove_stale,
    remove_tree,
)
from grader.execute.process import WORKDIR_PREFIX
from grader.execute.sandbox import check_settings, choose_level, grading_others, own_notebook_line
from grader.execute.zygote import ROOT_PREFIX

__all__ = [
    "Trial",
    "adopt_orphans",
    "adopt_trial",
    "check_settings",
    "cpu_count",
    "end_adopted_sandboxes",
    "exit_at_once",
    "grading_others",
    "isolation_level",
    "keep_to_one_cpu",
    "kill_workers",
    "known_trial",
    "own_notebook_line",
    "remove_leftovers",
    "remove_stale",
    "remove_tree",
    "unsandboxed",
]


def isolation_level(mode: WorkerMode) -> str:
    """The isolation level workers get in ``mode`` on this machine (bubblewrap is tried once per process)."""
    return choose_level(mode)[0].name


def unsandboxed(mode: WorkerMode) -> str | None:
    """Why learner code would run here outside a sandbox (the level ``mode`` gets keeps no filesystem of its own,
    so it could read what the grader can), or None when it runs sandboxed. For a service that must never run a
    stranger's code any other way."""
    level, why = choose_level(mode)
    return None if level.private_tmp else f"the isolation level here is {level.name} ({why or 'chosen'})"


def remove_leftovers() -> None:
    """Delete what killed grading processes could not: their learners' folders and their zygotes' roots."""
    for prefix in (WORKDIR_PREFIX, ROOT_PREFIX):
        remove_stale(prefix)


def kill_workers() -> None:
    """Kill this process's children and what they started (each worker and zygote leads its own process group)."""
    me = os.getpid()
    for pid, (parent, _) in live_processes().items():  # Linux; elsewhere the children's own limits end them
        if parent == me:
            kill_group(pid)


def keep_to_one_cpu(slot: int | None = None) -> None:
    """Keep this process, and every worker it starts from now on, on one CPU: the ``slot``-th it may use, or
    (``None``) the one it runs on now, for a process with no others to share the CPUs with (the daemon).

    Grading a notebook is a conversation: the hidden tests call the learner's function, it answers, often
    calling back (a recording ``next_token``, a reference standing in), hundreds of times a notebook. When
    the two processes share a CPU each turn is a switch on that CPU; on two CPUs each is a wake-up across
    CPUs, which on a virtual machine costs more than the turn's own work (bench/RESULTS.md, round 6). A batch
    gives each grading process its own slot, so the conversations spread over the CPUs. Where affinity cannot
    be set (not Linux, or not allowed), the scheduler decides, as before.
    """
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[slot % len(cpus)] if slot is not None else _running_on(cpus)})
    except (AttributeError, OSError):
        pass


def _running_on(cpus: list[int]) -> int:
    """The CPU this process runs on now (field 39 of ``/proc/self/stat``), or the first it may use."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            cpu = int(stat.read().rpartition(b")")[2].split()[36])  # fields from the 3rd on, after the name
    except (OSError, ValueError, IndexError):
        return cpus[0]
    return cpu if cpu in cpus else cpus[0]


def cpu_count() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def exit_at_once(status: int) -> NoReturn:
    """End this process with ``status`` now, once stdout and stderr are flushed (a stream that cannot be, its reader
    gone or closed, is let go).

    For a process whose work is done (its workers ended; for ``grade``, its exit handlers run): what is left is the
    interpreter's own teardown, freeing every object of pytest, hypothesis and the suites, ~60 ms of a cold
    ``grade NOTEBOOK`` and ~0.1 s of CPU a batch's grading process (bench/RESULTS.md, rounds 6 and 14), and nothing
    of it outlives the process."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
