/**
 * The local mailbox: a real SMTP server (smtp-server) on loopback that keeps, in memory, every message it
 * accepts, parsed with mailparser, so `npm run dev` shows the app's emails without sending any (the stand-in's
 * `/mailbox` pages, stand-in/mailbox-pages.ts) and tests read what the app really sent over SMTP.
 *
 * It accepts any sender and recipient, AUTH with any credentials or none, and plain connections (STARTTLS
 * only when asked, with smtp-server's built-in localhost certificate). Tests can make it misbehave as mail
 * servers do: refuse chosen recipients with a permanent 550 5.1.1, or go down (421 as the greeting of every
 * new connection, 421 4.4.2 to every transaction of an open one) and come back.
 */
import type { Readable } from "node:stream";
import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

/** A message the mailbox accepted. Dates are ISO strings, so the JSON view and the objects agree. */
export interface MailboxMessage {
  /** The mailbox's own id ("1", "2", ...: in order of arrival, never reused). */
  id: string;
  /** The From header as written ("Demo Shop <alerts@example.com>"). */
  from: string;
  /** The addresses of the To header. */
  to: string[];
  cc: string[];
  subject: string;
  /** The Date header, or null without one. */
  date: string | null;
  /** The Message-ID header ("<...@...>"), or null without one. */
  messageId: string | null;
  /** Every header by lower-case name, raw (unfolded, not decoded); a repeated header's values joined by "\n". */
  headers: Record<string, string>;
  html: string | null;
  /** The plain-text part, or null when the message has none (never text made from the HTML). */
  text: string | null;
  /** What the SMTP client said: MAIL FROM and the accepted RCPT TOs (Bcc recipients appear only here). */
  envelope: { from: string; to: string[] };
  /** The message's size in bytes, as received. */
  size: number;
  receivedAt: string;
}

export interface Mailbox {
  host: string;
  port: number;
  /** How many messages it keeps in memory. */
  keep: number;
  /** The messages it keeps (the most recent `keep`), oldest first. */
  messages(): MailboxMessage[];
  message(id: string): MailboxMessage | undefined;
  /** How many messages it accepted since it started or was last cleared, kept or not. */
  received(): number;
  clear(): void;
  /**
   * Resolves with the first kept message the predicate accepts, asking again every `intervalMs` until
   * `timeoutMs` (default 30 s) has passed, then rejects.
   */
  waitFor(
    predicate: (message: MailboxMessage) => boolean,
    options?: { timeoutMs?: number; intervalMs?: number },
  ): Promise<MailboxMessage>;
  /**
   * Refuses, from now on, each RCPT TO whose address matches (a RegExp, or an address compared without case)
   * with `550 5.1.1`, as a server that knows no such mailbox does; null accepts every recipient again.
   */
  rejectRecipients(pattern: RegExp | string | null): void;
  /** Down: every new connection (its greeting) and every transaction gets 421 and is closed; up again with false. */
  down(isDown: boolean): void;
  close(): Promise<void>;
}

export interface MailboxOptions {
  /** 0 or unset: any free port. */
  port?: number;
  /** Loopback unless set. */
  host?: string;
  /** How many messages it keeps in memory (the oldest go first), 500 unless set. */
  keep?: number;
  /** Offer STARTTLS (smtp-server's self-signed localhost certificate); off unless set. */
  startTls?: boolean;
}

/** A message bigger than this is refused (552), as a real server's limit would. */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

const smtpError = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

