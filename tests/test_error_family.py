"""Every error code is one class of the family in ``quotactl/errors.py``, documented in
docs/commands.md, and spelled nowhere else."""

from __future__ import annotations

import pickle
import re

from quotactl import errors
from quotactl.emulator import errors as wire_errors
from quotactl.errors import (
    BackendError,
    ConfigError,
    Diagnostic,
    QuotactlError,
    ResourceGoneError,
    UsageError,
    family,
)
from tests.conftest import REPO_ROOT
from tests.test_docs import tracked

ROW = re.compile(r"^\| `([a-z][a-z0-9-]*)` \|", re.M)
CODE_LITERAL = re.compile(r"""\bcode\s*=\s*["']""")
WIRE_SHAPES = "quotactl/emulator/errors.py"


def documented_codes() -> set[str]:
    page = (REPO_ROOT / "docs" / "commands.md").read_text()
    section = page.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    return set(ROW.findall(section))


def every_class() -> list[type[QuotactlError]]:
    found: list[type[QuotactlError]] = []
    pending = list(QuotactlError.__subclasses__())
    while pending:
        cls = pending.pop()
        if cls not in found:
            found.append(cls)
            pending.extend(cls.__subclasses__())
    return found


def test_every_documented_code_is_a_class_and_every_class_code_is_documented() -> None:
    assert set(family()) == documented_codes()
    for cls in every_class():
        assert cls.code in documented_codes(), cls.__name__


def test_each_code_is_defined_by_exactly_one_class() -> None:
    owners: dict[str, list[str]] = {}
    for cls in every_class():
        if "code" in cls.__dict__:
            owners.setdefault(cls.code, []).append(cls.__name__)
    assert {code: names for code, names in owners.items() if len(names) > 1} == {}


def test_only_usage_exits_64() -> None:
    """The boundary in ``quotactl.cli.app`` exits 64 for a ``UsageError`` and 1 for the rest."""
    assert [cls for cls in every_class() if issubclass(cls, UsageError)] == [UsageError]
    assert [code for code, cls in family().items() if issubclass(cls, UsageError)] == ["usage"]


def test_every_error_class_lives_in_quotactl_errors() -> None:
    strays = [
        f"{cls.__module__}.{cls.__name__}"
        for cls in every_class()
        if cls.__module__ != errors.__name__ and not cls.__module__.startswith("tests.")
    ]
    assert strays == []


def test_no_code_literal_outside_the_family() -> None:
    """A raise site names the class; ``code="..."`` is spelled only in quotactl/errors.py."""
    sources = tracked("quotactl/*.py", "quotactl/**/*.py")
    found = [
        f"{source}:{number}"
        for source in sources
        if source not in ("quotactl/errors.py", WIRE_SHAPES)
        for number, line in enumerate((REPO_ROOT / source).read_text().splitlines(), 1)
        if CODE_LITERAL.search(line)
    ]
    assert sources
    assert found == []


def test_the_emulators_wire_errors_share_no_code_with_the_family() -> None:
    wire = {
        cls.code
        for cls in vars(wire_errors).values()
        if isinstance(cls, type) and issubclass(cls, wire_errors.ServiceError)
    }
    assert wire
    assert wire.isdisjoint(family())


def test_an_error_crosses_a_process_boundary_whole() -> None:
    """A simulation worker sends its error back pickled: class, message, hint and fields."""
    gone = ResourceGoneError("share.q/a is already gone", retryable=True, hint="h")
    config = ConfigError([Diagnostic("f.yaml", 1, 2, "bad")], hint="fix it")
    back = pickle.loads(pickle.dumps(gone))
    assert type(back) is ResourceGoneError
    assert isinstance(back, BackendError)
    assert (back.code, back.message, back.hint, back.retryable, str(back)) == (
        "not-found",
        "share.q/a is already gone",
        "h",
        True,
        "share.q/a is already gone",
    )
    again = pickle.loads(pickle.dumps(config))
    assert (type(again), again.diagnostics, again.message, again.hint) == (
        ConfigError,
        config.diagnostics,
        "configuration has 1 error",
        "fix it",
    )
