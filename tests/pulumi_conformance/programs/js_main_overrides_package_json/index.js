export const picked = "index.js, named by package.json";
