"""A package that exports no components: the plugin runner runs its __main__ module."""
