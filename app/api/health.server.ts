import { database, isDatabaseSaturated } from "~/data/database.server";
import { pingDatabase } from "~/data/readiness.server";
import { AppError } from "~/lib/problems";
import { getRequestRedis, whenRedisReady } from "~/redis.server";

const CHECK_TIMEOUT_MS = 2_000;

type CheckResult = "ok" | "busy" | "unreachable";

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

/**
 * The database's check. A process whose every PostgreSQL connection is established and in use is `busy`
 * and still ready: its connections answer, and a ping queued behind the requests would only time out and
 * take a loaded process out of rotation as if the database were down (its requests wait at most the
 * pool's 5 s and are answered 503 "busy" past that).
 */
const databaseCheck = (): Promise<CheckResult> =>
  isDatabaseSaturated() ? Promise.resolve("busy") : withTimeout(databaseAnswers());

/**
 * Readiness: the database and Redis both answer within 2 s (the database may be `busy`, see databaseCheck);
 * otherwise a 503 problem naming which did not.
 */
export async function checkReadiness() {
  const [database, redis] = await Promise.all([
    databaseCheck(),
    withTimeout(whenRedisReady(getRequestRedis(), CHECK_TIMEOUT_MS).then(() => getRequestRedis().ping())),
  ]);
  const checks = { database, redis };
  if (database === "unreachable" || redis !== "ok") {
    const down = Object.entries(checks)
      .filter(([, state]) => state === "unreachable")
      .map(([name]) => name);
    throw new AppError("service-unavailable", {
      detail: `Not ready: ${down.join(" and ")} unreachable.`,
      extensions: { checks },
      headers: { "Retry-After": "5" },
    });
  }
  return { status: "ready" as const, checks };
}
