// Found only through package.json's `exports` (there is no main and no index.ts).
export const entry: string = "entry.ts";
