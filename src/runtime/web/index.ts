export { webKeyVariables } from "./web-config.ts";
export { webTools } from "./web-tools.ts";
