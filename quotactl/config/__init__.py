"""YAML configuration -> typed model -> DesiredState, with FILE:LINE:COL diagnostics.

``load_config(paths)`` is the entry point for every command that reads config; ``json_schema()``
is what ``quotactl schema`` prints for editors.
"""

from quotactl.config.load import LoadedConfig, discover_files, load_config, load_rules
from quotactl.config.schema import Config, json_schema

__all__ = ["Config", "LoadedConfig", "discover_files", "json_schema", "load_config", "load_rules"]
