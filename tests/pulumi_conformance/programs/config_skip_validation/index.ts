// Reads no config: only the project's declaration requires `example`, so the program runs
// whenever config validation is skipped.
console.log("config-skip-validation program ran");
