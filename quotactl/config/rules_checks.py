"""The rules' checks across values: names used twice, and the teams, shares and instance types
a rule names. Each finding points at the value to change, like the config's own checks.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from typing import TYPE_CHECKING

from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from quotactl.config.inventory import Inventory, Located
    from quotactl.config.rules_schema import AnyRule
    from quotactl.errors import Diagnostic


def rule_findings(inventory: Inventory, *, references: bool = True) -> list[Diagnostic]:
    """Duplicate rule names and unknown instance types; with ``references``, also the teams
    and shares the rules name that the config lacks (``--rules`` files are judged on the
    config under review instead: there a missing team fails the rule, not the load)."""
    found = _unique(inventory.rules) + _instance_types(inventory.rules)
    if references:
        found += _references(inventory)
    return found


def _unique(rules: list[Located[AnyRule]]) -> list[Diagnostic]:
    first: dict[str, Located[AnyRule]] = {}
    found = []
    for rule in rules:
        earlier = first.setdefault(rule.item.name, rule)
        if earlier is not rule:
            message = f"rule {rule.item.name!r} is defined twice (first at {earlier.cite('name')})"
            found.append(rule.report("name", message=message))
    return found


def _instance_types(rules: list[Located[AnyRule]]) -> list[Diagnostic]:
    known = training_instance_types()
    found = []
    for rule in rules:
        for instance_type in getattr(rule.item, "capacity", None) or {}:
            if instance_type not in known:
                message = f"{instance_type!r} is not a SageMaker training instance type"
                close = difflib.get_close_matches(instance_type, sorted(known), n=1, cutoff=0.8)
                if close:
                    message += f" (did you mean {close[0]!r}?)"
                found.append(rule.report("capacity", instance_type, message=message, at="key"))
    return found


def _references(inventory: Inventory) -> list[Diagnostic]:
    teams = {team.item.name for team in inventory.teams}
    queues_of: dict[str, list[str]] = defaultdict(list)
    for share in inventory.shares:
        queues_of[share.name].append(share.item.queue)
    addresses = {f"{queue}/{name}" for name, queues in queues_of.items() for queue in queues}
    found = []
    for rule in inventory.rules:
        team: str | None = getattr(rule.item, "team", None)
        ref: str | None = getattr(rule.item, "share", None)
        if team is not None and team not in teams and not inventory.is_broken("teams", team):
            message = _suggest(
                f"rule {rule.item.name!r}: team {team!r} is not defined", team, teams
            )
            found.append(rule.report("team", message=message))
        if ref is None or not inventory.complete:
            continue  # with values missing, the share may be in a team that failed the schema
        if "/" in ref and ref not in addresses:
            message = f"rule {rule.item.name!r}: share {ref!r} is not defined"
            found.append(rule.report("share", message=_suggest(message, ref, addresses)))
        elif "/" not in ref and ref not in queues_of:
            message = f"rule {rule.item.name!r}: share {ref!r} is not defined"
            found.append(rule.report("share", message=_suggest(message, ref, queues_of)))
        elif "/" not in ref and len(queues_of[ref]) > 1:
            places = ", ".join(f"{queue}/{ref}" for queue in queues_of[ref])
            message = (
                f"rule {rule.item.name!r}: share {ref!r} is on more than one queue: "
                f"write queue/name ({places})"
            )
            found.append(rule.report("share", message=message))
    return found


def _suggest(message: str, name: str, known: object) -> str:
    names = sorted(str(k) for k in known) if isinstance(known, set | dict) else []
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        return f"{message} (did you mean {close[0]!r}?)"
    return f"{message} (defined: {', '.join(names)})" if names else message
