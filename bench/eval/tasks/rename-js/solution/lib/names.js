import { loadData } from "./data.js";

export function joined() {
  return loadData().join(",");
}
