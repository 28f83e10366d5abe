import * as pulumi from "@pulumi/pulumi";
