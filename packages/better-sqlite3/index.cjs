"use strict";
// Everything that opens SQLite (our data layer, the tests, Prisma's adapter for the migrations) asks for
// "better-sqlite3" and gets this module. better-sqlite3 11 and 12 wrap their objects in Node's raw
// ObjectWrap, which aborts the process on Node 24 when the garbage collector frees a statement; 13 is built
// on Node-API 10, which Node 20 lacks (its prebuilt binary crashes there). So each Node gets the line that
// runs on it (docs/decisions/037-better-sqlite3-per-node.md). Only the chosen one is loaded.
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS package, for require and import alike */
module.exports =
  Number(process.versions.napi) >= 10 ? require("better-sqlite3-napi") : require("better-sqlite3-node20");
