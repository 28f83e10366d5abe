// A dynamic provider using a named import (`output`), which TypeScript compiles to a property
// of the module's imports: serializing it must not shadow the closure's own `exports`.
import { CustomResourceOptions, Input, output } from "@pulumi/pulumi";
import { Resource, ResourceProvider } from "@pulumi/pulumi/dynamic";

interface ReproArgs {
    example: Input<string>;
}

class ReproProvider implements ResourceProvider {
    async create(inputs: { example: string }) {
        return { id: "nothing", outs: { example: `${output.name} ${inputs.example}` } };
    }
}

const provider = new ReproProvider();

class Repro extends Resource {
    constructor(name: string, args: ReproArgs, opts?: CustomResourceOptions) {
        super(provider, name, args, opts);
    }
}

new Repro("test", { example: "words" });
