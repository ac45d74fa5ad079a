/**
 * The local mailbox in the stand-in's admin (stand-in/mailbox.ts keeps the messages):
 *  - `/mailbox`: the messages, newest first (From, To, Subject, when);
 *  - `/mailbox/<id>`: one message, its headers (List-Unsubscribe and the rest, raw) and its HTML body in a
 *    sandboxed frame: no script runs, and a link the reader clicks opens in the whole window (as a mail
 *    client opens it in a browser), so an email's links can be followed to the app and the storefront;
 *  - `/mailbox.json`: the same messages, newest first, for scripts.
 */
import { Hono } from "hono";
import { escapeHtml, html, type HeaderLink, adminHeader } from "./admin-chrome";
import type { Mailbox, MailboxMessage } from "./mailbox";

/**
 * The frame's sandbox: no scripts, forms or same-origin access; top-level navigation only on a click, and
 * new windows (a link with target=_blank) that are not sandboxed themselves.
 */
const MAIL_SANDBOX = "allow-top-navigation-by-user-activation allow-popups allow-popups-to-escape-sandbox";

/**
 * The message's HTML as the frame shows it: links open in the whole window (a <base> that the message's own
 * target attributes still override), and the page may not run scripts even where a sandbox is ignored.
 */
function framedDocument(message: MailboxMessage, shopOrigins: Record<string, string>): string {
  let body = message.html ?? `<pre style="white-space:pre-wrap">${escapeHtml(message.text ?? "")}</pre>`;
  // The shop's own domain (https://<shop>.myshopify.com) is the local storefront on this machine, as DNS
  // would route it: the email's links are followed to where the shop runs here.
  for (const [shopOrigin, local] of Object.entries(shopOrigins)) {
    // The origin alone too (a link to the shop's home), but not a longer host that starts with it.
    if (local)
      body = body.replace(new RegExp(`${shopOrigin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[/"'?#]|$)`, "g"), local);
  }
  const head = `<meta http-equiv="Content-Security-Policy" content="script-src 'none'"><base target="_top">`;
  return /<head[^>]*>/i.test(body) ? body.replace(/<head[^>]*>/i, (tag) => `${tag}${head}`) : `${head}${body}`;
}

const when = (iso: string) => iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC");

export function mailboxPages({
  mailbox,
  links,
  shopOrigins = () => ({}),
}: {
  mailbox: Mailbox;
  links: () => HeaderLink[];
  /** Shop origins the emails link to, each with the local origin that serves it here. */
  shopOrigins?: () => Record<string, string>;
}) {
  const app = new Hono();
  const header = () =>
    adminHeader({
      shopName: "Local mailbox",
      badge: `SMTP on ${mailbox.host}:${mailbox.port} (platform stand-in)`,
      links: links(),
    });
  const newestFirst = () => mailbox.messages().reverse();

  app.get("/mailbox.json", (c) =>
    c.json({ smtp: { host: mailbox.host, port: mailbox.port }, received: mailbox.received(), messages: newestFirst() }),
  );

  app.get("/mailbox", (c) => {
    const messages = newestFirst();
    const rows = messages
      .map(
        (message) => `<tr data-message="${escapeHtml(message.id)}">
          <td>${escapeHtml(message.from)}</td>
          <td>${escapeHtml(message.to.join(", "))}</td>
          <td><a href="/mailbox/${escapeHtml(message.id)}">${escapeHtml(message.subject || "(no subject)")}</a></td>
          <td><time datetime="${escapeHtml(message.receivedAt)}">${escapeHtml(when(message.receivedAt))}</time></td>
        </tr>`,
      )
      .join("");
    return c.html(
      html(
        "Mailbox",
        `${header()}
        <main class="editor wide">
          <h1>Mailbox</h1>
          <p class="editor-hint">Every email sent to ${escapeHtml(`${mailbox.host}:${mailbox.port}`)} lands here, whoever it is addressed to; nothing leaves this machine. ${messages.length === 1 ? "1 message" : `${messages.length} messages`}, newest first; the last ${mailbox.keep} are kept.</p>
          ${
            messages.length === 0
              ? `<div class="editor-card"><p>No email yet.</p></div>`
              : `<table class="admin-table"><thead><tr><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Received</th></tr></thead><tbody>${rows}</tbody></table>`
          }
        </main>`,
      ),
    );
  });

  app.get("/mailbox/:id", (c) => {
    const message = mailbox.message(c.req.param("id"));
    if (!message) return c.text("No such message in the mailbox (it may have been cleared)", 404);
    const headerRows = Object.entries(message.headers)
      .map(
        ([name, value]) =>
          `<tr><th scope="row"><code>${escapeHtml(name)}</code></th><td><code>${escapeHtml(value)}</code></td></tr>`,
      )
      .join("");
    return c.html(
      html(
        `${message.subject} · Mailbox`,
        `${header()}
        <main class="editor wide">
          <p><a href="/mailbox">← Mailbox</a></p>
          <h1>${escapeHtml(message.subject || "(no subject)")}</h1>
          <table class="admin-table" aria-label="Summary">
            <tr><th scope="row">From</th><td>${escapeHtml(message.from)}</td></tr>
            <tr><th scope="row">To</th><td>${escapeHtml(message.to.join(", "))}</td></tr>
            <tr><th scope="row">Envelope</th><td>${escapeHtml(`MAIL FROM ${message.envelope.from || "<>"}, RCPT TO ${message.envelope.to.join(", ")}`)}</td></tr>
            <tr><th scope="row">Received</th><td>${escapeHtml(when(message.receivedAt))}</td></tr>
          </table>
          <h2>Message</h2>
          <iframe class="mail-frame" title="Message body" sandbox="${MAIL_SANDBOX}" srcdoc="${escapeHtml(framedDocument(message, shopOrigins()))}"></iframe>
          ${message.text ? `<details><summary>Plain-text part</summary><pre>${escapeHtml(message.text)}</pre></details>` : ""}
          <h2>Headers</h2>
          <table class="admin-table" aria-label="Headers">${headerRows}</table>
        </main>`,
      ),
    );
  });

  return app;
}
