"""The `provider` component provider: the Python SDK's component provider host serving
MyComponent (its schema inferred from component.py's annotations)."""

from pulumi.provider.experimental import component_provider_host

from component import MyComponent

if __name__ == "__main__":
    component_provider_host([MyComponent], "provider")
