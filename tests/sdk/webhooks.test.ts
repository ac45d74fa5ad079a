/**
 * The SDK's webhook verifier (sdk/src/webhooks.ts) against deliveries signed here with Node's own HMAC, apart
 * from the SDK's code: what a sender who does not hold the secret can make it do.
 */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifyWebhook } from "../../sdk/src/webhooks";

const secret = "whsec_attack-tests";
const now = Math.floor(Date.now() / 1000);
const sign = (t: number, body: Uint8Array | string) =>
  createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");

/** A delivery of about `bytes` bytes, as a receiver takes it in (node-receiver.ts caps bodies at 1 MB). */
function delivery(bytes: number): Buffer {
  const envelope = { id: "evt_1", type: "item.added", shopDomain: "a.myshopify.com", createdAt: "", data: {} };
  const text = JSON.stringify({ ...envelope, data: { note: "x".repeat(bytes) } });
  return Buffer.from(text);
}

/** How many times Web Crypto ran an HMAC (sign or verify) over at least `bytes` bytes. */
function countHmacsOver(bytes: number) {
  const subtle = globalThis.crypto.subtle;
  const counted = { runs: 0 };
  const over = (data: BufferSource) => data.byteLength >= bytes;
  const sign = subtle.sign.bind(subtle);
  const verify = subtle.verify.bind(subtle);
  vi.spyOn(subtle, "sign").mockImplementation((algorithm, key, data) => {
    if (over(data)) counted.runs++;
    return sign(algorithm, key, data);
  });
  vi.spyOn(subtle, "verify").mockImplementation((algorithm, key, signature, data) => {
    if (over(data)) counted.runs++;
    return verify(algorithm, key, signature, data);
  });
  return counted;
}

/** The hex signature with its last digit changed. */
const offByOne = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith("0") ? "1" : "0"}`;

afterEach(() => vi.restoreAllMocks());

describe("verifyWebhook, given a header the sender wrote", () => {
  it("runs one HMAC of the body however many v1 signatures the header carries", async () => {
    // GIVEN a 1 MB delivery and a header of 16 KB (Node's default limit): 240 wrong signatures, the right one last
    const body = delivery(1024 * 1024);
    const wrong = Array.from({ length: 240 }, (_, index) => `v1=${index.toString(16).padStart(64, "0")}`);
    const forged = `t=${now},${wrong.join(",")}`;
    const authentic = `${forged},v1=${sign(now, body)}`;
    const hmacs = countHmacsOver(body.length);

    // WHEN each is verified
    const refused = await verifyWebhook(body, forged, secret);
    const runsForForged = hmacs.runs;
    const accepted = await verifyWebhook(body, authentic, secret);

    // THEN the forged one is refused and the authentic one accepted, each for one HMAC of the body
    expect(refused).toEqual({ ok: false, reason: "bad-signature" });
    expect(accepted).toMatchObject({ ok: true, event: { id: "evt_1" } });
    expect(runsForForged).toBe(1);
    expect(hmacs.runs).toBe(2);
  });

  it.each([
    ["the signature of another timestamp", (body: Buffer) => `t=${now},v1=${sign(now - 1, body)}`, "bad-signature"],
    ["a signature one hex digit off", (body: Buffer) => `t=${now},v1=${offByOne(sign(now, body))}`, "bad-signature"],
    ["upper-case hex", (body: Buffer) => `t=${now},v1=${sign(now, body).toUpperCase()}`, "malformed-signature"],
    ["a short signature", (body: Buffer) => `t=${now},v1=${sign(now, body).slice(2)}`, "malformed-signature"],
    ["a timestamp with a sign", (body: Buffer) => `t=+${now},v1=${sign(now, body)}`, "malformed-signature"],
    ["a timestamp an hour ahead", (body: Buffer) => `t=${now + 3_600},v1=${sign(now + 3_600, body)}`, "stale"],
  ])("refuses %s", async (_case, header, reason) => {
    const body = delivery(100);
    expect(await verifyWebhook(body, header(body), secret)).toEqual({ ok: false, reason });
  });

  it("takes the body as a string, as bytes, or as a view into a larger buffer", async () => {
    const text = JSON.stringify({ id: "evt_ü", type: "ping", shopDomain: "a.myshopify.com", createdAt: "", data: {} });
    const bytes = Buffer.from(text);
    const header = `t=${now},v1=${sign(now, bytes)}`;
    const framed = Buffer.concat([Buffer.from("junk"), bytes, Buffer.from("junk")]).subarray(4, 4 + bytes.length);
    for (const body of [
      text,
      bytes,
      new Uint8Array(bytes),
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      framed,
    ]) {
      expect(await verifyWebhook(body, header, secret)).toMatchObject({ ok: true, event: { id: "evt_ü" } });
    }
    // The same characters in another normalisation are other bytes: refused, not "close enough".
    expect(await verifyWebhook(text.normalize("NFD"), header, secret)).toEqual({ ok: false, reason: "bad-signature" });
  });
});
