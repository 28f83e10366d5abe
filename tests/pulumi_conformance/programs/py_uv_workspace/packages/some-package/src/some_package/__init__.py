def double(a: int) -> int:
    return a * 2
