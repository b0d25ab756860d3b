"""Options and arguments that several commands share, defined once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(
        metavar="PATH",
        help="Config files or directories (recursive *.yaml, *.yml) [default: configs/].",
        show_default=False,
    ),
]
