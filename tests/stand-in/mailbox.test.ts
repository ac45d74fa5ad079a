/**
 * The local mailbox (stand-in/mailbox.ts) is a real SMTP server: these tests send to it with nodemailer over
 * SMTP, as the app does, and check what it keeps and how it answers when told to misbehave (a recipient
 * refused with 550 5.1.1, the server down with 421, then back).
 */
import { connect } from "node:net";
import nodemailer from "nodemailer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "../../stand-in/mailbox";

let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox({ port: 0 });
});
afterAll(() => mailbox.close());
afterEach(() => {
  mailbox.rejectRecipients(null);
  mailbox.down(false);
  mailbox.clear();
});

const transport = (options: Record<string, unknown> = {}) =>
  nodemailer.createTransport({ host: mailbox.host, port: mailbox.port, secure: false, ...options });

const alert = (to: string | string[], subject = "Back in stock: Pebble Canvas Tote") => ({
  from: '"Demo Shop" <alerts@demo-shop.example>',
  to,
  subject,
  text: "Pebble Canvas Tote is back in stock.",
  html: '<p><a href="http://localhost:3002/products/pebble-canvas-tote">Pebble Canvas Tote</a> is back in stock.</p>',
  list: {
    unsubscribe: { url: "http://localhost:3000/proxy/unsubscribe?token=abc", comment: "Unsubscribe" },
  },
  headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
});

