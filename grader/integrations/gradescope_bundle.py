"""The zip a course uploads to Gradescope as its autograder: ``grade gradescope-bundle --lesson decode``.

Gradescope unzips it into ``/autograder/source``, runs ``setup.sh`` once (as root) when it builds the image,
and runs ``run_autograder`` for every submission. The zip holds this package's source (``grader/``,
``pyproject.toml``, ``README.md``: a checkout's, or made from the installed distribution's metadata when
``grade`` runs from a wheel, :func:`package_files`) and one lesson: its ``exercises/<lesson>/`` folder
(definition and hidden suites) and its solution notebook, at the same relative paths as in the repository, and
nothing of any other lesson, and ``constraints.txt``, the versions of its dependencies where the bundle was built
(:mod:`grader.integrations.constraints`). ``setup.sh`` installs the package with pip into a virtual environment,
held to those versions, after installing ``python3-venv`` with apt-get if the image lacks ensurepip; ``run_autograder``
grades with ``grade gradescope`` and honours ``$AUTOGRADER_ROOT`` (default ``/autograder``) so the same
script can be tried in a scratch folder.

Both scripts close everything that holds answers (:data:`PUBLIC` names what stays open) to every other user
before anything is graded: Gradescope's containers usually cannot give the worker namespaces, so learner code
runs at the process level as a uid of its own, which reads whatever every user may (SECURITY.md, guarantee 2).
The lesson folder (hidden suites, mistakes, the course secret), the solution and the grader's cache folder
(``.grader-cache`` in the source folder unless ``$GRADER_CACHE_DIR`` says otherwise: the examples kept between
runs) become the grading user's alone (root's on Gradescope); ``grader/`` stays readable, so the worker can
import it, and holds no answers.
"""

from __future__ import annotations

import os
import shlex
import stat
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath

from packaging.requirements import Requirement

from grader.config import GRADESCOPE_ROOT, GRADESCOPE_VISIBILITY
from grader.environment import GRADESCOPE_ROOT_ENV, ISOLATION_ENV
from grader.errors import LessonError
from grader.files import atomic_path
from grader.integrations.constraints import FILE_NAME as CONSTRAINTS
from grader.integrations.constraints import constraints_text
from grader.model import Lesson
from grader.params import SECRET_FILE, course_secret

#: The repository (or unpacked sdist) this package was imported from.
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: Where setup.sh puts the virtual environment that run_autograder uses.
VENV = "/opt/inference-grader-venv"
#: The environment variable that overrides it, for setup.sh and run_autograder alike (tests use it).
VENV_ENV = "GRADER_VENV"
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis", ".mypy_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo")
_FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # same bytes for the same sources: a zip can be compared or cached
#: The bundle's top-level names the learner's worker may read (it imports ``grader``); every other one is closed.
PUBLIC = frozenset({"setup.sh", "run_autograder", CONSTRAINTS, "pyproject.toml", "README.md", "grader"})
#: The grader's cache folder in the bundle (relative to its source folder) when ``$GRADER_CACHE_DIR`` is not set.
CACHE = ".grader-cache"

# Shell, shared by both scripts (run in the source folder): a function that makes folders the grading user's alone
# (chown first, as root, so a file unzipped with another owner keeps no access), and the cache folder, made.
_CLOSE = """close_private() {{
    [ "$(id -u)" != 0 ] || chown -R 0:0 -- "$@"
    chmod -R go-rwx -- "$@"
}}
export GRADER_CACHE_DIR="${{GRADER_CACHE_DIR:-$PWD/{cache}}}"
mkdir -p "$GRADER_CACHE_DIR"
"""

