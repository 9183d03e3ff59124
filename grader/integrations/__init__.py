"""Bridges to other grading platforms: Gradescope (results.json, the upload bundle) and nbgrader.

Each module turns the grader's own :class:`grader.model.Report` into the other tool's format, so a notebook
gets one score whichever tool a course uses. Optional dependencies (nbgrader) are imported lazily.
"""
