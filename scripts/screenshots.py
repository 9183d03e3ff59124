"""Open lesson notebooks in JupyterLab in headless Chromium, run each top to bottom, and take screenshots.

What a learner sees after ``pip install -e '.[learner]'`` and ``jupyter lab notebooks/decode.ipynb``,
checked in a real browser: every cell runs without an error, each ``check(...)`` shows one result, every
other self-check cell (a plot, a step-through, the chapter's reference code) shows its output, a
step-through's sliders and "next token" button update its text, and ``check_all()`` prints the total.

    python3 -m pip install -e '.[learner]' playwright
    python3 scripts/screenshots.py [--notebook notebooks/decode.ipynb] [--out build/screenshots]
    python3 scripts/screenshots.py --notebook notebooks/request.ipynb --notebook notebooks/prefill.ipynb
    python3 scripts/screenshots.py --all        # every lesson of exercises/chapter.toml, in its order
    python3 scripts/screenshots.py --notebook released/ada/decode.ipynb --check gb_per_step --out /tmp/shots

    python3 scripts/screenshots.py --service --out /tmp/shots   # a released notebook against grade serve

``--service``: the course service as a course and a learner use it (``run_service``): ``grade serve`` on
loopback, a notebook released with ``--service``, opened in the JupyterLab of the wheel alone in a fresh virtual
environment (no lessons); an answer checked wrong then right, the notebook saved and handed in.

``--check QUESTION`` (repeatable) also shoots the cell ``check("QUESTION")`` with the text above it and prints
what it shows: on a notebook of ``grade build --roster``, the text and the verdicts must be that learner's numbers.

One JupyterLab serves every notebook; with more than one, each notebook's screenshots go to ``OUT/<name>/``.

Chromium: ``--chromium PATH`` (default ``/usr/bin/chromium``, Debian's package; ``--chromium playwright`` uses
the browser ``python3 -m playwright install chromium`` downloads). The notebook is copied to a temporary
folder first, so the repository's file is never changed. Exit status 1 if a check fails; the screenshots are
written either way.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Every cell rendered (JupyterLab 4 otherwise renders only the cells in view), no news pop-up.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: A learner's install has no nbgrader: where the test extras put it on this machine, hide its menus.
PAGE_CONFIG = {"disabledExtensions": {"@jupyter/nbgrader": True}}


def start_lab(
    folder: Path, settings: Path, port: int, token: str, log: Path, python: str = sys.executable, learner: bool = False
) -> subprocess.Popen[bytes]:
    """JupyterLab on ``folder``, run by ``python`` (its kernel is that interpreter). ``learner``: a learner's
    machine, whose kernel must find no lesson: no checkout on its path, no lessons folder or course secret named."""
    for name, value in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    config = settings.parent / "jupyter-config"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps(PAGE_CONFIG))
    command = [
        # `-m jupyter lab` would run the first jupyter-lab on PATH, whatever its interpreter
        python, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
        f"--ServerApp.token={token}", f"--ServerApp.root_dir={folder}", f"--LabApp.user_settings_dir={settings}",
        "--LabApp.expose_app_in_browser=True",
    ] + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    if learner:
        path = os.pathsep.join([str(Path(python).parent), env.get("PATH", "")])
        env = without_course(env) | {"JUPYTER_CONFIG_DIR": str(config), "PATH": path}
    lab = subprocess.Popen(command, cwd=folder, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
            return lab
        except OSError:
            if lab.poll() is not None:
                break
            time.sleep(0.5)
    lab.terminate()
    raise SystemExit(f"JupyterLab did not start; see {log}")


BUSY = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    if (!panel || !panel.sessionContext || !panel.sessionContext.session) return true;
    const kernel = panel.sessionContext.session.kernel;
    const running = [...document.querySelectorAll('.jp-InputPrompt')].some(p => p.textContent.includes('*'));
    return !kernel || kernel.status !== 'idle' || running;
}"""


