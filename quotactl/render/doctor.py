"""``doctor``'s report: one line per check, as text, and its versioned JSON document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

FORMAT_VERSION = "1"


class CheckView(Protocol):
    """What is drawn of one check (``quotactl.api.Check``)."""

    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def message(self) -> str: ...


class CheckupView(Protocol):
    """What is drawn of a checkup (``quotactl.api.Checkup``)."""

    @property
    def backend(self) -> str: ...
    @property
    def checks(self) -> Sequence[CheckView]: ...


def doctor_text(checkup: CheckupView) -> str:
    """``pass  credentials     from environment variables, access key ****WXYZ`` per check,
    then the counts."""
    width = max((len(c.name) for c in checkup.checks), default=0)
    lines = [f"{c.status:<4}  {c.name:<{width}}  {c.message}" for c in checkup.checks]
    counts = {status: sum(c.status == status for c in checkup.checks) for status in _STATUSES}
    lines.append(
        f"backend {checkup.backend}: {counts['pass']} passed, {counts['warn']} "
        f"warning{'' if counts['warn'] == 1 else 's'}, {counts['fail']} failed"
    )
    return "\n".join(lines) + "\n"


_STATUSES = ("pass", "warn", "fail")


def doctor_json(checkup: CheckupView) -> dict[str, Any]:
    """``{"format_version": "1", "backend", "ok", "checks": [{"name", "status", "message"}]}``."""
    return {
        "format_version": FORMAT_VERSION,
        "backend": checkup.backend,
        "ok": all(c.status != "fail" for c in checkup.checks),
        "checks": [
            {"name": c.name, "status": c.status, "message": c.message} for c in checkup.checks
        ],
    }
