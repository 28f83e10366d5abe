import * as provider from "@pulumi/provider";

// The component comes through the SDK `new` generated from the local provider's schema.
export const comp = new provider.MyComponent("test");
