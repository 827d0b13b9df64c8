// The program's one JSON Schema validator (tools/json-schema-validator.ts), for the layers above.
export { compileJsonSchema, type Validate } from "../tools/index.ts";
