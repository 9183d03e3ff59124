"""The ``grade`` script, and ``python -m grader``: the warm daemon's answer first, else the whole command line.

A learner at a terminal types ``grade my_notebook.ipynb`` again and again, and a warm daemon answers it in tens of
milliseconds: this module asks it (:func:`grader.serve.client.warm_answer`) before importing anything else, and
only what that does not answer (another command or option, no daemon, no lessons here) goes to :mod:`grader.cli`,
which parses the arguments as always. Nothing here is imported by the package.
"""

from __future__ import annotations

import sys


def run() -> None:
    from grader.serve.client import warm_answer

    answer = warm_answer(sys.argv[1:])
    if answer is None:
        from grader.cli import run as command

        command()
        return
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    sys.exit(answer.exit_status)


if __name__ == "__main__":
    run()
