"""An autograder for notebook exercises: read -> execute in isolation -> run hidden suites -> score -> report.

The public entry points are :func:`grader.grader.grade_notebook` (one notebook) and :class:`grader.grader.Grader`
(many); the CLI in :mod:`grader.cli` is a thin shell around them. Imports stay lazy here so that
``grade --help`` and the worker start fast.
"""

__version__ = "0.1.0"
