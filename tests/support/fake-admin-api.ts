// Only scripts/bench/soak-run.ts imports this path: its parts (issue 26, item 3) import
// scripts/lib/fake-admin-api.ts, as the tests do, and this file goes with it.
export { standInGraphql, startFakeAdminApi } from "../../scripts/lib/fake-admin-api";
