"""Reads structured config holding secrets in an object and in an array, and reports what it
saw: the plaintext reached the program, and which keys the engine listed as secret."""

import pulumi
from pulumi.runtime.config import is_config_secret

config = pulumi.Config()
db = config.require_object("db")
tokens = config.require_object("tokens")
pulumi.export("dbUser", db["user"])
pulumi.export("dbPort", db["port"])
pulumi.export("passwordLength", len(db["password"]))
pulumi.export("tokenLengths", [len(t) for t in tokens])
pulumi.export(
    "secretKeys",
    [k for k in ("db", "tokens", "plain") if is_config_secret("pycfgpaths:" + k)],
)
