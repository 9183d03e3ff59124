"""An autograder for notebook exercises: read -> execute in isolation -> run hidden suites -> score -> report.

The public entry point is :func:`grader.pipeline.grade_notebook`; the CLI in :mod:`grader.cli` is a thin
shell around it. Imports stay lazy here so that ``grade --help`` and the worker start fast.
"""

__version__ = "0.1.0"
