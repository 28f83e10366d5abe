"""The program raises after registering its first resource: the second must not be deleted."""

from random_ import Random

Random("res2", length=10)
raise Exception("This is a test error")
