import { count } from "./lib/count.js";
import { joined } from "./lib/names.js";

console.log(`${joined()} ${count()}`);
