// Runs only when `install` linked the workspace package my-random into node_modules.
import * as myRandom from "my-random";

const random = new myRandom.MyRandom("plop", {});

export const id = random.randomID;