const addresses = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : [])
    .flatMap((object) => object.value)
    .flatMap((entry) => (entry.group ? entry.group : [entry]))
    .map((entry) => entry.address ?? "")
    .filter(Boolean);

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startMailbox(options: MailboxOptions = {}): Promise<Mailbox> {
  const host = options.host ?? "127.0.0.1";
  const keep = options.keep ?? 500;
  let kept: MailboxMessage[] = [];
  let count = 0;
  let nextId = 1;
  let rejected: RegExp | string | null = null;
  let isDown = false;

  const unavailable = () => smtpError(421, "Service not available, closing transmission channel");
  const refuses = (address: string) => {
    if (rejected instanceof RegExp) {
      rejected.lastIndex = 0; // a /g pattern would otherwise answer from where its last match ended
      return rejected.test(address);
    }
    return typeof rejected === "string" && rejected.toLowerCase() === address.toLowerCase();
  };

  async function accept(raw: Buffer, session: SMTPServerSession) {
    // No text made up from the HTML: `text` is the plain-text part the sender wrote, or null.
    const parsed = await simpleParser(raw, { skipHtmlToText: true });
    const headers: Record<string, string> = {};
    for (const { key, line } of parsed.headerLines) {
      const value = line
        .replace(/\r?\n[ \t]+/g, " ")
        .slice(line.indexOf(":") + 1)
        .trim();
      headers[key] = key in headers ? `${headers[key]}\n${value}` : value;
    }
    const { mailFrom, rcptTo } = session.envelope;
    kept.push({
      id: String(nextId++),
      from: parsed.from?.text ?? "",
      to: addresses(parsed.to),
      cc: addresses(parsed.cc),
      subject: parsed.subject ?? "",
      date: parsed.date ? parsed.date.toISOString() : null,
      messageId: parsed.messageId ?? null,
      headers,
      html: typeof parsed.html === "string" ? parsed.html : null,
      text: parsed.text || null,
      envelope: { from: mailFrom ? mailFrom.address : "", to: rcptTo.map((recipient) => recipient.address) },
      size: raw.length,
      receivedAt: new Date().toISOString(),
    });
    count++;
    if (kept.length > keep) kept = kept.slice(kept.length - keep);
  }

  const server = new SMTPServer({
    name: "mailbox.localhost",
    banner: "local mailbox of the platform stand-in",
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    disabledCommands: options.startTls ? [] : ["STARTTLS"],
    size: MAX_MESSAGE_BYTES,
    // Replies carry RFC 3463 codes (550 5.1.1, 421 4.4.2), as the mail servers the app will meet write them.
    hideENHANCEDSTATUSCODES: false,
    // Open connections (a sender's pool) must not hold close() for smtp-server's default 30 s.
    closeTimeout: 500,
    logger: false,
    onConnect: (_session, callback) => callback(isDown ? unavailable() : null),
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? "anonymous" }),
    onMailFrom: (_address, _session, callback) => callback(isDown ? unavailable() : null),
    onRcptTo: (address, _session, callback) => {
      if (isDown) return callback(unavailable());
      if (refuses(address.address)) {
        return callback(smtpError(550, `<${address.address}>: Recipient address rejected: User unknown`));
      }
      callback();
    },
    onData: (stream, session, callback) => {
      readAll(stream).then(
        async (raw) => {
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
            return callback(smtpError(552, "Message exceeds the fixed maximum message size"));
          }
          if (isDown) return callback(unavailable());
          try {
            await accept(raw, session);
            callback();
          } catch (error) {
            callback(smtpError(451, `Local error in processing: ${(error as Error).message}`));
          }
        },
        (error: Error) => callback(smtpError(451, `Local error in processing: ${error.message}`)),
      );
    },
  });
  server.on("error", () => {
    // A client's broken connection is reported here; the server itself carries on.
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(Object.assign(error, { port: options.port }));
    server.server.once("error", failed);
    server.listen(options.port ?? 0, host, () => {
      server.server.off("error", failed);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  const find = (predicate: (message: MailboxMessage) => boolean) => kept.find(predicate);

  return {
    host,
    port,
    keep,
    messages: () => [...kept],
    message: (id) => kept.find((message) => message.id === id),
    received: () => count,
    clear: () => {
      kept = [];
      count = 0;
    },
    waitFor: async (predicate, { timeoutMs = 30_000, intervalMs = 50 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(predicate);
        if (found) return found;
        if (Date.now() >= deadline) {
          throw new Error(`No message in the mailbox matched within ${timeoutMs} ms (${kept.length} kept)`);
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    rejectRecipients: (pattern) => {
      rejected = pattern;
    },
    down: (value) => {
      isDown = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
