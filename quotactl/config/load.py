"""Files -> checked config -> ``DesiredState``: the one entry point, ``load_config``.

Stages: read and parse every file (YAML problems), validate each file against the schema
(types, keys, ranges), then check the merged config (duplicates, references, AWS limits,
sharing-graph warnings). Every problem is reported in one run: a file that fails the schema
still takes part in the checks with the values that passed on their own, and a reference to a
value that failed is not reported again (one typo never cascades into ten findings). Only a
file that cannot be read as a mapping at all stops the checks, since what it defines is unknown.
The sharing-graph warnings are judged only on a config whose every value passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from quotactl.config.builder import yaml_type
from quotactl.config.checks import check
from quotactl.config.desired import to_desired
from quotactl.config.inventory import Inventory, Salvaged
from quotactl.config.messages import diagnostics_from
from quotactl.config.policy_checks import policy_findings
from quotactl.config.positions import SourceMap
from quotactl.config.rules_checks import rule_findings
from quotactl.config.rules_schema import rule_adapter
from quotactl.config.rules_values import to_rules
from quotactl.config.schema import Config, ConfigFile, Environment, Platform, Queue, Team
from quotactl.config.source import parse_yaml
from quotactl.core.files import MAX_CONFIG_BYTES, check_readable, check_size, files_under
from quotactl.errors import ConfigError, Diagnostic, NotFoundError
from quotactl.servicemodel.instance_types import prefetch_instance_types

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule

DEFAULT_PATHS = (Path("configs"),)
SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class LoadedConfig:
    """A valid configuration: its AWS resources, its typed model, its warnings, its files."""

    desired: DesiredState
    model: Config
    diagnostics: list[Diagnostic]
    """Warnings only: a config with an error never loads."""
    files: list[Path]
    rules: tuple[Rule, ...] = ()
    """The rules of every file, in file order."""

    @property
    def warnings(self) -> list[Diagnostic]:
        """The same as ``diagnostics`` (kept because commands read it under this name)."""
        return [d for d in self.diagnostics if d.severity == "warning"]


def load_config(paths: Sequence[Path]) -> LoadedConfig:
    """Load, validate and convert the config at ``paths`` (files or directories; none: configs/).

    Raises ``NotFoundError`` for a missing path or a directory without YAML files, and
    ``ConfigError`` (every error, plus any warnings) when the config is invalid.
    """
    prefetch_instance_types()  # read while the files are parsed; the checks need the list
    files = discover_files(paths)
    order = {str(path): index for index, path in enumerate(files)}
    parsed: list[tuple[ConfigFile | Salvaged, SourceMap]] = []
    errors: list[Diagnostic] = []
    unreadable = False
    for path in files:
        config, source, found = _load_file(path)
        errors += found
        if config is None:
            unreadable = True
        else:
            parsed.append((config, source))
    if unreadable or not parsed:
        raise ConfigError(_ordered(errors, order))
    inventory = Inventory.of(parsed)
    found = [
        *errors,
        *check(inventory, parsed[0][1]),
        *policy_findings(inventory),
        *rule_findings(inventory),
    ]
    findings = _ordered(found, order)
    if any(d.severity == "error" for d in findings):
        raise ConfigError(findings)
    configs = [c for c, _ in parsed if isinstance(c, ConfigFile)]
    platform = next(c.platform for c in configs if c.platform is not None)
    model = Config(
        platform=platform,
        environments=[env for c in configs for env in c.environments],
        queues=[queue for c in configs for queue in c.queues],
        teams=[team for c in configs for team in c.teams],
        rules=[rule for c in configs for rule in c.rules],
    )
    return LoadedConfig(to_desired(model), model, findings, files, to_rules(model.rules))


def load_rules(paths: Sequence[Path]) -> tuple[Rule, ...]:
    """The ``rules:`` of the config files at ``paths`` (``--rules PATH``: the GitOps workflow
    passes the base branch's), checked as in any config file (schema, names used twice,
    instance types) with positions; every other key of those files is left unread. The
    teams and shares they name are not checked here: a rule naming one that the config
    under review lacks fails when it is judged."""
    files = discover_files(paths)
    order = {str(path): index for index, path in enumerate(files)}
    parsed: list[tuple[ConfigFile | Salvaged, SourceMap]] = []
    errors: list[Diagnostic] = []
    for path in files:
        data, source, found = read_document(path)
        errors += found
        rules = data.get("rules", []) if isinstance(data, dict) else []
        try:
            parsed.append((ConfigFile.model_validate({"rules": rules}), source))
        except ValidationError as exc:
            errors += diagnostics_from(exc, source)
            parsed.append((salvage({"rules": rules}), source))
    errors += rule_findings(Inventory.of(parsed), references=False)
    if any(d.severity == "error" for d in errors):
        raise ConfigError(_ordered(errors, order))
    return to_rules(rule for config, _ in parsed for rule in _config_of(config).rules)


def _config_of(entry: ConfigFile | Salvaged) -> ConfigFile:
    return entry.config if isinstance(entry, Salvaged) else entry


def discover_files(paths: Sequence[Path]) -> list[Path]:
    """Each path's YAML files: a file as given, a directory recursively in sorted order; a
    link under a directory that leads outside ``paths`` is ``config-outside-tree``."""
    files: list[Path] = []
    seen: set[Path] = set()
    roots = list(paths or DEFAULT_PATHS)
    for path in roots:
        if path.is_dir():
            found = files_under(path, SUFFIXES, roots)
            if not found:
                raise NotFoundError(
                    f"no configuration files in {path}",
                    hint="a config directory holds *.yaml or *.yml files (searched recursively)",
                )
        else:
            check_readable(
                path,
                "config path",
                hint="pass config files or directories; the default is configs/",
            )
            found = [path]
        for file in found:
            identity = file.resolve()
            if identity not in seen:
                seen.add(identity)
                files.append(file)
    return files


def read_document(
    path: Path,
    *,
    expected: str = "a mapping of config keys",
    what: str = "config file",
    limit: int = MAX_CONFIG_BYTES,
) -> tuple[object, SourceMap, list[Diagnostic]]:
    """One YAML (or JSON) file as data with positions; problems as diagnostics, never raised.

    The data is None when the file could not be read or parsed at all.
    """
    name = str(path)
    source = SourceMap(name)
    check_size(path, limit, what)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, source, [source.diagnostic((), f"cannot read file: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        message = f"not UTF-8 text: cannot decode byte {raw[exc.start]:#04x}"
        return None, source, [Diagnostic(name, line, column, message)]
    if path.suffix.lower() == ".json" and (problem := json_syntax_error(text, name)):
        return None, source, [problem]
    parsed = parse_yaml(text, name, expected=expected)
    return parsed.data, parsed.source, parsed.diagnostics


def json_syntax_error(text: str, name: str) -> Diagnostic | None:
    """A ``.json`` file that is no JSON, said in JSON's terms (YAML would read it otherwise)."""
    import json

    if not text.strip():
        return None  # empty: worded as for any file
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return Diagnostic(name, exc.lineno, exc.colno, f"JSON syntax error: {exc.msg}")
    except RecursionError:
        return Diagnostic(name, 1, 1, "JSON nested too deeply")
    return None


