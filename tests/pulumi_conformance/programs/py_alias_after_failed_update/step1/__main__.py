from resources import Echo, FailsOnCreate, Holder

# `echo` leaves its parent with no alias, and the update then fails on another resource.
Holder("holder")
Echo("echo", "hello")
FailsOnCreate("doomed")
