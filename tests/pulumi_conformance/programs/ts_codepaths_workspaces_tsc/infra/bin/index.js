// A placeholder so that `main` exists before the build: `yarn run build` replaces it with the
// compiled index.ts.
throw new Error("bin/index.js was not replaced by tsc's output");
