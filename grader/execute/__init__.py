"""Step 2, execute: learner code runs only in a separate, limited worker process (see worker.py)."""
