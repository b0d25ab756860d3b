"""``doctor``'s report: one line per check, as text, and its versioned JSON document."""

from __future__ import annotations

from typing import Any

from quotactl.core.checkup import Checkup
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view

FORMAT_VERSION = "1"


@view(Checkup, Output.TEXT)
def show_checkup(checkup: Checkup, screen: Screen) -> None:
    screen.write(doctor_text(checkup))


@view(Checkup, Output.JSON)
def show_checkup_json(checkup: Checkup, screen: Screen) -> None:
    screen.write_json(doctor_json(checkup))


def doctor_text(checkup: Checkup) -> str:
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


def doctor_json(checkup: Checkup) -> dict[str, Any]:
    """``{"format_version": "1", "backend", "ok", "checks": [{"name", "status", "message"}]}``."""
    return {
        "format_version": FORMAT_VERSION,
        "backend": checkup.backend,
        "ok": all(c.status != "fail" for c in checkup.checks),
        "checks": [
            {"name": c.name, "status": c.status, "message": c.message} for c in checkup.checks
        ],
    }
