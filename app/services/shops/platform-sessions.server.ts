/**
 * The platform library's session storage (OAuth sessions of the embedded admin and the offline token of
 * Admin API calls) on the data layer's `Session` rows: what `@shopify/shopify-app-session-storage-prisma`
 * did, without the Prisma client (docs/decisions/017-data-layer.md).
 */
import { Session } from "@shopify/shopify-api";
import type { shopifyApp } from "@shopify/shopify-app-remix/server";
import { database } from "~/data/database.server";
import {
  deleteSessionsById,
  findSessionById,
  findSessionsOfShop,
  upsertSession,
  type SessionRow,
  type SessionValues,
} from "~/data/session-rows.server";

/** The storage interface the platform library takes (`@shopify/shopify-app-session-storage`). */
type SessionStorage = NonNullable<Parameters<typeof shopifyApp>[0]["sessionStorage"]>;

/** As many sessions as the platform's own storages return for a shop. */
const SESSIONS_PER_SHOP = 25;

function toRow(session: Session): SessionValues {
  const user = session.onlineAccessInfo?.associated_user;
  return {
    id: session.id,
    shop: session.shop,
    state: session.state,
    isOnline: session.isOnline,
    scope: session.scope || null,
    expires: session.expires ?? null,
    accessToken: session.accessToken ?? "",
    userId: user?.id ?? null,
    firstName: user?.first_name ?? null,
    lastName: user?.last_name ?? null,
    email: user?.email ?? null,
    accountOwner: user?.account_owner ?? false,
    locale: user?.locale ?? null,
    collaborator: user?.collaborator ?? false,
    emailVerified: user?.email_verified ?? false,
    refreshToken: session.refreshToken ?? null,
    refreshTokenExpires: session.refreshTokenExpires ?? null,
  };
}

function toSession(row: SessionRow): Session {
  // Absent values stay out of the entries; user fields only count for an online session.
  const entries: Array<[string, string | number | boolean | null]> = [
    ["id", row.id],
    ["shop", row.shop],
    ["state", row.state],
    ["isOnline", row.isOnline],
    ["scope", row.scope || null],
    ["accessToken", row.accessToken || null],
    ["expires", row.expires?.getTime() ?? null],
    ["refreshToken", row.refreshToken],
    ["refreshTokenExpires", row.refreshTokenExpires?.getTime() ?? null],
  ];
  if (row.isOnline) {
    entries.push(
      ["userId", row.userId],
      ["firstName", row.firstName],
      ["lastName", row.lastName],
      ["email", row.email],
      ["accountOwner", row.accountOwner],
      ["locale", row.locale],
      ["collaborator", row.collaborator],
      ["emailVerified", row.emailVerified],
    );
  }
  const present = entries.filter((entry): entry is [string, string | number | boolean] => entry[1] !== null);
  return Session.fromPropertyArray(present, true);
}

export const platformSessionStorage: SessionStorage = {
  async storeSession(session) {
    await upsertSession(database(), toRow(session));
    return true;
  },
  async loadSession(id) {
    const row = await findSessionById(database(), id);
    return row && toSession(row);
  },
  async deleteSession(id) {
    await deleteSessionsById(database(), [id]);
    return true;
  },
  async deleteSessions(ids) {
    await deleteSessionsById(database(), ids);
    return true;
  },
  async findSessionsByShop(shop) {
    return (await findSessionsOfShop(database(), shop, SESSIONS_PER_SHOP)).map(toSession);
  },
};
