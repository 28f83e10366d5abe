export const bar = 3;
