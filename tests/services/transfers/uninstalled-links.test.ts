import { describe, expect, it } from "vitest";
import { ensureShop } from "~/services/shops/shops.server";
import { getStorage } from "~/services/storage/index.server";
import { createShopWithKey } from "../../factories";
import { BASE_URL } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useWorker } from "../../support/worker";
import { finished, viaApp } from "./helpers";
import { apiHarness } from "../../support/harness";

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);
useWorker();

async function uninstall(domain: string) {
  const body = JSON.stringify({ id: 1, name: "Shop", domain, myshopify_domain: domain });
  const response = await app.request(
    `${BASE_URL}/webhooks/app/uninstalled`,
    platformWebhook("app/uninstalled", domain, body),
  );
  expect(response.status).toBe(200);
}

async function expectShopUninstalled(response: Response) {
  expect(response.status).toBe(403);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect((await response.json()).type).toBe(`${BASE_URL}/problems/shop-uninstalled`);
}

describe("signed file links of a shop that uninstalled the app", () => {
  it("refuses the export download and the upload target until the app is installed again", async () => {
    const { shop, secret } = await createShopWithKey();
    const api = clientFor(secret);
    const exported = await api.POST("/exports", { body: { format: "csv" } });
    expect(exported.response.status).toBe(202);
    const job = await finished(api, "exports", exported.data!.jobId);
    expect(job.status).toBe("succeeded");
    const target = await api.POST("/imports/upload", { body: { filename: "w.csv", contentType: "text/csv" } });
    expect(target.response.status).toBe(201);
    const put = () =>
      fetcher(target.data!.uploadUrl, { method: "PUT", headers: target.data!.headers, body: "customer_id\n1\n" });
    // Both links work while the shop has the app.
    expect((await fetcher(job.resultUrl!)).status).toBe(200);

    await uninstall(shop.domain);

    // The shop's key is refused, and so are the links it handed out before.
    expect((await api.GET("/shop")).response.status).toBe(403);
    await expectShopUninstalled(await fetcher(job.resultUrl!));
    await expectShopUninstalled(await put());
    const uploadKey = new URL(target.data!.uploadUrl).pathname.replace(/^\/files\//, "");
    expect(await getStorage().stat(uploadKey)).toBeNull(); // nothing was stored

    // Installed again (the platform's token exchange marks the shop installed), the same links work.
    await ensureShop({ domain: shop.domain });
    expect((await fetcher(job.resultUrl!)).status).toBe(200);
    expect((await put()).status).toBe(200);
  });
});