describe("the local mailbox", () => {
  it("keeps a message sent over SMTP, parsed: addresses, subject, ids, raw headers, both bodies, the envelope", async () => {
    const info = await transport().sendMail({
      ...alert(["ada@example.com", "Grace Hopper <grace@example.com>"], "Zurück auf Lager: Pebble Canvas Tote"),
      cc: "katherine@example.com",
      bcc: "audit@demo-shop.example",
    });
    expect(info.accepted).toHaveLength(4);
    expect(mailbox.received()).toBe(1);
    const [message] = mailbox.messages();
    expect(message).toEqual({
      id: expect.stringMatching(/^\d+$/),
      from: '"Demo Shop" <alerts@demo-shop.example>',
      to: ["ada@example.com", "grace@example.com"],
      cc: ["katherine@example.com"],
      subject: "Zurück auf Lager: Pebble Canvas Tote",
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      messageId: info.messageId,
      headers: expect.objectContaining({
        "list-unsubscribe": "<http://localhost:3000/proxy/unsubscribe?token=abc> (Unsubscribe)",
        "list-unsubscribe-post": "List-Unsubscribe=One-Click",
        "message-id": info.messageId,
        // Raw, as received: an encoded word stays encoded.
        subject: expect.stringMatching(/^=\?UTF-8\?/),
      }),
      html: expect.stringContaining('<a href="http://localhost:3002/products/pebble-canvas-tote">'),
      text: "Pebble Canvas Tote is back in stock.",
      envelope: {
        from: "alerts@demo-shop.example",
        to: ["ada@example.com", "grace@example.com", "katherine@example.com", "audit@demo-shop.example"],
      },
      size: expect.any(Number),
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(message!.headers).not.toHaveProperty("bcc");
    // A message without a plain-text part has none here (no text made up from its HTML).
    await transport().sendMail({ ...alert("alan@example.com", "HTML only"), text: undefined });
    expect(mailbox.messages()[1]).toMatchObject({
      subject: "HTML only",
      text: null,
      html: expect.stringContaining("<a "),
    });
    expect(mailbox.message(message!.id)).toEqual(message);
    expect(await mailbox.waitFor((m) => m.to.includes("grace@example.com"))).toEqual(message);
    expect(mailbox.received()).toBe(2);
  });

  it("accepts any credentials and none, and offers STARTTLS only when asked", async () => {
    await transport({ auth: { user: "anyone", pass: "anything" } }).sendMail(alert("ada@example.com"));
    await transport().sendMail(alert("grace@example.com"));
    expect(mailbox.messages().map((m) => m.to[0])).toEqual(["ada@example.com", "grace@example.com"]);
    // A sender that insists on TLS finds none by default...
    await expect(transport({ requireTLS: true }).sendMail(alert("alan@example.com"))).rejects.toThrow(/STARTTLS/);
    // ...and an upgraded connection with the option (the built-in localhost certificate, self-signed).
    const secure = await startMailbox({ port: 0, startTls: true });
    try {
      await nodemailer
        .createTransport({
          host: secure.host,
          port: secure.port,
          requireTLS: true,
          tls: { rejectUnauthorized: false },
        })
        .sendMail(alert("alan@example.com"));
      expect(secure.messages().map((m) => m.to)).toEqual([["alan@example.com"]]);
    } finally {
      await secure.close();
    }
  });

  it("refuses the recipients it is told to with 550 5.1.1, keeps the message for the others, and accepts all again", async () => {
    mailbox.rejectRecipients(/^bounce/);
    const refused = await transport()
      .sendMail(alert("bounce@example.com"))
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ responseCode: 550, code: "EENVELOPE" });
    expect((refused as { response: string }).response).toMatch(/^550 5\.1\.1 <bounce@example\.com>/);
    expect(mailbox.messages()).toEqual([]);

    // One refused recipient among others: the others get it.
    mailbox.rejectRecipients("Edsger@Example.com");
    const partly = await transport().sendMail(alert(["ada@example.com", "edsger@example.com"]));
    expect(partly.accepted).toEqual(["ada@example.com"]);
    expect(partly.rejected).toEqual(["edsger@example.com"]);
    expect(mailbox.messages()[0]!.envelope.to).toEqual(["ada@example.com"]);

    mailbox.rejectRecipients(null);
    await transport().sendMail(alert("edsger@example.com"));
    expect(mailbox.messages().map((m) => m.envelope.to)).toEqual([["ada@example.com"], ["edsger@example.com"]]);
  });

  it("answers 421 while down, to new connections and to an open one, and accepts again once up", async () => {
    const pooled = transport({ pool: true, maxConnections: 1 });
    try {
      await pooled.sendMail(alert("ada@example.com", "before"));
      mailbox.down(true);
      // The pool's open connection is refused (nodemailer then tries a new connection, refused too)...
      await expect(pooled.sendMail(alert("ada@example.com", "while down"))).rejects.toMatchObject({
        responseCode: 421,
      });
      // ...and a new connection gets 421 as its greeting (which carries no enhanced code, RFC 2034).
      const refused = await transport()
        .sendMail(alert("grace@example.com", "while down"))
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ responseCode: 421, permanent: false });
      expect((refused as { response: string }).response).toMatch(/^421 Service not available/);

      mailbox.down(false);
      await pooled.sendMail(alert("ada@example.com", "after"));
      await transport().sendMail(alert("grace@example.com", "after"));
      expect(mailbox.messages().map((m) => m.subject)).toEqual(["before", "after", "after"]);
      expect(mailbox.received()).toBe(3);
    } finally {
      pooled.close();
    }
  });

  it("answers 421 4.4.2 to a transaction on a connection opened before it went down", async () => {
    const socket = connect(mailbox.port, mailbox.host);
    const replies: string[] = [];
    let buffered = "";
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      const lines = buffered.split("\r\n");
      buffered = lines.pop()!;
      replies.push(...lines.filter((line) => /^\d{3} /.test(line)));
    });
    const reply = async (count: number) => {
      const started = Date.now();
      while (replies.length < count && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 10));
      return replies[count - 1];
    };
    try {
      expect(await reply(1)).toMatch(/^220 /);
      socket.write("EHLO test.example\r\n");
      expect(await reply(2)).toMatch(/^250 /);
      mailbox.down(true);
      socket.write("MAIL FROM:<alerts@demo-shop.example>\r\n");
      expect(await reply(3)).toBe("421 4.4.2 Service not available, closing transmission channel");
    } finally {
      socket.destroy();
    }
  });

  it("keeps the last messages only, counts them all, and clears", async () => {
    const small = await startMailbox({ port: 0, keep: 3 });
    try {
      const sender = nodemailer.createTransport({ host: small.host, port: small.port });
      for (const n of [1, 2, 3, 4, 5]) await sender.sendMail(alert("ada@example.com", `message ${n}`));
      expect(small.messages().map((m) => m.subject)).toEqual(["message 3", "message 4", "message 5"]);
      expect(small.messages().map((m) => m.id)).toEqual(["3", "4", "5"]);
      expect(small.received()).toBe(5);
      small.clear();
      expect(small.messages()).toEqual([]);
      expect(small.received()).toBe(0);
      await sender.sendMail(alert("ada@example.com", "message 6"));
      // Ids are never reused, so a page open on an old message cannot show another.
      expect(small.messages().map((m) => m.id)).toEqual(["6"]);
      await expect(small.waitFor((m) => m.subject === "message 1", { timeoutMs: 200 })).rejects.toThrow(
        /No message in the mailbox matched within 200 ms/,
      );
    } finally {
      await small.close();
    }
  });

  it("says which port it could not take", async () => {
    await expect(startMailbox({ port: mailbox.port })).rejects.toMatchObject({
      code: "EADDRINUSE",
      port: mailbox.port,
    });
  });
});
