import { fetchData } from "./data.js";

export function joined() {
  return fetchData().join(",");
}
