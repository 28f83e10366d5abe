"""The dynamic provider, in a module of its own: `configure()` reads secret stack config."""

from pulumi.dynamic import ConfigureRequest, CreateResult, ResourceProvider


class SimpleProvider(ResourceProvider):
    password: str
    color: str

    def configure(self, req: ConfigureRequest):
        self.password = req.config.get("password")
        self.color = req.config.get("colors:banana")

    def create(self, props):
        # The password stands for a credential checked by some outside system.
        code = "200" if self.password == "s3cret" else "401"
        return CreateResult("0", {"authenticated": code, "color": self.color})
