import { expect } from "vitest";
import type { apiClient } from "../../support/openapi-client";

type Api = ReturnType<typeof apiClient>;
type App = { request: (input: Request | string, init?: RequestInit) => Response | Promise<Response> };

/** Where a signed URL is fetched: the in-process app for local storage, the network for S3. */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export const viaApp =
  (app: App): Fetcher =>
  async (url, init) =>
    app.request(url, init);

/**
 * Gives the shop an offline access token, as installing the app does: imports ask the platform (the fake
 * Admin API of tests/support) whether each row's customer is one of the shop's.
 */
export async function connectToPlatform(shopDomain: string, accessToken = "shpat_x") {
  const { database } = await import("~/data/database.server");
  await database()
    .insertInto("Session")
    .values({ id: `offline_${shopDomain}`, shop: shopDomain, state: "", isOnline: false, accessToken })
    .execute();
}

/** How many items the shop has saved (optionally those of one customer's default list). */
export async function countItems(shopId: string, customerId?: string): Promise<number> {
  const { database } = await import("~/data/database.server");
  const row = await database()
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("i.shopId", "=", shopId)
    .$if(customerId !== undefined, (query) =>
      query.where("l.customerId", "=", customerId!).where("l.isDefault", "=", true),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many lists the shop has (optionally of one customer). */
export async function countLists(shopId: string, customerId?: string): Promise<number> {
  const { database } = await import("~/data/database.server");
  const row = await database()
    .selectFrom("List")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .$if(customerId !== undefined, (query) => query.where("customerId", "=", customerId!))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Steps 1 and 2 of an import: ask for an upload URL, PUT the bytes there. Returns the fileUrl. */
export async function upload(
  api: Api,
  fetcher: Fetcher,
  body: string | Buffer,
  { contentType = "text/csv", filename = "wishlists.csv" } = {},
) {
  const target = await api.POST("/imports/upload", { body: { filename, contentType: contentType as never } });
  expect(target.response.status).toBe(201);
  const put = await fetcher(target.data!.uploadUrl, {
    method: "PUT",
    headers: target.data!.headers,
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  expect(put.status, await put.clone().text()).toBe(200);
  return target.data!;
}

export type Job = NonNullable<Awaited<ReturnType<Api["GET"]>>["data"]> & {
  jobId: string;
  status: string;
  imported: number | null;
  skipped: number | null;
  rowsProcessed: number;
  resultUrl: string | null;
  error: string | null;
};

/** Polls the job until the worker has finished it. */
export async function finished(api: Api, kind: "imports" | "exports", jobId: string, timeoutMs = 90_000): Promise<Job> {
  const started = Date.now();
  // Quick at first, then at most 4 polls a second: a long wait stays within the key's rate limit, and a
  // 429 all the same is waited out as its Retry-After says.
  for (let pause = 50; ; pause = Math.min(pause * 2, 250)) {
    const { data, response } = await api.GET(`/${kind}/{jobId}` as "/imports/{jobId}", {
      params: { path: { jobId } },
    });
    if (response.status === 429 && Date.now() - started < timeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? 1) * 1000));
      continue;
    }
    expect(response.status).toBe(200);
    if (data!.status === "succeeded" || data!.status === "failed") return data as Job;
    if (Date.now() - started > timeoutMs) throw new Error(`job ${jobId} still ${data!.status}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

export async function runImport(
  api: Api,
  { source, fileUrl, dryRun = false }: { source: "csv" | "vendor_a" | "vendor_b"; fileUrl: string; dryRun?: boolean },
  timeoutMs?: number,
) {
  const started = await api.POST("/imports", { body: { source, fileUrl, dryRun } });
  expect(started.response.status, JSON.stringify(started.error)).toBe(202);
  return finished(api, "imports", started.data!.jobId, timeoutMs);
}

export async function download(fetcher: Fetcher, url: string) {
  const response = await fetcher(url);
  expect(response.status).toBe(200);
  return response;
}

/**
 * Handles a spreadsheet would run as formulas (OWASP CSV injection: a leading = + - @ tab or CR, the same
 * after leading whitespace or a line break, and any cell holding a line break), for the export's guard.
 */
export const RISKY_HANDLES = [
  '=HYPERLINK("http://evil.example","x")',
  "+1-800",
  "-minus",
  "@sum",
  "\ttabbed",
  "\rcr",
  " =1+1",
  "\n=cmd|' /C calc'!A0",
  "=first\nline",
  "two\nlines",
  "'=already quoted",
];
