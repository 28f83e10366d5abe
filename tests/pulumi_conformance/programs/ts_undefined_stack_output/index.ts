// Exports holding `undefined` at the top level, in a list and in a map next to `null`s.
export const zero = 0;
export const missing = undefined;
export const empty = null;
export const items = [0, undefined, null];
export const fields = { zero2: 0, missing2: undefined, empty2: null };
