// The namespaced package's resource through `@my-namespace/mypkg`.

import * as mypkg from "@my-namespace/mypkg";

new mypkg.Resource("test");
