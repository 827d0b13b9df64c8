import * as data from "./data.js";

export const count = () => data.fetchData().length;