def run(notebooks: list[Path], out: Path, chromium: str, checks: tuple[str, ...] = ()) -> list[str]:
    """Every notebook in one JupyterLab and one browser; the problems found, each naming its notebook."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lab-") as tmp:
        folder, settings = Path(tmp) / "work", Path(tmp) / "settings"
        folder.mkdir()
        for notebook in notebooks:
            shutil.copy(notebook, folder / notebook.name)
        port, token = free_port(), secrets.token_hex(16)
        lab = start_lab(folder, settings, port, token, out / "jupyterlab.log")
        try:
            with sync_playwright() as p:
                launch = {} if chromium == "playwright" else {"executable_path": chromium}
                browser = p.chromium.launch(headless=True, **launch)
                for notebook in notebooks:
                    where = out / notebook.stem if len(notebooks) > 1 else out
                    where.mkdir(parents=True, exist_ok=True)
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    found = run_one(page, notebook, port, token, where, checks)
                    problems += [f"{notebook.name}: {problem}" for problem in found]
                    page.close()
                browser.close()
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    return problems


def run_one(page, notebook: Path, port: int, token: str, out: Path, checks: tuple[str, ...] = ()) -> list[str]:  # type: ignore[no-untyped-def]
    """Open one notebook, Run All, check what the learner sees and take its screenshots."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    texts = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]
    _SOURCES[:] = [  # code cells' sources; "" for text cells, which mention code too
        text if c["cell_type"] == "code" else "" for text, c in zip(texts, cells)
    ]
    page.set_default_timeout(120_000)  # a screenshot on a loaded machine can take longer than playwright's 30 s
    # A workspace of its own per notebook: JupyterLab would otherwise restore the last one, the previous notebook's tab.
    page.goto(f"http://127.0.0.1:{port}/lab/workspaces/{notebook.stem}/tree/{notebook.name}?token={token}&reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=60_000)
    page.wait_for_function(f"() => !({BUSY})()", timeout=120_000)
    page.screenshot(path=str(out / "01-opened.png"))
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    time.sleep(2)
    page.wait_for_function(f"() => !({BUSY})()", timeout=300_000)
    time.sleep(1)
    problems = check_outputs(page, checks)
    first_check = next(source for source in _SOURCES if source.startswith('check("'))
    shoot(page, out, "02-setup-and-first-check", first_check)
    number = 3
    chapter = next((i for i, text in enumerate(texts) if text.startswith(CHAPTER_HEADING)), None)
    if chapter is not None:  # the chapter's reference section, as every lesson includes it
        page.locator(".jp-Notebook .jp-Cell").nth(chapter).evaluate("c => c.scrollIntoView({block: 'start'})")
        time.sleep(0.5)
        page.screenshot(path=str(out / f"{number:02d}-chapter-reference.png"))
        number += 1
    for name, marker in extra_cells():
        shoot(page, out, f"{number:02d}-{name}", marker)
        number += 1
        if marker == "def _step_through":
            problems += use_sliders(page, out, f"{number:02d}-step-through-token-3")
            number += 1
    for question in checks:  # a named question's check cell, the question's text above it (its numbers)
        shown = cell_with(page, f'check("{question}")').locator(".jp-Cell-outputArea").inner_text().strip()
        print(f'check("{question}"): {shown}')
        shoot_above(page, out, f"{number:02d}-check-{question}", f'check("{question}")')
        number += 1
    shoot(page, out, f"{number:02d}-check-all", "check_all()")
    return problems


def shoot_above(page, out: Path, name: str, text: str) -> None:  # type: ignore[no-untyped-def]
    """A screenshot with the cell holding ``text`` at the bottom of the view, so what is above it shows too."""
    cell = cell_with(page, text)
    cell.evaluate("c => c.scrollIntoView({block: 'end'})")
    time.sleep(0.5)
    page.screenshot(path=str(out / f"{name}.png"))


def extra_cells() -> list[tuple[str, str]]:
    """The self-check cells other than setup, ``check(...)`` and ``check_all()``: (a name, a line that finds it).

    A plot, a step-through, the chapter's reference code: each is named by the function its last line calls.
    """
    found = []
    for source in _SOURCES:
        lines = [line for line in source.strip().splitlines() if line.strip()]
        if not lines or "connect(" in source or source.startswith(("check(", "check_all(")):
            continue
        last = lines[-1].strip()
        if last.startswith("_") and last.endswith("()"):
            name = last.strip("_()").replace("_", "-")
            marker = "def _step_through" if last == "_step_through()" else last
            found.append((name, marker))
    return found


_SOURCES: list[str] = []
#: How the chapter's reference section (exercises/chapter_reference.py, in every lesson) starts.
CHAPTER_HEADING = "## Chapter reference"


def cell_with(page, text: str):  # type: ignore[no-untyped-def]
    """The notebook's first code cell whose source contains ``text`` (found in the file: folded code is not in the page)."""
    exact = [i for i, source in enumerate(_SOURCES) if source.strip() == text]  # `check_all()` itself, not a cell naming it
    index = exact[0] if exact else next(i for i, source in enumerate(_SOURCES) if text in source)
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def shoot(page, out: Path, name: str, text: str) -> None:  # type: ignore[no-untyped-def]
    cell = cell_with(page, text)
    cell.scroll_into_view_if_needed()
    cell.evaluate("c => c.scrollIntoView({block: 'start'})")
    time.sleep(0.5)
    page.screenshot(path=str(out / f"{name}.png"))


def check_outputs(page, checks: tuple[str, ...] = ()) -> list[str]:  # type: ignore[no-untyped-def]
    """What a learner must see after Run All on the untouched notebook (``checks``: questions that may be answered,
    whose verdict may take several lines)."""
    problems = []
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()
    if errors:
        problems.append(f"{errors} output(s) on stderr (red): tracebacks or warnings")
    for i, source in enumerate(_SOURCES):
        if source.startswith("check(\"") and source.strip() not in {f'check("{q}")' for q in checks}:
            text = page.locator(".jp-Notebook .jp-Cell").nth(i).locator(".jp-Cell-outputArea").inner_text().strip()
            if text.count("\n") != 0 or ": " not in text:
                problems.append(f"{source} shows {text!r}, not one result")
    if page.locator(".jp-OutputPrompt", has_text="Out[").count():
        problems.append("a cell shows an Out[] value")
    total = cell_with(page, "check_all()").locator(".jp-Cell-outputArea").inner_text().strip().splitlines()
    if not total or not total[-1].startswith("Total: "):
        problems.append(f"check_all() shows {total[-3:]!r}")
    else:
        print(f"check_all(): {total[-1]}")
    for name, marker in extra_cells():
        shown = cell_with(page, marker).locator(".jp-Cell-outputArea")
        if shown.locator("img").count():
            print(f"{name} cell: a plot")
        elif shown.locator(".widget-slider, .jupyter-widgets").count():
            print(f"{name} cell: widgets")
        else:
            text = shown.inner_text().strip()
            print(f"{name} cell: {text[:200]!r}")
            if not text:
                problems.append(f"the {name} cell shows nothing")
    return problems


def use_sliders(page, out: Path, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Press "next token" and move the bandwidth slider: the step-through's text must follow."""
    cell = cell_with(page, "def _step_through")
    output = cell.locator(".jp-Cell-outputArea")
    try:
        output.locator("text=Token 1 of 5").wait_for(timeout=20_000)
    except Exception:  # noqa: BLE001 - reported below
        return [f"the step-through shows no sliders: {output.inner_text()[:300]!r}"]
    cell.locator("button", has_text="next token").click()
    cell.locator("button", has_text="next token").click()
    try:
        output.locator("text=Token 3 of 5").wait_for(timeout=10_000)
    except Exception:  # noqa: BLE001 - reported below
        return [f"'next token' did not advance the step-through: {output.inner_text()[:300]!r}"]
    slider = cell.locator(".widget-slider", has_text="TB/s").locator(".noUi-handle, .ui-slider-handle").first
    slider.focus()
    for _ in range(18):  # 1.0 -> 1.9 TB/s in 0.05 steps
        page.keyboard.press("ArrowRight")
    time.sleep(1)
    cell.evaluate("c => c.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(out / f"{name}.png"))
    text = output.inner_text()
    return [] if "Token 3 of 5" in text and "uses the 2 tokens already produced" in text else [f"step-through text: {text[:300]!r}"]


#: What a learner's machine does not have: the checkout on its path, the course's lessons and its secret.
COURSE_ONLY = frozenset({"PYTHONPATH", "GRADER_LESSONS", "GRADER_COURSE_SECRET", "VIRTUAL_ENV"})
def without_course(env: os._Environ[str] | dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in COURSE_ONLY}


#: The answer ``--service`` fills in, first wrong (the ratio upside down), then right.
SERVICE_QUESTION = "decode_step_seconds"
SERVICE_ANSWERS = {
    "wrong": "def decode_step_seconds(param_bytes, bandwidth):\n    return bandwidth / param_bytes\n",
    "right": "def decode_step_seconds(param_bytes, bandwidth):\n    return param_bytes / bandwidth\n",
}


def run_service(out: Path, chromium: str) -> list[str]:
    """The course service as the README walks it: ``grade serve`` on loopback with a fresh course secret, ada's
    decode notebook released with ``grade build --roster --service``, and that notebook opened in JupyterLab run
    by the package's wheel alone in a fresh virtual environment (no lesson, solution, suite or secret), where an
    answer is checked wrong, then right, and the notebook is saved and handed in."""
    sys.path.insert(0, str(REPO))
    from tests.package_support import install

    out.mkdir(parents=True, exist_ok=True)
    grade = str(Path(sys.executable).with_name("grade"))
    with tempfile.TemporaryDirectory(prefix="service-") as tmp:
        work = Path(tmp)
        roster = work / "roster.csv"
        roster.write_text("learner,identity\nada,ada@example.edu\n", encoding="utf-8")
        env = {**os.environ, "GRADER_COURSE_SECRET": secrets.token_urlsafe(32)}
        url = f"http://127.0.0.1:{free_port()}"
        lessons = REPO / "exercises"
        release = [grade, "build", lessons / "decode", "--roster", roster, "--out", work / "released", "--service", url]
        subprocess.run([str(a) for a in release], check=True, env=env, cwd=work)
        serve = [grade, "serve", "--lessons", lessons, "--roster", roster, "--database", work / "service.sqlite",
                 "--port", url.rsplit(":", 1)[1], "--jobs", "1"]  # fmt: skip
        with (out / "service.log").open("wb") as log:
            service = subprocess.Popen([str(a) for a in serve], env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_service(url, service, out / "service.log")
            (work / "learner").mkdir()
            installed = install(work / "learner")  # the wheel alone, as the learner installs it
            # its own kernel, as installing ipykernel into an environment gives one (not this machine's other)
            kernel = [installed.python, "-m", "ipykernel", "install", "--sys-prefix"]
            subprocess.run([str(a) for a in kernel], check=True, capture_output=True, env=without_course(os.environ))
            home = work / "ada"
            home.mkdir()
            notebook = Path(shutil.copy(work / "released" / "ada" / "decode.ipynb", home / "decode.ipynb"))
            port, token = free_port(), secrets.token_hex(16)
            lab = start_lab(home, work / "settings", port, token, out / "jupyterlab.log", str(installed.python), True)
            try:
                problems = kernel_is_the_learners(port, token, installed.python)
                with sync_playwright_browser(chromium) as browser:
                    page = browser.new_page(viewport={"width": 1200, "height": 760})
                    problems += run_learner(page, notebook, port, token, out)
            finally:
                lab.terminate()
                lab.wait(timeout=30)
        finally:
            service.terminate()
            service.wait(timeout=60)
    for shot in out.glob("*.png"):
        compress(shot)
    return problems


def wait_for_service(url: str, service: subprocess.Popen[bytes], log: Path) -> None:
    """Until ``grade serve`` answers (any HTTP status: its root is a 404), or it exits."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and service.poll() is None:
        try:
            urllib.request.urlopen(url + "/", timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"grade serve did not start; see {log}")


def kernel_is_the_learners(port: int, token: str, python: Path) -> list[str]:
    """The notebook's kernel runs the learner's environment, not this one (which has the lessons)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/kernelspecs?token={token}", timeout=10) as answer:
        specs = json.load(answer)
    argv = specs["kernelspecs"][specs["default"]]["spec"]["argv"]
    return [] if argv[0] == str(python) else [f"the kernel runs {argv[0]}, not the learner's {python}"]


class sync_playwright_browser:  # noqa: N801 - used as a context manager, like playwright's own
    """Headless Chromium (``chromium``: a path, or "playwright" for playwright's download), closed on exit."""

    def __init__(self, chromium: str) -> None:
        self.chromium = chromium

    def __enter__(self):  # type: ignore[no-untyped-def]
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        launch = {} if self.chromium == "playwright" else {"executable_path": self.chromium}
        self.browser = self.playwright.chromium.launch(headless=True, **launch)
        return self.browser

    def __exit__(self, *exc: object) -> None:
        self.browser.close()
        self.playwright.stop()


RUN_CELL = """async (i) => {
    const panel = window.jupyterapp.shell.currentWidget;
    panel.content.activeCellIndex = i;
    await window.jupyterapp.commands.execute('notebook:run-cell');
}"""
SET_SOURCE = """([i, text]) => {
    window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.setSource(text);
}"""
SAVED = "() => !window.jupyterapp.shell.currentWidget.context.model.dirty"


def run_learner(page, notebook: Path, port: int, token: str, out: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Open the released notebook, run its setup cell, answer one question wrong then right, checking each time,
    save, hand in: what each check and the hand-in print, shot."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    _SOURCES[:] = ["".join(c["source"]) if c["cell_type"] == "code" else "" for c in cells]
    page.set_default_timeout(120_000)
    page.goto(f"http://127.0.0.1:{port}/lab/workspaces/service/tree/{notebook.name}?token={token}&reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=60_000)
    page.wait_for_function(f"() => !({BUSY})()", timeout=120_000)
    page.evaluate("window.jupyterapp.shell.collapseLeft()")  # the file browser: the cells get its width
    index = {text: i for i, text in enumerate(_SOURCES) if text}
    check = f'check("{SERVICE_QUESTION}")'
    answer = next(i for i, text in enumerate(_SOURCES) if text.startswith(f"def {SERVICE_QUESTION}("))

    def run_cells(*numbers: int) -> None:
        for number in numbers:
            page.evaluate(RUN_CELL, number)
            time.sleep(1)
            page.wait_for_function(f"() => !({BUSY})()", timeout=300_000)

    def shown(text: str) -> str:
        return str(cell_with(page, text).locator(".jp-Cell-outputArea").inner_text().strip())

    problems = []
    run_cells(next(i for i, t in enumerate(_SOURCES) if "connect_service(" in t))
    expected = {"wrong": f"✗ {SERVICE_QUESTION}", "right": f"✓ {SERVICE_QUESTION}: "}
    for number, (name, source) in enumerate(SERVICE_ANSWERS.items(), start=1):
        page.evaluate(SET_SOURCE, [answer, source])
        run_cells(answer, index[check])
        print(f"{check} ({name} answer): {shown(check)}")
        if not shown(check).startswith(expected[name]):
            problems.append(f"{check} on the {name} answer shows {shown(check)!r}")
        shoot_above(page, out, f"{number:02d}-service-check-{name}", check)
    page.evaluate("async () => { await window.jupyterapp.commands.execute('docmanager:save'); }")
    page.wait_for_function(SAVED, timeout=60_000)
    saved = json.loads(notebook.read_text(encoding="utf-8"))["cells"][answer]["source"]
    if "".join(saved).strip() != SERVICE_ANSWERS["right"].strip():
        problems.append(f"the saved notebook's answer cell is {saved!r}")
    run_cells(index["submit()"])
    print(f"submit(): {shown('submit()')}")
    if not shown("submit()").startswith("Handed in: decode by ada, attempt 1,"):
        problems.append(f"submit() shows {shown('submit()')!r}")
    shoot_above(page, out, "03-service-submit-receipt", "submit()")
    return problems


def compress(path: Path) -> None:
    """A screenshot in at most 256 colours (a notebook has few): a fraction of its size, for the README."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256)
    small.save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebook", type=Path, action="append", help="repeat for several (default: decode's)")
    parser.add_argument("--all", action="store_true", help="every lesson of the chapter outline, in its order")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--check", action="append", default=[], metavar="QUESTION", help="also shoot check(QUESTION)")
    parser.add_argument("--service", action="store_true", help="a released notebook against grade serve, no lessons")
    args = parser.parse_args()
    if args.service:
        found = run_service(args.out.resolve(), args.chromium)
        for problem in found:
            print(f"PROBLEM: {problem}")
        print(f"Screenshots in {args.out}")
        sys.exit(1 if found else 0)
    if args.all:
        sys.path.insert(0, str(REPO))
        from grader.lessons import available_lessons, load_lesson, load_outline

        outline = load_outline()
        ids = [entry.id for entry in outline.lessons] if outline else available_lessons()
        notebooks = [load_lesson(lesson_id).notebook for lesson_id in ids]
    else:
        notebooks = [path.resolve() for path in args.notebook or [REPO / "notebooks" / "decode.ipynb"]]
    missing = [str(path) for path in notebooks if not path.is_file()]
    if missing:
        raise SystemExit(f"No notebook at {', '.join(missing)}.")
    problems = run(notebooks, args.out.resolve(), args.chromium, tuple(args.check))
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print(f"Screenshots in {args.out}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
