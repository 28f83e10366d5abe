"""The package's components: the SDK's plugin runner hosts every component exported here."""

from .component import MyComponent

__all__ = ["MyComponent"]
