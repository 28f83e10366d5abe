"""Uses the namespaced package's SDK."""

import pulumi
import my_namespace_mypkg as mypkg

res = mypkg.Resource("test")
