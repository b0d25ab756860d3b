"""The view registry: every line of ``WHERE`` names a module that draws that core type in that
output, and every command reaches its view through it."""

from __future__ import annotations

import importlib
import io

import pytest

from quotactl.core.outputs import Output
from quotactl.render import views
from quotactl.render.views import WHERE, Screen

LINES = sorted(
    (kind, output, module) for kind, by in WHERE.items() for output, module in by.items()
)


def resolve(kind: str) -> type:
    module, _, name = kind.rpartition(".")
    found = getattr(importlib.import_module(module), name)
    assert isinstance(found, type), kind
    return found


@pytest.mark.parametrize(("kind", "output", "module"), LINES)
def test_each_line_names_the_module_that_draws_that_type_in_that_output(
    kind: str, output: str, module: str
) -> None:
    result_type = resolve(kind)
    assert result_type.__module__.startswith("quotactl.core."), "render draws core's values"
    draw = views.find(result_type, output)
    assert draw.__module__ == module


def test_a_type_without_a_view_is_a_lookup_error_not_a_silent_nothing() -> None:
    class Unknown:
        pass

    with pytest.raises(LookupError, match="no json view of"):
        views.show(Screen(io.StringIO(), io.StringIO()), Unknown(), Output.JSON)


def test_a_json_view_marks_the_screen_so_no_error_document_follows_it() -> None:
    screen = Screen(io.StringIO(), io.StringIO())
    screen.write_json({"format_version": "1"})
    assert screen.json_written
    assert screen.stdout.getvalue() == '{\n  "format_version": "1"\n}\n'  # type: ignore[attr-defined]


def test_notices_are_silenced_by_quiet_and_results_are_not() -> None:
    loud, quiet = (Screen(io.StringIO(), io.StringIO(), quiet=q) for q in (False, True))
    for screen in (loud, quiet):
        screen.notice("quotactl: wrote 3 jobs")
        screen.line("a result")
    assert loud.stderr.getvalue() == "quotactl: wrote 3 jobs\n"  # type: ignore[attr-defined]
    assert quiet.stderr.getvalue() == ""  # type: ignore[attr-defined]
    assert quiet.stdout.getvalue() == "a result\n"  # type: ignore[attr-defined]
