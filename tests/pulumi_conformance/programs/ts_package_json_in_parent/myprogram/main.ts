// The program passes when this file runs at all: only the parent directory's package.json
// names main.ts (rather than index.ts) as the entry point.
export const ran: boolean = true;
