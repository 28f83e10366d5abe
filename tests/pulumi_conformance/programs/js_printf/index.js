"use strict";
// Eleven lines to each of stdout and stderr, the last of each without its newline.
for (let n = 0; n < 10; n++) {
    console.log(`Line ${n}`);
    console.error(`Errln ${n + 10}`);
}
process.stdout.write("Line 10");
process.stderr.write("Errln 20");
