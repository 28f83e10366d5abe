"""Eleven lines to each of stdout and stderr, the last of each without its newline."""

import sys

for n in range(10):
    print(f"Line {n}")
    print(f"Errln {n + 10}", file=sys.stderr)
print("Line 10", end="")
print("Errln 20", end="", file=sys.stderr)
