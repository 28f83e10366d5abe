const magic = 42;

export const fun = () => magic;
