"""Every file's validated values merged into one inventory, each remembering its position."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from quotactl.config.schema import Share

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.config.schema import ConfigFile, Environment, Platform, Queue, Team
    from quotactl.config.source import SourceMap, YamlPath
    from quotactl.errors import Diagnostic, Severity

T = TypeVar("T")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


@dataclass(frozen=True)
class Located(Generic[T]):
    """A validated value and where it was written."""

    item: T
    source: SourceMap
    path: YamlPath

    def report(
        self,
        *sub: str | int,
        message: str,
        at: Literal["key", "value"] = "value",
        severity: Severity = "error",
    ) -> Diagnostic:
        return self.source.diagnostic((*self.path, *sub), message, at=at, severity=severity)

    def cite(self, *sub: str | int, at: Literal["key", "value"] = "value") -> str:
        return self.source.cite((*self.path, *sub), at=at)


@dataclass(frozen=True)
class LocatedShare(Located[Share]):
    team: Team

    @property
    def name(self) -> str:
        return self.item.name or self.team.name

    def name_report(self, message: str) -> Diagnostic:
        """At the share's ``name``, or at the share itself when the name is the team's."""
        return self.report("name" if self.item.name else "queue", message=message)


@dataclass
class Inventory:
    """Every file's values, merged, each with its position."""

    platforms: list[Located[Platform]]
    environments: list[Located[Environment]]
    queues: list[Located[Queue]]
    teams: list[Located[Team]]
    shares: list[LocatedShare]

    @classmethod
    def of(cls, files: Sequence[tuple[ConfigFile, SourceMap]]) -> Inventory:
        inventory = cls([], [], [], [], [])
        for config, source in files:
            if config.platform is not None:
                inventory.platforms.append(Located(config.platform, source, ("platform",)))
            for i, env in enumerate(config.environments):
                inventory.environments.append(Located(env, source, ("environments", i)))
            for i, queue in enumerate(config.queues):
                inventory.queues.append(Located(queue, source, ("queues", i)))
            for i, team in enumerate(config.teams):
                inventory.teams.append(Located(team, source, ("teams", i)))
                for j, share in enumerate(team.shares):
                    path = ("teams", i, "shares", j)
                    inventory.shares.append(LocatedShare(share, source, path, team))
        return inventory


def by_name(values: Iterable[Located[N]]) -> dict[str, Located[N]]:
    """Name -> value; the first definition wins (a second one is reported as a duplicate)."""
    named: dict[str, Located[N]] = {}
    for value in values:
        named.setdefault(value.item.name, value)
    return named
