// Preloaded into the Prisma CLI by scripts/prisma.ts.
// The WebAssembly schema engine (6.19) arms a 10 s timer on PostgreSQL that it never clears, so every
// migrate command sits idle for 10 s after finishing. Long timers are unref'd: they still fire if the
// process is alive, but no longer keep a finished CLI running. Pending database I/O still does.
"use strict";
const originalSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = function setTimeoutUnrefLong(callback, delay, ...args) {
  const timer = originalSetTimeout(callback, delay, ...args);
  if (typeof delay === "number" && delay >= 5000 && typeof timer?.unref === "function") timer.unref();
  return timer;
};
