import { randomBytes } from "node:crypto";
import { Session } from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { database, engine } from "~/data/database.server";
import {
  deleteSessionsById,
  deleteSessionsOfShop,
  findOfflineAccessToken,
  findSessionById,
  findSessionsOfShop,
  upsertSession,
} from "~/data/session-rows.server";
import { platformSessionStorage as storage } from "~/services/shops/platform-sessions.server";
import { sessionRow } from "../factories";

/** Session statements and the platform library's session storage over them, on both engines. */
const newDomain = () => `sessions-${randomBytes(4).toString("hex")}.myshopify.com`;

function offlineSession(shop: string, token = "shpat_offline") {
  return new Session({
    id: `offline_${shop}`,
    shop,
    state: "state-1",
    isOnline: false,
    scope: "read_products",
    accessToken: token,
  });
}

function onlineSession(shop: string, userId: number, expires: Date) {
  return new Session({
    id: `${shop}_${userId}`,
    shop,
    state: "state-2",
    isOnline: true,
    scope: "read_products,write_themes",
    expires,
    accessToken: `shpua_${userId}`,
    onlineAccessInfo: {
      expires_in: 86_400,
      associated_user_scope: "read_products",
      associated_user: {
        id: userId,
        first_name: "Ada",
        last_name: "Lovelace",
        email: "ada@example.com",
        email_verified: true,
        account_owner: true,
        locale: "en",
        collaborator: false,
      },
    },
  });
}

const row = (shop: string, id: string, expires: Date | null) => sessionRow(shop, id, { expires });

describe(`session rows (${engine()})`, () => {
  it("upserts: a second write of one id replaces every column", async () => {
    const shop = newDomain();
    const first = row(shop, `offline_${shop}`, null);
    await upsertSession(database(), first);
    const expires = new Date("2026-04-05T06:07:08.009Z");
    await upsertSession(database(), {
      ...first,
      accessToken: "t2",
      isOnline: true,
      expires,
      userId: 42,
      email: "a@b.c",
    });
    expect(await findSessionById(database(), first.id)).toEqual({
      ...first,
      accessToken: "t2",
      isOnline: true,
      expires,
      userId: 42,
      email: "a@b.c",
    });
  });

  it("finds a shop's sessions latest expiry first, offline last, up to the limit; another shop's none", async () => {
    const shop = newDomain();
    const base = Date.now() + 60_000;
    await upsertSession(database(), row(shop, "a", null));
    await upsertSession(database(), row(shop, "b", new Date(base + 1)));
    await upsertSession(database(), row(shop, "c", new Date(base + 2)));
    await upsertSession(database(), row(newDomain(), "d", new Date(base + 3)));
    expect((await findSessionsOfShop(database(), shop, 25)).map((session) => session.id)).toEqual(["c", "b", "a"]);
    expect((await findSessionsOfShop(database(), shop, 2)).map((session) => session.id)).toEqual(["c", "b"]);
  });

  it("deletes by ids (none is nothing) and all of one shop, no other shop's", async () => {
    const [shop, other] = [newDomain(), newDomain()];
    for (const id of ["x1", "x2", "x3"]) await upsertSession(database(), row(shop, `${shop}-${id}`, null));
    await upsertSession(database(), row(other, `${other}-y`, null));
    expect(await deleteSessionsById(database(), [])).toBe(0);
    expect(await deleteSessionsById(database(), [`${shop}-x1`, `${shop}-x2`, "missing"])).toBe(2);
    expect(await deleteSessionsOfShop(database(), shop)).toBe(1);
    expect(await findSessionById(database(), `${other}-y`)).toBeDefined();
  });

  it("reads the shop's offline token, never an online one", async () => {
    const shop = newDomain();
    await upsertSession(database(), {
      ...row(shop, `${shop}_7`, new Date(Date.now() + 60_000)),
      accessToken: "online",
    });
    expect(await findOfflineAccessToken(database(), shop)).toBeNull();
    await upsertSession(database(), { ...row(shop, `offline_${shop}`, null), accessToken: "offline" });
    expect(await findOfflineAccessToken(database(), shop)).toBe("offline");
  });
});

describe(`platform session storage (${engine()})`, () => {
  it("stores and loads an offline session as the library made it", async () => {
    const shop = newDomain();
    const session = offlineSession(shop);
    expect(await storage.storeSession(session)).toBe(true);
    const loaded = await storage.loadSession(session.id);
    expect(loaded).toBeInstanceOf(Session);
    expect(loaded?.toObject()).toEqual(session.toObject());
    expect(loaded?.isActive("read_products")).toBe(true);
    expect(await storage.loadSession("offline_nobody.myshopify.com")).toBeUndefined();
  });

  it("keeps an online session's user, expiry (to the millisecond) and refresh token", async () => {
    const shop = newDomain();
    const expires = new Date(Date.now() + 3_600_123);
    const session = onlineSession(shop, 9_007_199, expires);
    session.refreshToken = "refresh-1";
    session.refreshTokenExpires = new Date("2031-02-03T04:05:06.007Z");
    await storage.storeSession(session);
    const loaded = await storage.loadSession(session.id);
    expect(loaded?.expires?.getTime()).toBe(expires.getTime());
    expect(loaded?.refreshToken).toBe("refresh-1");
    expect(loaded?.refreshTokenExpires?.toISOString()).toBe("2031-02-03T04:05:06.007Z");
    expect(loaded?.onlineAccessInfo?.associated_user).toEqual({
      id: 9_007_199,
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      email_verified: true,
      account_owner: true,
      locale: "en",
      collaborator: false,
    });
    expect(loaded?.isActive("read_products")).toBe(true);
  });

  it("an expired online session loads as expired", async () => {
    const shop = newDomain();
    await storage.storeSession(onlineSession(shop, 5, new Date(Date.now() - 1_000)));
    const loaded = await storage.loadSession(`${shop}_5`);
    expect(loaded?.isExpired()).toBe(true);
    expect(loaded?.isActive("read_products")).toBe(false);
  });

  it("updates a stored session in place (a new token after reauthorisation)", async () => {
    const shop = newDomain();
    await storage.storeSession(offlineSession(shop, "old-token"));
    await storage.storeSession(offlineSession(shop, "new-token"));
    expect((await storage.loadSession(`offline_${shop}`))?.accessToken).toBe("new-token");
    expect(await storage.findSessionsByShop(shop)).toHaveLength(1);
  });

  it("finds a shop's sessions and deletes one or several", async () => {
    const [shop, other] = [newDomain(), newDomain()];
    await storage.storeSession(offlineSession(shop));
    await storage.storeSession(onlineSession(shop, 1, new Date(Date.now() + 60_000)));
    await storage.storeSession(onlineSession(shop, 2, new Date(Date.now() + 120_000)));
    await storage.storeSession(offlineSession(other));
    expect((await storage.findSessionsByShop(shop)).map((session) => session.id)).toEqual([
      `${shop}_2`,
      `${shop}_1`,
      `offline_${shop}`,
    ]);
    expect(await storage.deleteSession(`${shop}_1`)).toBe(true);
    expect(await storage.deleteSession(`${shop}_1`)).toBe(true);
    expect(await storage.deleteSessions([`${shop}_2`, `offline_${shop}`])).toBe(true);
    expect(await storage.findSessionsByShop(shop)).toEqual([]);
    expect(await storage.findSessionsByShop(other)).toHaveLength(1);
  });
});
