"""Step 3, run the hidden suites with real pytest in the trusted process (see session.py)."""
