"""Self-check runs the hidden suites in the learner's own kernel, so whatever they need is on the learner's
disk. Black-box: log every file the learner's process opens while connect()/check() run (an audit hook),
then show that the by-hand answers can be read from there.
Usage: python3 attacks/selfcheck_reads_solution.py   (run as a learner would, from the course folder)
"""
import sys, os, json, time
opened = set()
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].endswith((".ipynb", ".py", ".toml", ".json")):
        if "site-packages" not in args[0] and "/lib/python3" not in args[0]:
            opened.add(os.path.abspath(args[0]))
sys.addaudithook(hook)
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "notebooks"))
from grader.selfcheck import connect
ns = {}
check, check_all, hint = connect("decode", ns)
exec("gb_per_step = None", ns)
check("gb_per_step")
time.sleep(1)
check("generate")
print("files the learner's kernel opened:")
for p in sorted(opened):
    print("  ", p)
sol = [p for p in opened if p.endswith(".ipynb") and "solution" in p]
suites = [p for p in opened if "/suites/" in p]
if sol:
    nb = json.load(open(sol[0]))
    for c in nb["cells"]:
        if c.get("id") in ("gb_per_step", "ms_per_token", "answer_sequential"):
            print("  by-hand answer read from", sol[0], ":", "".join(c["source"])[:100])
print("suite files readable:", len(suites))
