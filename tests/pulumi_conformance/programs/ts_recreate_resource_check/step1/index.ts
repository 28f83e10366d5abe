// `upstream` moves to 30: a delete-before-replace that deletes `downstream` first. Recreated
// with 31, `downstream` must be checked without the deleted copy's inputs (7).
import { Thing } from "./resource";

const upstream = new Thing("upstream", { key: 1, state: 30 });
export const seen = new Thing("downstream", { state: upstream.state.apply((n) => n + 1) }).state;
