"""Every file's validated values merged into one inventory, each remembering its position."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from quotactl.config.schema import Share

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.config.positions import SourceMap, YamlPath
    from quotactl.config.rules_schema import AnyRule
    from quotactl.config.schema import ConfigFile, Environment, Platform, Queue, Team
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


@dataclass(frozen=True)
class Salvaged:
    """What a file that failed the schema still says: the values that passed on their own
    (with their index in the file's lists) and the names of the ones that did not.

    Checking the rest of the config against these finds every other problem in the same
    run, and a reference to a name whose value is already reported is not reported again.
    """

    config: ConfigFile
    indices: dict[str, list[int]] = field(default_factory=dict)
    broken: dict[str, set[str]] = field(default_factory=dict)
    broken_platform: bool = False


@dataclass
class Inventory:
    """Every file's values, merged, each with its position."""

    platforms: list[Located[Platform]]
    environments: list[Located[Environment]]
    queues: list[Located[Queue]]
    teams: list[Located[Team]]
    shares: list[LocatedShare]
    rules: list[Located[AnyRule]] = field(default_factory=list)
    broken: dict[str, set[str]] = field(default_factory=dict)
    """Names of environments, queues and teams written but invalid (already reported)."""
    broken_platform: bool = False
    complete: bool = True
    """False when some value failed the schema: the sharing graph is then not judged."""

    @classmethod
    def of(cls, files: Sequence[tuple[ConfigFile | Salvaged, SourceMap]]) -> Inventory:
        inventory = cls([], [], [], [], [])
        for entry, source in files:
            config: ConfigFile = entry.config if isinstance(entry, Salvaged) else entry
            indices: dict[str, list[int]] = {}
            if isinstance(entry, Salvaged):
                indices = entry.indices
                inventory.complete = False
                inventory.broken_platform |= entry.broken_platform
                for kind, names in entry.broken.items():
                    inventory.broken.setdefault(kind, set()).update(names)

            def index(kind: str, i: int, indices: dict[str, list[int]] = indices) -> int:
                return indices[kind][i] if kind in indices else i

            if config.platform is not None:
                inventory.platforms.append(Located(config.platform, source, ("platform",)))
            for i, env in enumerate(config.environments):
                at = ("environments", index("environments", i))
                inventory.environments.append(Located(env, source, at))
            for i, queue in enumerate(config.queues):
                inventory.queues.append(Located(queue, source, ("queues", index("queues", i))))
            for i, team in enumerate(config.teams):
                k = index("teams", i)
                inventory.teams.append(Located(team, source, ("teams", k)))
                for j, share in enumerate(team.shares):
                    path = ("teams", k, "shares", j)
                    inventory.shares.append(LocatedShare(share, source, path, team))
            for i, rule in enumerate(config.rules):
                inventory.rules.append(Located(rule, source, ("rules", index("rules", i))))
        return inventory

    def is_broken(self, kind: str, name: str) -> bool:
        """``name`` is a value of ``kind`` written in some file but invalid there."""
        return name in self.broken.get(kind, set())


def by_name(values: Iterable[Located[N]]) -> dict[str, Located[N]]:
    """Name -> value; the first definition wins (a second one is reported as a duplicate)."""
    named: dict[str, Located[N]] = {}
    for value in values:
        named.setdefault(value.item.name, value)
    return named
