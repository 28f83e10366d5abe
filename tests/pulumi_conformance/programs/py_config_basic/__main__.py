"""Reads plain, secret and path-set config and fails the program if any value is off."""
import pulumi

config = pulumi.Config()


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


expect("plain", config.require("plainValue"), "a plain value")
expect("outer", config.require_object("outer"), {"inner": "value"})
expect("names", config.require_object("names"), ["a", "b", "c", "hidden name"])
expect("servers", config.require_object("servers"), [{"port": 80, "host": "example"}])
expect("flags", config.require_object("flags"), {"b": [{"c": True}, {"c": False}]})
expect("tokens", config.require_object("tokens"), ["shh"])


def check_secret(v):
    expect("secret", v, "a secret value")


config.require_secret("secretValue").apply(check_secret)
pulumi.export("names", config.require_secret_object("names"))
pulumi.export("plain", config.require("plainValue"))
