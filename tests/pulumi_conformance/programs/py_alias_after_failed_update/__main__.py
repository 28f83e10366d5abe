from pulumi import ResourceOptions

from resources import Echo, Holder

holder = Holder("holder")
Echo("echo", "hello", ResourceOptions(parent=holder))
