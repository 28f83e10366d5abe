// The `greet` component provider: Pulumi's Node.js run-plugin finds the components this module
// exports and serves them with componentProviderHost (their schema read from these types).
// `Greeting`: a message for `who`, and a random suffix of `length` characters made by a
// `random:index:RandomString` child.

import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

export interface GreetingArgs {
    /** Who is greeted. */
    who: pulumi.Input<string>;
    /** How long the suffix is (4 when left out). */
    length?: pulumi.Input<number>;
}

export class Greeting extends pulumi.ComponentResource {
    message: pulumi.Output<string>;
    suffix: pulumi.Output<string>;

    constructor(name: string, args: GreetingArgs, opts?: pulumi.ComponentResourceOptions) {
        super("greet:index:Greeting", name, {}, opts);
        const suffix = new random.RandomString(
            `${name}-suffix`,
            { length: pulumi.output(args.length).apply((l) => l ?? 4), special: false },
            { parent: this },
        );
        this.message = pulumi.output(args.who).apply((who) => `hello, ${who}`.toUpperCase());
        this.suffix = suffix.result;
        this.registerOutputs({ message: this.message, suffix: this.suffix });
    }
}
