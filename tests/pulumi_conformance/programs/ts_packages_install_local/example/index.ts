// The provider's component through the SDK `install` generated from `packages:`.

import * as provider from "@pulumi/provider";

export const comp = new provider.MyComponent("test");
