"""Matrix data files (YAML, one per vendor area); a package so the files ship in the wheel."""
