"""The course service, ``grade serve``: the hidden suites, the solutions and the course secret stay on the course's
machine, and learners' ``check()`` and ``submit()`` reach them over HTTP (:mod:`grader.service.protocol`).

Not the warm daemon (:mod:`grader.serve`), which is one user's own ``grade`` made fast on their own machine.
"""
