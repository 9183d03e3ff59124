"""A warm grading daemon for ``grade NOTEBOOK``: the same grading, without paying for start-up each time.

``protocol`` (what crosses the socket), ``answer`` (grade and render, shared by the cold and warm paths),
``client`` (find, ask and start the daemon; standard library only, so the CLI stays fast) and ``daemon``
(the long-lived process). See the README's "Warm grading daemon" section.
"""
