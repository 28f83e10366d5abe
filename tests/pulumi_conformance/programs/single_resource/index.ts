import { Resource } from "./resource";

const res = new Resource("res", { state: 1 });

export const o = res.state;
