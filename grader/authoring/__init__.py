"""The lesson tools: what an instructor runs on a lesson, never on a learner's submission.

``build`` makes a lesson's notebooks (learner, solution, nbgrader) and its Gradescope bundle from its one
source; ``release`` writes one notebook per roster learner with their own numbers; ``variants`` makes
solution notebooks with a changed function, graded through the normal batch path by ``corpus`` (the
lesson's mistakes corpus: ``grade corpus``) and ``audit`` (mutation testing of its suites: ``grade audit``).
They stand above the entries they use (``batch/``, ``integrations/``) and only ``cli`` imports them.
"""
