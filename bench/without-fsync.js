// Preloaded into nex by the turns benchmark for one attribution run only: makes fsync and fdatasync
// no-ops, so the figures show how much of a turn's cost is durability (nex offers no such setting;
// a crash in this mode could lose work). Plain JavaScript, like usage-probe.js. FileHandle.sync (used
// for files larger than the bench writes) is left alone.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

fs.fsyncSync = () => {};
fs.fdatasyncSync = () => {};
fs.fsync = (_fd, callback) => process.nextTick(callback, null);
fs.fdatasync = (_fd, callback) => process.nextTick(callback, null);
syncBuiltinESMExports();
