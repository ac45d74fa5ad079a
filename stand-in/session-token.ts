/**
 * Session tokens as the platform's admin issues them to an embedded app: an HS256 JWT signed with the
 * app's secret, for one shop and one staff member, valid for a minute (the app verifies it with the
 * platform library, exactly as in production).
 */
import { randomUUID } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";

export async function signSessionToken({
  shopDomain,
  apiKey,
  apiSecret,
  userId = "1",
  lifetimeSeconds = 60,
}: {
  shopDomain: string;
  apiKey: string;
  apiSecret: string;
  userId?: string;
  lifetimeSeconds?: number;
}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ dest: `https://${shopDomain}`, sid: randomUUID() })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(`https://${shopDomain}/admin`)
    .setAudience(apiKey)
    .setSubject(userId)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + lifetimeSeconds)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(apiSecret));
}

/** The `host` parameter the admin passes to embedded apps: base64url of `admin.shopify.com/store/<name>`. */
export function adminHost(shopDomain: string): string {
  const name = shopDomain.replace(/\.myshopify\.com$/, "");
  return Buffer.from(`admin.shopify.com/store/${name}`).toString("base64url");
}

/**
 * The shop a session token was issued for (from `dest`), if the token is one the platform would accept:
 * signed with the app's secret, for the app, not expired; null otherwise.
 */
export async function verifySessionToken(
  token: string,
  { apiKey, apiSecret }: { apiKey: string; apiSecret: string },
): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(apiSecret), {
      audience: apiKey,
      algorithms: ["HS256"],
    });
    return typeof payload.dest === "string" ? new URL(payload.dest).hostname : null;
  } catch {
    return null;
  }
}
