// The stub endpoint of the tests is the scripted endpoint that `nex demo` uses too.
export * from "../../src/demo/scripted-endpoint.ts";
