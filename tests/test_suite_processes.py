"""How the suite is spread over processes (tests/conftest.py): by module, the lesson gates by lesson."""

from __future__ import annotations

import inspect

from tests.conftest import scope_of


def test_a_module_is_one_unit_and_the_lesson_gates_one_per_lesson() -> None:
    assert scope_of("tests/test_cli.py::test_x") == "tests/test_cli.py"
    assert scope_of("tests/test_cli.py::test_x[a-b]") == "tests/test_cli.py"
    assert scope_of("tests/test_cli.py::TestK::test_x") == "tests/test_cli.py"
    gates = "tests/test_lesson_gates.py"
    assert scope_of(f"{gates}::test_the_audit_explains_every_survivor[decode]") == f"{gates}[decode]"
    assert scope_of(f"{gates}::test_grade_gives_the_solution_full_marks[decode]") == f"{gates}[decode]"
    assert scope_of(f"{gates}::test_the_course_has_lessons") == gates


def test_the_scheduler_hook_overrides_the_method_xdist_calls() -> None:
    """xdist's loadscope scheduler asks ``_split_scope(nodeid)`` for each test's unit: if a release renames it,
    the override would silently stop splitting the gates by lesson, so this fails instead."""
    from xdist.scheduler import LoadScopeScheduling

    source = inspect.getsource(LoadScopeScheduling)
    assert "def _split_scope(self, nodeid" in source and "self._split_scope(" in source
