// A dynamic provider whose configure() reads the stack's (secret) config: the project's
// `password` and another namespace's `colors:banana`; create reports what it saw.
import * as pulumi from "@pulumi/pulumi";

class Configured implements pulumi.dynamic.ResourceProvider {
    private password = "";
    private color = "";

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.password = req.config.require("password");
        this.color = req.config.get("colors:banana") ?? "blue";
    }

    async create(_inputs: any): Promise<pulumi.dynamic.CreateResult> {
        return {
            id: "resource-id",
            outs: {
                authenticated: this.password === "s3cret" ? "200" : "401",
                color: this.color,
            },
        };
    }
}

class CustomResource extends pulumi.dynamic.Resource {
    declare public readonly authenticated: pulumi.Output<string>;
    declare public readonly color: pulumi.Output<string>;

    constructor(name: string, opts?: pulumi.ResourceOptions) {
        super(new Configured(), name, { authenticated: undefined, color: undefined }, opts,
            "custom-provider", "CustomResource");
    }
}

const resource = new CustomResource("resource-name");

export const authenticated = resource.authenticated;
export const color = resource.color;
