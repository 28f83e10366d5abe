import * as config from "./config.js";

export const test = config.testVar;
