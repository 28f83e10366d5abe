"use strict";
// A resource registered after the program's main code returned, with its own transform.
const { Random } = require("./random");

setTimeout(() => {
    new Random(
        "res",
        { length: 10 },
        {
            transforms: [
                async ({ props, opts }) => {
                    console.log("res transform");
                    return { props: { ...props, length: 12 }, opts };
                },
            ],
        },
    );
});
