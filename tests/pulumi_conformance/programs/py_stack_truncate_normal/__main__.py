def foo():
    raise Exception("foobar")


foo()
