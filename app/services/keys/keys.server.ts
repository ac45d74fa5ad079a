import { prisma } from "~/db.server";
import { newId } from "~/lib/ids";
import { generatePrivateKey, hashKey } from "./secrets";

/** Creates a private key for the shop. The secret is returned here once and never stored. */
export async function createApiKey({ shopId, label }: { shopId: string; label: string }) {
  const secret = generatePrivateKey();
  const key = await prisma.apiKey.create({
    data: { id: newId("apiKey"), shopId, label, kind: "private", hash: hashKey(secret), hint: secret.slice(-4) },
  });
  return { key, secret };
}

/** The active (not revoked) key of this shop matching a secret, if any. */
export async function findActiveKeyBySecret({ shopId, secret }: { shopId: string; secret: string }) {
  return prisma.apiKey.findFirst({ where: { shopId, hash: hashKey(secret), revokedAt: null } });
}
