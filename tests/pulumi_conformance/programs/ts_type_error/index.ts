// A name never declared: ts-node refuses the program with a TSError.
export const value = noSuchNameAnywhere;