def _load_file(
    path: Path,
) -> tuple[ConfigFile | Salvaged | None, SourceMap, list[Diagnostic]]:
    """The file's config; what passed of it (``Salvaged``) with its errors; or None when it
    cannot be read as a mapping at all."""
    data, source, diagnostics = read_document(path)
    if data is None and diagnostics:
        return None, source, diagnostics
    if not isinstance(data, dict):
        message = (
            "a config file must be a mapping (keys platform, environments, queues, teams), "
            f"but this one is {yaml_type(data)}"
        )
        return None, source, [source.diagnostic((), message)]
    try:
        config = ConfigFile.model_validate(data)
    except ValidationError as exc:
        # A value YAML could not read is already reported; do not report it again as null.
        taken = {(d.line, d.column) for d in diagnostics}
        schema = [d for d in diagnostics_from(exc, source) if (d.line, d.column) not in taken]
        return salvage(data), source, [*diagnostics, *schema]
    if diagnostics:
        return Salvaged(config), source, diagnostics
    return config, source, []


_LISTS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("environments", Environment.model_validate),
    ("queues", Queue.model_validate),
    ("teams", Team.model_validate),
    ("rules", lambda value: rule_adapter().validate_python(value)),
)


def salvage(data: dict[str, Any]) -> Salvaged:
    """Validate a failed file's values one by one: keep those that pass, name the others."""
    platform, broken_platform = None, False
    if data.get("platform") is not None:
        try:
            platform = Platform.model_validate(data["platform"])
        except ValidationError:
            broken_platform = True
    lists: dict[str, list[Any]] = {}
    indices: dict[str, list[int]] = {}
    broken: dict[str, set[str]] = {}
    for key, validate in _LISTS:
        values = data.get(key)
        lists[key], indices[key] = [], []
        for i, value in enumerate(values if isinstance(values, list) else []):
            try:
                lists[key].append(validate(value))
                indices[key].append(i)
            except ValidationError:
                name = value.get("name") if isinstance(value, dict) else None
                if isinstance(name, str):
                    broken.setdefault(key, set()).add(name)
    config = ConfigFile.model_construct(
        platform=platform,
        environments=lists["environments"],
        queues=lists["queues"],
        teams=lists["teams"],
        rules=lists["rules"],
    )
    return Salvaged(config, indices, broken, broken_platform)


def _ordered(diagnostics: list[Diagnostic], order: dict[str, int]) -> list[Diagnostic]:
    """File order (as loaded), then position; a value reached twice via an alias shows once."""
    unique = dict.fromkeys(diagnostics)
    return sorted(unique, key=lambda d: (order.get(d.file, len(order)), d.line, d.column))
