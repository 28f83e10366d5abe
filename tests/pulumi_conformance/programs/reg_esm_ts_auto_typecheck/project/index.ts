// ts-node type-checks the program: the error below fails it.

export const expectTypeErrorHere: string = 123;
