// The provider's component through the SDK `package add` generated and installed.

import * as provider from "@pulumi/provider";

new provider.MyComponent("comp");
