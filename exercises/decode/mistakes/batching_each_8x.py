# kind: wrong
# about: expects batching to make every single stream 8 times faster
# expect answer_batching_bug: wrong /one token per step|each (stream|sequence|user) (still )?(gets|gains)|no (single )?stream (gets|is) faster|not faster|(doesn't|does not|cannot) (get |make )?(each |one )?(stream|user|reply)s? faster/

answer_batching_bug = "A"
