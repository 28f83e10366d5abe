"""The `greet` component provider: Pulumi's Python component provider host serving the
components of component.py (their schema inferred from the type annotations)."""

from pulumi.provider.experimental import component_provider_host

from component import Greeting

if __name__ == "__main__":
    component_provider_host([Greeting], "greet")
