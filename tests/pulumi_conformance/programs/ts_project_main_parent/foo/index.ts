console.log("running from foo, above Pulumi.yaml");
