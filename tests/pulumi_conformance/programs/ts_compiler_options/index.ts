// `Array.prototype.includes` is declared from es2016 on: the program compiles only if the
// tsconfig.json target is used rather than one forced by the SDK.
const found: boolean = [4, 5, 6].includes(5);
if (found) {
    console.log("includes found 5");
}
