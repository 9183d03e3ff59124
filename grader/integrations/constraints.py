"""Pin the grader's dependencies at bundle time: a pip constraints file made from the environment building it.

The Gradescope bundle's ``setup.sh`` installs the package with pip when Gradescope builds the image, which may
be weeks after the bundle was made; with only ``pyproject.toml``'s lower bounds, two images built on different
days would grade with different pytest, hypothesis or IPython. :func:`constraints_text` lists every runtime
dependency of the grader (``[project].dependencies`` of the bundled ``pyproject.toml``, without extras), and
theirs, transitively, at the version installed here (``importlib.metadata``), as ``name==version`` lines that
``pip install -c constraints.txt`` holds to. A requirement whose marker does not hold here (``tomli`` on
Python 3.11+) is pinned too when it is installed, so an image on an older Python gets the same version.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from grader.errors import LessonError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE_NAME = "constraints.txt"
#: Installed beside the grader by setup.sh (upgraded first): pinned as well, when this environment has it.
_TOOLS = ("pip",)


def runtime_requirements(pyproject: Path | str) -> list[str]:
    """The package's own dependencies (no extras), as ``pyproject.toml`` (its path, or its text) declares them."""
    text = pyproject.read_text(encoding="utf-8") if isinstance(pyproject, Path) else pyproject
    project = tomllib.loads(text).get("project", {})
    return [str(r) for r in project.get("dependencies", [])]


def pinned(requirements: list[str]) -> dict[str, str]:
    """Canonical name -> installed version of each requirement and of what it requires, transitively."""
    versions: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(Requirement(r), frozenset({""})) for r in requirements]
    while todo:
        requirement, parent_extras = todo.pop()
        name = canonicalize_name(requirement.name)
        if not _applies(requirement.marker, parent_extras, name):
            continue
        extras = frozenset({"", *requirement.extras})
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise LessonError(
                f"Cannot pin {requirement.name} for the Gradescope bundle: it is not installed here. Build the "
                "bundle in an environment where the grader is installed with its dependencies (pip install -e .)."
            ) from None
        versions[name] = dist.version
        todo.extend((Requirement(r), extras) for r in dist.requires or ())
    return versions


def _applies(marker: Marker | None, extras: frozenset[str], name: str) -> bool:
    """Whether a requirement counts: its marker holds here for one of the extras asked for, or it holds only on
    another platform or Python (no extra named) and the package is installed all the same."""
    if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
        return True
    if "extra" in str(marker):
        return False
    return _installed(name)


def _installed(name: str) -> bool:
    """Whether ``name`` is installed here as pip sees it: a distribution on the path, not a private copy another
    package keeps in its own folder (setuptools, once imported, puts its ``_vendor`` folder on ``sys.path``, and
    the tomli in it is no install of tomli: a bundle built in such a process pinned it, one built in another did
    not)."""
    paths = [p for p in sys.path if "_vendor" not in Path(p).parts]
    return any(True for _ in metadata.distributions(name=name, path=paths))


def constraints_text(pyproject: Path | str) -> str:
    """The constraints file's text: a header saying where the versions come from, then sorted pins."""
    versions = pinned(runtime_requirements(pyproject))
    for tool in _TOOLS:
        try:
            versions.setdefault(tool, metadata.version(tool))
        except metadata.PackageNotFoundError:
            pass
    header = (
        "# The versions of the grader's dependencies in the environment that built this bundle (Python "
        f"{platform.python_version()}),\n# held to by setup.sh's pip install: every image built from it grades alike.\n"
    )
    return header + "".join(f"{name}=={version}\n" for name, version in sorted(versions.items()))