# An f-string, then str.format (solution, lesson): a brace the script itself needs is written four times.
SETUP_SH = f"""#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image: it installs Python's venv and
# ensurepip if the image lacks them (Ubuntu 22.04 and 24.04 ship python3 without them, a bare image no python3),
# then this package from /autograder/source with the dependency versions of the environment that built the bundle
# ({CONSTRAINTS}). ${VENV_ENV} overrides where the virtual environment goes (to try this script elsewhere).
set -euo pipefail
cd "$(dirname "$0")"
{{close}}VENV="${{{{{VENV_ENV}:-{VENV}}}}}"
# `python3 -m venv --help` passes without ensurepip, and creating the venv would then fail: ask for both.
if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
    echo "setup.sh: python3 with venv and ensurepip is missing: installing python3 and python3-venv with apt-get"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv
fi
if ! python3 -c "import sys; sys.exit(sys.version_info < (3, 10))"; then
    echo "setup.sh: the grader needs Python 3.10 or newer; this image has $(python3 --version 2>&1)." >&2
    exit 1
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --upgrade -c {CONSTRAINTS} pip
"$VENV/bin/python" -m pip install -c {CONSTRAINTS} -e .
# Grade the solution once, here in the image: that records the examples the hidden tests replay for every
# submission (README, "Examples drawn once"). If it cannot be done here, each submission records them instead.
export GRADER_LESSONS="$PWD/exercises" GRADER_DAEMON=off
"$VENV/bin/python" -m grader.cli {{solution}} --lesson {{lesson}} >/dev/null 2>&1 || true
# The learner's worker runs as a uid of its own: leave it nothing with answers to read (gradescope_bundle.py).
close_private {{private}} "$GRADER_CACHE_DIR"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade the notebook in $ROOT/submission and write
# $ROOT/results/results.json. ROOT is ${root_env} if set (to try the autograder in a scratch folder),
# else {default_root}.
set -euo pipefail
ROOT="${{{root_env}:-{default_root}}}"
PYTHON="${{{venv_env}:-{venv}}}/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
cd "$ROOT/source"
# The learner's worker runs as a uid of its own: leave it nothing with answers to read (gradescope_bundle.py).
{close}close_private {private} "$GRADER_CACHE_DIR"
export GRADER_LESSONS="$ROOT/source/exercises"
{isolation}exec "$PYTHON" -m grader.cli gradescope --root "$ROOT" --lesson {lesson} --visibility {visibility}
"""


def bundle_files(lesson: Lesson, package_root: Path = PACKAGE_ROOT) -> dict[str, Path | bytes]:
    """Archive name -> file on disk (or its bytes) for everything the bundle carries besides its two scripts."""
    files = package_files(package_root)
    lesson_dir = PurePosixPath("exercises", lesson.id)
    for path in _tree(lesson.root):
        files[str(lesson_dir / path.relative_to(lesson.root).as_posix())] = path
    for extra in (lesson.suites, lesson.solution):  # normally inside the lesson folder or beside it in the repo
        placed = _placed(lesson_dir, lesson.root, extra)
        if extra.is_dir():
            files.update({str(placed / p.relative_to(extra).as_posix()): p for p in _tree(extra)})
        else:
            files[str(placed)] = extra
    missing = [str(p) for p in files.values() if isinstance(p, Path) and not p.is_file()]
    if missing:
        raise LessonError(f"Cannot build the Gradescope bundle: {', '.join(missing)} not found.")
    return files


#: The distribution this package is installed as (pyproject.toml's ``[project].name``).
DISTRIBUTION = "inference-grader"


def package_files(package_root: Path = PACKAGE_ROOT) -> dict[str, Path | bytes]:
    """The grader's own files the bundle carries: ``grader/``, and the ``pyproject.toml`` and ``README.md`` that
    setup.sh installs it from. From a checkout (or an unpacked sdist) they are its files; from an installed
    wheel, which holds no ``pyproject.toml``, they are made from the installed distribution's metadata
    (:func:`installed_project`), so the bundle is built wherever ``grade`` runs."""
    files: dict[str, Path | bytes] = {p.relative_to(package_root).as_posix(): p for p in _tree(package_root / "grader")}
    if (package_root / "pyproject.toml").is_file():
        files.update({name: package_root / name for name in ("pyproject.toml", "README.md")})
    else:
        files.update(installed_project(package_root))
    return files


def installed_project(package_root: Path = PACKAGE_ROOT) -> dict[str, bytes]:
    """``pyproject.toml`` and ``README.md`` for the installed distribution, as its metadata says: its name,
    version, Python and runtime dependencies (the extras are a learner's or a developer's, not the autograder's),
    the ``grade`` command and the package to find; the README is its long description. setup.sh's editable
    install reads ``grader/``'s files in place, and a plain one gets the package's data files too."""
    import json

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise LessonError(
            f"Cannot build the Gradescope bundle: {package_root} holds neither the grader's pyproject.toml (a "
            f"checkout) nor an installed {DISTRIBUTION}: run `grade gradescope-bundle` where the grader is installed "
            "(python3 -m pip install .) or from its checkout."
        ) from None
    info = dist.metadata.json
    runtime = [r for r in dist.requires or () if "extra" not in str(Requirement(r).marker or "")]
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    quoted = json.dumps  # a JSON string is a TOML basic string
    lines = [
        "# Made from the installed distribution's metadata by `grade gradescope-bundle` (an installed wheel holds",
        "# no pyproject.toml): what setup.sh needs to install the grader from this folder.",
        "[build-system]",
        'requires = ["setuptools>=64", "wheel"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {quoted(str(info['name']))}",
        f"version = {quoted(dist.version)}",
        f"description = {quoted(str(info.get('summary', '')))}",
        'readme = "README.md"',
        f"requires-python = {quoted(str(info.get('requires_python', '>=3.10')))}",
        "dependencies = [" + ", ".join(quoted(r) for r in runtime) + "]",
        "",
        "[project.scripts]",
        *(f"{quoted(name)} = {quoted(value)}" for name, value in sorted(scripts.items())),
        "",
        "[tool.setuptools.packages.find]",
        'include = ["grader*"]',
        "",
        "[tool.setuptools.package-data]",  # the files besides modules that the package reads when it runs
        "grader = [" + ", ".join(quoted(name) for name in _data_files(package_root / "grader")) + "]",
        "",
    ]
    readme = str(info.get("description") or f"# {DISTRIBUTION} {dist.version}\n")
    return {"pyproject.toml": "\n".join(lines).encode(), "README.md": readme.encode()}


