"""Resources, an invoke (plain and output), a method call and a read, each through the SDK
`package gen-sdk` generated for the parameterized package `pkg`."""

import pulumi_pkg as pkg

res1 = pkg.Random("res1", length=5)
res2 = pkg.do_echo("hello")
res3 = pkg.do_echo_output("hello")
res4 = pkg.Echo("echo")
res5 = res4.do_echo_method(echo="hello")
# Reading a Random gives its inputs back: it need not have been created.
res6 = pkg.Random.get("res6", "banana")
