// `upstream` holds state 7 and `downstream` copies it.
import { Thing } from "./resource";

const upstream = new Thing("upstream", { key: 1, state: 7 });
export const seen = new Thing("downstream", { state: upstream.state }).state;
