from pulumi import Alias, ResourceOptions

from resources import Echo, Holder

# The alias names the parent `echo` had before the failed update.
holder = Holder("holder")
Echo("echo", "hello", ResourceOptions(aliases=[Alias(parent=holder)]))
