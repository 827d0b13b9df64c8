import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import YAML from "yaml";

const doc = YAML.parse(readFileSync("compose.yaml", "utf8"));
const { web, db, cache } = doc.services;
assert.equal(cache.image, "redis:7");
assert.deepEqual(cache.ports.map(String), ["6379:6379"]);
assert.deepEqual([...web.depends_on].sort(), ["cache", "db"]);
assert.equal(web.image, "example/web:1.4");
assert.deepEqual(web.ports, ["8080:80"]);
assert.equal(web.environment.LOG_LEVEL, "info");
assert.equal(db.image, "postgres:16");
assert.deepEqual(Object.keys(doc.volumes), ["dbdata"]);
