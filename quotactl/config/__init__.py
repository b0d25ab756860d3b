"""YAML configuration -> typed model -> DesiredState, with FILE:LINE:COL diagnostics."""
