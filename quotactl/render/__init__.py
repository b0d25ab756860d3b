"""Everything that draws on a terminal: the only package that imports rich."""
