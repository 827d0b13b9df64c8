const config = require("./config.json");
console.log(`${config.name}: ${config.hosts.length} hosts, ${config.retries} retries`);
