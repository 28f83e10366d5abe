from random_ import Random

Random("res2", length=10)
Random("res1", length=10)
