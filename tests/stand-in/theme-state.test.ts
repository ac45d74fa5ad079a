/**
 * The stand-in keeps a shop's theme (its app embed) across restarts when given a state file, as `npm run dev`
 * gives it: a merchant who switched the embed on in the theme editor finds it on after the next start.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demoShopData } from "../../stand-in/demo-data";
import { embedBlockType, startPlatformStandIn } from "../../stand-in/platform";

const directory = mkdtempSync(path.join(tmpdir(), "stand-in-state-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const DOMAIN = "kept-theme.myshopify.com";
const HANDLE = "wishlist-test";

/** A stand-in on a fresh copy of the demo shop, as each start of `npm run dev` builds it. */
async function start(stateFile?: string) {
  const shop = demoShopData({ domain: DOMAIN, accessToken: "shpat_kept" });
  const platform = await startPlatformStandIn({
    appUrl: "http://127.0.0.1:9",
    apiKey: "key",
    apiSecret: "secret",
    appHandle: HANDLE,
    scopes: "read_products",
    shops: [shop],
    ...(stateFile && { stateFile }),
  });
  return { shop, platform };
}

const embedOf = (shop: ReturnType<typeof demoShopData>) =>
  Object.values(shop.theme.blocks).find((block) => block.type === embedBlockType(HANDLE));

async function saveEmbed(origin: string, enabled: boolean) {
  const response = await fetch(`${origin}/store/kept-theme/themes/current/editor`, {
    method: "POST",
    body: new URLSearchParams(enabled ? { enabled: "on" } : {}),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
}

describe("the stand-in's theme", () => {
  it("keeps the app embed switched on or off from one start to the next with a state file", async () => {
    const stateFile = path.join(directory, "nested", "theme.json");
    const first = await start(stateFile);
    expect(embedOf(first.shop)?.disabled ?? true).toBe(true); // a new shop's embed is off
    await saveEmbed(first.platform.origin, true);
    await first.platform.close();

    const second = await start(stateFile);
    expect(embedOf(second.shop)).toMatchObject({ disabled: false });
    await saveEmbed(second.platform.origin, false);
    await second.platform.close();

    const third = await start(stateFile);
    expect(embedOf(third.shop)).toMatchObject({ disabled: true });
    await third.platform.close();
  });

  it("starts every time as given without one (tests)", async () => {
    const first = await start();
    await saveEmbed(first.platform.origin, true);
    await first.platform.close();
    const second = await start();
    expect(embedOf(second.shop)?.disabled ?? true).toBe(true);
    await second.platform.close();
  });
});
