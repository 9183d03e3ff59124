"""The README's examples run and say what actually happens, so the README cannot drift from the code.

A fenced block is tested when an HTML comment (invisible on GitHub) stands just before it:

- ``<!-- test: run -->``: a ``bash`` block runs (its lines joined by ``&&``; a ``python3 -m pip install .``,
  ``-e .`` or ``-e '.[EXTRAS]'`` step is only checked: each extra must exist in pyproject.toml, as the tests
  run installed; tests/test_package.py installs the built package; making and entering ``.venv`` is left out,
  as the tests run in an environment already) in
  a scratch folder that sees the repository's files, and must exit 0; a ``python`` block runs with
  ``python3``. When a command writes ``--out DIR``, every file the table under "What appears in RESULTS"
  names must be there.
- ``<!-- test: usage -->``: a synopsis (``grade [SUBCOMMAND] ...``): the options it shows are exactly those
  of ``grade SUBCOMMAND --help``.
- ``<!-- test: output of `COMMAND`; may differ: KEY, KEY -->``: a ``json`` block is what COMMAND prints:
  the same keys at every level, the same values except those of the keys that may differ (they depend on
  the machine), and each documented element of a list of objects with an ``id`` is the actual one with
  that id.

Blocks without a marker (install steps, the test command itself, examples with placeholders) are prose.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLASS_STEP, REPO, scratch
from tests.conftest import run_in as run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

README = REPO / "README.md"
_MARKED = re.compile(
    r"^<!--\s*test:\s*(?P<what>.*?)\s*-->\s*\n(?:\s*\n)*```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^```", re.M | re.S
)
_HEADING = re.compile(r"^#{2,4} (.+)$", re.M)
_PIP_INSTALL = re.compile(r"^python3? -m pip install (?:-e )?(?:\.|'\.\[(?P<extras>[\w,-]+)\]')$")
#: Making and entering the virtual environment `.venv`: left out, as the tests run in one already.
_VENV = re.compile(r"^(?:python3? -m venv \.venv|\. \.venv/bin/activate)$")


@dataclass(frozen=True)
class Block:
    what: str
    lang: str
    body: str
    heading: str
    line: int

    @property
    def id(self) -> str:
        return f"line {self.line} ({self.heading}): {self.what.split(';')[0]}"


def marked_blocks(text: str) -> list[Block]:
    blocks = []
    for match in _MARKED.finditer(text):
        headings = [h for h in _HEADING.finditer(text, 0, match.start())]
        heading = headings[-1].group(1) if headings else "top"
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(match["what"], match["lang"], match["body"], heading, line))
    return blocks


BLOCKS = marked_blocks(README.read_text(encoding="utf-8"))


def of_kind(kind: str) -> list[Any]:
    return [pytest.param(b, id=b.id) for b in BLOCKS if b.what.split()[0] == kind]


def test_the_readme_marks_its_runnable_blocks() -> None:
    kinds = {b.what.split()[0] for b in BLOCKS}
    assert {"run", "usage", "output"} <= kinds, f"marked blocks: {[b.id for b in BLOCKS]}"
    unknown = [b.id for b in BLOCKS if b.what.split()[0] not in ("run", "usage", "output")]
    assert not unknown, f"unknown markers (see tests/test_readme.py for the ones there are): {unknown}"


def extras() -> set[str]:
    with open(REPO / "pyproject.toml", "rb") as f:
        return set(tomllib.load(f)["project"]["optional-dependencies"])


def shell_steps(body: str) -> list[str]:
    """The block's commands, the pip install steps checked against pyproject.toml and left out."""
    steps = [
        s.strip()
        for line in body.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
        for s in line.split("&&")
    ]
    kept = []
    for step in steps:
        install = _PIP_INSTALL.match(step)
        if install:
            missing = set((install["extras"] or "").split(",")) - extras() - {""}
            assert not missing, f"`{step}` names extras that pyproject.toml does not define: {missing}"
        elif not _VENV.match(step):
            kept.append(step)
    return kept


