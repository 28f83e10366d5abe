"""Every overload of the config getters, called with the values the test sets."""

from typing import Optional

import pulumi

cfg = pulumi.Config()

plain: Optional[str] = cfg.get("foo")
plain_or_default: str = cfg.get("foo", default="bar")
plain_or_none: Optional[str] = cfg.get("foo", default=None)
assert plain == plain_or_default == plain_or_none == "bar"

number: Optional[int] = cfg.get_int("foo_int")
number_or_default: int = cfg.get_int("foo_int", default=3)
number_or_none: Optional[int] = cfg.get_int("foo_int", default=None)
assert number == number_or_default == number_or_none == 42

hidden: Optional[pulumi.Output[str]] = cfg.get_secret("foo_secret")
required: str = cfg.require("foo")
required_number: int = cfg.require_int("foo_int")
required_hidden: pulumi.Output[int] = cfg.require_secret_int("foo_secret")
assert required == "bar" and required_number == 42
assert hidden is not None


def is_three(value: int) -> int:
    if value != 3:
        raise ValueError(f"foo_secret read as {value!r}")
    return value


required_hidden.apply(is_three)
