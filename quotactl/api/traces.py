"""``export_trace``: the live account's job history as a trace that ``simulate`` replays;
``import_trace``: a public cluster trace as one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.files import check_writable, replacing
from quotactl.core.simulate.written import ExportedTrace, ImportedTrace

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account


def export_trace(
    account: Account,
    out: Path,
    queues: Sequence[str] | None = None,
    *,
    since: float | None = None,
    priorities: bool = False,
) -> ExportedTrace:
    """Write every job of ``queues`` (default: every quota-managed queue) submitted in the
    last ``since`` seconds to ``out``, in submission order; the file appears whole or not at
    all. ``priorities`` reads each job's priority (one DescribeServiceJob call per job)."""
    from quotactl.aws.job_history import queue_names
    from quotactl.aws.trace_export import export_trace as write_history

    check_writable(out, "trace file")  # before the first call: a bad --out costs nothing
    names = queue_names(account.live, queues or None)
    with replacing(out, "trace file") as stream:
        tally = write_history(account.batch, names, since=since, priorities=priorities, out=stream)
    return ExportedTrace(names, tally, out)


def trace_mapping(pairs: Sequence[str]) -> dict[str, str]:
    """``--map GROUP=SHARE`` options as a mapping of groups to shares (``usage`` if one is
    malformed)."""
    from quotactl.core.simulate.public import parse_mapping
    from quotactl.errors import UsageError

    try:
        return parse_mapping(pairs)
    except ValueError as exc:
        raise UsageError(f"--map: {exc}") from None


DEFAULT_IMPORT_TYPE = "ml.p5.48xlarge"
"""The instance type imported jobs ask for unless ``--instance-type`` says (8 GPUs each)."""
DEFAULT_GPUS_PER_INSTANCE = 8


def import_trace(
    kind: str,
    path: Path,
    mapping: Mapping[str, str],
    out: Path,
    *,
    instance_type: str = DEFAULT_IMPORT_TYPE,
    gpus_per_instance: int = DEFAULT_GPUS_PER_INSTANCE,
) -> ImportedTrace:
    """Write the public cluster trace at ``path`` (format ``kind``) to ``out`` as a quotactl
    trace, its groups mapped to shares by ``mapping``; the file appears whole or not at all."""
    from quotactl.core.files import check_readable
    from quotactl.core.simulate import write_trace
    from quotactl.core.simulate.formats import TraceFormat, records
    from quotactl.core.simulate.public import convert

    if not path.is_dir():
        check_readable(path, "trace file")
    check_writable(out, "trace file")
    rows, tally = convert(
        records(TraceFormat(kind), path), mapping, instance_type, gpus_per_instance
    )
    with replacing(out, "trace file") as stream:
        write_trace(rows, stream)
    return ImportedTrace(tally, path, out)
