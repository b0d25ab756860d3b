"""What Ctrl-C (SIGINT) and SIGTERM do to a running command.

The first signal while a command works raises ``KeyboardInterrupt`` where the command is, so
that it stops and says what it had done; signals after that are ignored while it cleans up
(releases the stack lock, removes a temporary file), so that a second Ctrl-C cannot leave the
lock or a partial file behind. Once the command's work is done (``finish``), a signal is
ignored too: the command prints its result and exits 0, because everything was done.

A command that loops (``govern --every``) may ask for a graceful stop instead (``graceful``):
the first signal then only sets ``stopping``, and the command finishes the work in hand (the
current cycle) and stops.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass


@dataclass
class Interrupts:
    """The signal policy of one command: whether its work is done, and what it received."""

    done: bool = False
    received: int = 0
    graceful: bool = False
    """Whether a signal asks the command to stop after the work in hand, not at once."""
    stopping: bool = False

    def finish(self) -> None:
        """The work is done: from now on an interrupt changes nothing."""
        self.done = True

    def handle(self, signum: int, frame: object) -> None:
        self.received += 1
        if self.done or self.received > 1:
            return
        if self.graceful:
            self.stopping = True
            return
        raise KeyboardInterrupt

    def install(self) -> None:
        """Take SIGINT and SIGTERM for this process (the console script only)."""
        signal.signal(signal.SIGINT, self.handle)
        signal.signal(signal.SIGTERM, self.handle)
