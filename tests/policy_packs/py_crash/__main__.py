"""A pack that fails as its module loads."""

raise RuntimeError("the pack's rules file is missing")
