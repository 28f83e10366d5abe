import * as pulumi from "@pulumi/pulumi";

// `about` reads the project, never runs it.
const label = "about-name";
