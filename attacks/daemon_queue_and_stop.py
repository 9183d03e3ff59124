"""The warm daemon serves one request at a time, and waits up to 10 minutes for a stuck one.
 queue: while the daemon grades a notebook whose every call sleeps S s (full marks, ~100 calls), an honest
        `grade solutions/prefill.ipynb` from another terminal (GRADER_DAEMON=auto) waits for it.
 stop:  `kill -STOP` the daemon; the next `grade` waits ~10 minutes before grading cold.
Uses a private XDG_RUNTIME_DIR so only this script's daemon is involved; stops it at the end.
Usage: python3 attacks/daemon_queue_and_stop.py queue|stop [S] [HONEST_LESSON]
"""
import sys, json, os, subprocess, time, signal, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
mode = sys.argv[1] if len(sys.argv) > 1 else "queue"
s = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
honest = sys.argv[3] if len(sys.argv) > 3 else "prefill"   # the lesson of the honest solution graded meanwhile
xdg = pathlib.Path("/tmp/h5/xdg_attack"); xdg.mkdir(parents=True, exist_ok=True); os.chmod(xdg, 0o700)
env = dict(ENV, XDG_RUNTIME_DIR=str(xdg), GRADER_DAEMON="on")
def grade(nb, e=env):
    t = time.time()
    p = subprocess.run(["nice", "-n", "10", "grade", nb], capture_output=True, text=True, env=e, cwd=ROOT)
    return time.time() - t, p.stdout.strip().splitlines()[-1:] + p.stderr.strip().splitlines()[-1:]
print("warm-up (starts the daemon):", grade("solutions/prefill.ipynb"))
print("warm grade of the solution:  ", grade("solutions/prefill.ipynb", dict(env, GRADER_DAEMON="auto")))
daemon = json.loads(subprocess.run(["grade", "daemon", "--json"], capture_output=True, text=True, env=env).stdout)
pid = daemon[0]["pid"]
try:
    if mode == "queue":
        src = open(ROOT / "attacks/slow_calls_budget.py").read()
        subprocess.run([sys.executable, "-c", "pass"])
        nb = append(load("prefill"), f'''
import time as _t, functools as _f
for _name, _obj in list(globals().items()):
    if callable(_obj) and getattr(_obj, "__module__", None) == "__main__" and not _name.startswith("_") and _name not in ("check", "check_all", "hint"):
        def _wrap(fn):
            @_f.wraps(fn)
            def slow(*a, **k):
                _t.sleep({s})
                return fn(*a, **k)
            return slow
        globals()[_name] = _wrap(_obj)
''')
        path = str(write(nb, "/tmp/h5/daemon_slow.ipynb"))
        t0 = time.time()
        bg = subprocess.Popen(["nice", "-n", "10", "grade", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        time.sleep(5)
        t = time.time()
        hp = subprocess.run(["nice", "-n", "10", "grade", f"solutions/{honest}.ipynb", "--json"], capture_output=True, text=True,
                            env=dict(env, GRADER_DAEMON="auto"), cwd=ROOT)
        r = json.loads(hp.stdout)
        print(f"honest grade while the daemon is busy: {time.time() - t:.1f}s, {r['score']}/{r['max_score']} {r['status']}")
        for q in r["questions"]:
            if q["score"] != q["max_score"]:
                print("   LOST:", q["id"], q["score"], q["status"], q["feedback"])
        out, _ = bg.communicate()
        print(f"the slow notebook itself: {time.time() - t0:.1f}s", out.strip().splitlines()[-1:])
    else:
        os.kill(pid, signal.SIGSTOP)
        print("honest grade with the daemon stopped:", grade("solutions/prefill.ipynb", dict(env, GRADER_DAEMON="auto")))
finally:
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass
    subprocess.run(["grade", "daemon", "stop"], env=env)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
