// A placeholder the build (tsc) replaces; running it means the build did not happen.
throw new Error("bin/index.js was not rebuilt by tsc");
