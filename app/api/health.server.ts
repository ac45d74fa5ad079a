import { database } from "~/data/database.server";
import { pingDatabase } from "~/data/readiness.server";
import { AppError } from "~/lib/problems";
import { getRequestRedis, whenRedisReady } from "~/redis.server";

const CHECK_TIMEOUT_MS = 2_000;

type CheckResult = "ok" | "unreachable";

async function withTimeout(check: Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve("unreachable"), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      check.then(
        (): CheckResult => "ok",
        (): CheckResult => "unreachable",
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opening the handle may throw at once (SQLite: a file that is no database): that is "unreachable" too. */
const databaseAnswers = async () => pingDatabase(database());

/** Readiness: the database and Redis both answer within 2 s; otherwise a 503 problem naming which did not. */
export async function checkReadiness() {
  const [database, redis] = await Promise.all([
    withTimeout(databaseAnswers()),
    withTimeout(whenRedisReady(getRequestRedis(), CHECK_TIMEOUT_MS).then(() => getRequestRedis().ping())),
  ]);
  const checks = { database, redis };
  if (database !== "ok" || redis !== "ok") {
    const down = Object.entries(checks)
      .filter(([, state]) => state !== "ok")
      .map(([name]) => name);
    throw new AppError("service-unavailable", {
      detail: `Not ready: ${down.join(" and ")} unreachable.`,
      extensions: { checks },
      headers: { "Retry-After": "5" },
    });
  }
  return { status: "ready" as const, checks };
}