def _data_files(package: Path) -> list[str]:
    """The package's files that are not modules, relative to it (``suites/pytest.ini``)."""
    return [p.relative_to(package).as_posix() for p in _tree(package) if p.suffix != ".py"]


def _placed(lesson_dir: PurePosixPath, lesson_root: Path, path: Path) -> PurePosixPath:
    """Where ``path`` goes in the zip so that the lesson's relative reference to it still resolves."""
    relative = os.path.normpath(os.path.join(str(lesson_dir), os.path.relpath(path, lesson_root)))
    if relative.startswith(".."):
        raise LessonError(
            f"Cannot build the Gradescope bundle: {path} is outside the folder the lesson's paths are relative to; "
            "keep the solution and suites within the repository."
        )
    placed = PurePosixPath(relative.replace(os.sep, "/"))
    if placed.parts[0] in PUBLIC:
        raise LessonError(
            f"Cannot build the Gradescope bundle: {path} would land in {placed.parts[0]}, which learner code may "
            "read; keep the solution and suites outside the grader package."
        )
    return placed


def _tree(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not p.name.endswith(_SKIP_SUFFIXES)
        and not _SKIP_DIRS.intersection(p.relative_to(folder).parts)
    )


def build_bundle(
    lesson: Lesson,
    out: Path,
    visibility: str = GRADESCOPE_VISIBILITY,
    package_root: Path = PACKAGE_ROOT,
    isolation: str | None = None,
) -> list[str]:
    """Write the autograder zip for ``lesson`` to ``out``; return the archive's names. ``isolation``: the level
    ``run_autograder`` asks for unless ``$GRADER_ISOLATION`` says otherwise (None: ``auto``, a sandbox or no grade;
    Gradescope's containers rarely allow one, and ``process`` is what the closed folders above are for)."""
    files = bundle_files(lesson, package_root)
    secret = course_secret(lesson.root.parent) if lesson.params else None
    secret_name = f"exercises/{SECRET_FILE}"
    private = " ".join(shlex.quote(name) for name in sorted({n.split("/")[0] for n in (*files, secret_name)} - PUBLIC))
    close = _CLOSE.format(cache=CACHE)
    run = RUN_AUTOGRADER.format(
        root_env=GRADESCOPE_ROOT_ENV,
        default_root=GRADESCOPE_ROOT,
        venv=VENV,
        venv_env=VENV_ENV,
        lesson=shlex.quote(lesson.id),
        visibility=shlex.quote(visibility),
        close=close,
        private=private,
        isolation=f'export {ISOLATION_ENV}="${{{ISOLATION_ENV}:-{shlex.quote(isolation)}}}"\n' if isolation else "",
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(out) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        solution = _placed(PurePosixPath("exercises", lesson.id), lesson.root, lesson.solution)
        setup = SETUP_SH.format(
            solution=shlex.quote(str(solution)),
            lesson=shlex.quote(lesson.id),
            close=close,
            private=private,
        )
        _add(zf, "setup.sh", setup.encode(), executable=True)
        _add(zf, "run_autograder", run.encode(), executable=True)
        project = files["pyproject.toml"]
        pyproject = project.read_text(encoding="utf-8") if isinstance(project, Path) else project.decode()
        _add(zf, CONSTRAINTS, constraints_text(pyproject).encode(), executable=False)
        for name, source in sorted(files.items()):
            data = source.read_bytes() if isinstance(source, Path) else source
            _add(zf, name, data, executable=False, private=name.split("/")[0] not in PUBLIC)
        if secret is not None:  # so Gradescope draws each learner's numbers as release and a batch do
            _add(zf, secret_name, secret + b"\n", executable=False, private=True)
        names = zf.namelist()
    return names


def _add(zf: zipfile.ZipFile, name: str, data: bytes, executable: bool, private: bool = False) -> None:
    """One file; a private one is its owner's alone already in the zip (the scripts close it again: unzip
    makes the folders it creates world-readable)."""
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    mode = 0o600 if private else 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