def results_files() -> list[str]:
    """The file patterns of the table under "What appears in RESULTS" (``<learner>`` becomes ``*``)."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^#+ What appears in RESULTS\n(.*?)(?=^#)", text, re.M | re.S)
    assert section, 'the README has no section "What appears in RESULTS" to check the files against'
    patterns: list[str] = []
    for row, what in re.findall(r"^\| *(`.*?) *\|[^|]*\|(.*)$", section.group(1), re.M):
        if what.strip().startswith("with `--"):  # written only when that option is given
            continue
        for name in re.findall(r"`([^`]+)`", row):
            if name.startswith(".") and patterns:  # "`feedback/<learner>.html`, `.md`": the same, with .md
                name = patterns[-1].rsplit(".", 1)[0] + name
            patterns.append(re.sub(r"<[^>]+>", "*", name))
    assert patterns, "the table under What appears in RESULTS names no file"
    return patterns


@pytest.mark.slow
@pytest.mark.parametrize("block", of_kind("run"))
def test_a_runnable_block_runs(block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    where = scratch(tmp_path)
    if block.lang == "python":
        result = run([sys.executable, "-c", block.body], where)
        assert result.returncode == 0, result.stderr[-3000:]
        return
    assert block.lang in ("bash", "sh", "console", ""), f"cannot run a {block.lang} block"
    for step in shell_steps(block.body):
        if step == CLASS_STEP:  # run once a session, for tests/test_chapter_examples.py too
            result, where = request.getfixturevalue("graded_class")
        else:
            result = run(["bash", "-c", step], where)
        assert result.returncode == 0, (
            f"`{step}` exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
        )
        out = re.search(r"--out (\S+)", step)
        if out:
            klass = re.match(r"grade class (\S+)", step)  # a results folder per lesson, then the chapter's
            lessons = sorted(p.name for p in (where / klass.group(1)).iterdir()) if klass else [""]
            missing = [f"{lesson}/{p}" for lesson in lessons for p in results_files()]
            missing = [m for m in missing if not list((where / out.group(1)).glob(m.lstrip("/")))]
            if klass:
                missing += [
                    m for m in ("chapter/chapter.csv", "chapter/chapter.md") if not (where / out.group(1) / m).is_file()
                ]
            assert not missing, f"`{step}` did not write what the README says it does: {missing}"


def options_in(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text)) - {"--help", "--version"}


@pytest.mark.parametrize("block", of_kind("usage"))
def test_a_synopsis_shows_exactly_the_commands_options(block: Block) -> None:
    words = block.body.split()
    assert words[0] == "grade", block.body
    command = [words[1]] if words[1].islower() and not words[1].startswith("-") else ["notebook"]
    help_text = run(["grade", *command, "--help"], REPO, timeout=60)
    assert help_text.returncode == 0, help_text.stderr
    assert options_in(block.body) == options_in(help_text.stdout), (
        f"the README's synopsis vs `grade {command[0]} --help`:\n{help_text.stdout}"
    )


def differences(documented: Any, actual: Any, varies: set[str], where: str = "") -> list[str]:
    """Where ``actual`` is not as documented (see the module's docstring)."""
    if isinstance(documented, dict) and isinstance(actual, dict):
        if set(documented) != set(actual):
            return [f"{where or 'the object'} has the keys {sorted(actual)}, the README shows {sorted(documented)}"]
        return [
            d
            for key in documented
            if key not in varies
            for d in differences(documented[key], actual[key], varies, f"{where}.{key}")
        ]
    if (
        isinstance(documented, list)
        and isinstance(actual, list)
        and documented
        and all(isinstance(d, dict) and "id" in d for d in documented)
    ):
        by_id = {a.get("id"): a for a in actual if isinstance(a, dict)}
        return [
            d
            for item in documented
            for d in (
                differences(item, by_id[item["id"]], varies, f"{where}[{item['id']}]")
                if item["id"] in by_id
                else [f"{where} has no id {item['id']!r}"]
            )
        ]
    return [] if documented == actual else [f"{where}: the README shows {documented!r}, the command gives {actual!r}"]


@pytest.mark.slow
@pytest.mark.parametrize("block", of_kind("output"))
def test_a_documented_output_is_what_the_command_prints(block: Block, tmp_path: Path) -> None:
    spec = re.fullmatch(r"output of `(?P<command>[^`]+)`(?:; may differ: (?P<varies>[\w, ]+))?", block.what)
    assert spec, f"write the marker as <!-- test: output of `COMMAND`; may differ: KEY, KEY -->, not {block.what!r}"
    varies = {k.strip() for k in (spec["varies"] or "").split(",") if k.strip()}
    result = run(["bash", "-c", spec["command"]], scratch(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    found = differences(json.loads(block.body), json.loads(result.stdout), varies)
    assert not found, "\n".join(found)


def test_the_marker_reader_finds_blocks_and_their_sections() -> None:
    text = (
        "## A\n\n<!-- test: run -->\n```bash\necho hi\n```\n\n```bash\nnot marked\n```\n"
        "### B\n<!-- test: usage -->\n\n```\ngrade x\n```\n"
    )
    assert [(b.what, b.lang, b.body, b.heading) for b in marked_blocks(text)] == [
        ("run", "bash", "echo hi\n", "A"),
        ("usage", "", "grade x\n", "B"),
    ]
    assert (
        differences(
            {"a": 1, "q": [{"id": "x", "s": 2}]}, {"a": 1, "q": [{"id": "y", "s": 0}, {"id": "x", "s": 2}]}, set()
        )
        == []
    )
    assert differences({"a": 1, "b": "here"}, {"a": 1, "b": "there"}, {"b"}) == []
    assert differences({"a": 1}, {"a": 2}, set()) == [".a: the README shows 1, the command gives 2"]
    assert differences({"a": 1}, {"a": 1, "new": 0}, set()) and differences({"q": [{"id": "x"}]}, {"q": []}, set())


def test_ci_runs_the_readmes_test_command_in_the_environment_its_first_command_makes() -> None:
    text = README.read_text(encoding="utf-8")
    second = re.search(r"^The second runs the tests.*?```bash\n(.*?)```", text, re.M | re.S)
    assert second, 'the README\'s test command is the bash block after "The second runs the tests"'
    wanted = ["python3 -m venv .venv", ". .venv/bin/activate", *(s.strip() for s in second.group(1).split("&&"))]
    ci = [set(line.split()) for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    missing = [step for step in wanted if not any(set(step.split()) <= line for line in ci)]
    assert not missing, f".ci/run does not run these steps of the README's: {missing}"
