// JSON Schemas that come from outside (MCP tools, skills, `--output-schema`): one validator for all.
export { compileJsonSchema, type Validate } from "./json-schema-validator.ts";
export { checkOutput, type OutputCheck } from "./output-schema-check.ts";
