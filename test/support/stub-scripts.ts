// Script builders for the stub endpoint; they live beside the scripted endpoint in src/demo.

export * from "../../src/demo/responses-scripts.ts";
export * from "../../src/demo/scripts.ts";
