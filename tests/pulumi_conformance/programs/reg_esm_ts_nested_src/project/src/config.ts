import { Config } from "@pulumi/pulumi";

export const testVar = new Config().require("test");
