"""A program its type checker must refuse: a stack output's name is a str."""

import pulumi

# The name below is a number where `export` wants a str; the check fails the run before the
# program starts, on this line (8) and column (15).

pulumi.export(42, "bar")
