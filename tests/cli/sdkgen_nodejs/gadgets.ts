// A program using the generated `@acme/gadgets` SDK of a parameterized package: its
// resources, its provider class and its function all reach the `widgets` plugin through the
// package reference the SDK registers.

import * as gadgets from "@acme/gadgets";

const g1 = new gadgets.Gadget("g1", { size: 3 });
const explicit = new gadgets.Provider("explicit", { shelf: 3, label: "top" });
const g2 = new gadgets.Gadget("g2", { size: 4 }, { provider: explicit });

export const shade = g1.shade;
export const explicitShade = g2.shade;
export const invoked = gadgets.getShadeOutput().shade;
export const promised = gadgets.getShade().then((r) => r.shade);
export const instances = [gadgets.Gadget.isInstance(g1), gadgets.Provider.isInstance(explicit)];
