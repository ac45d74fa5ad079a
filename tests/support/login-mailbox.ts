/**
 * An SMTP server on loopback (smtp-server) that takes one login and refuses any other with 535, unlike the
 * stand-in's mailbox (stand-in/mailbox.ts), which takes any: a test of a shop's saved SMTP settings sees the
 * sealed password reach the server, and a wrong one refused as a real server refuses it. Plain connections,
 * no TLS. Every message it accepts is kept, parsed with mailparser, with the envelope's recipients.
 */
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  rcptTo: string[];
  mail: ParsedMail;
}

export async function startLoginMailbox({ username, password }: { username: string; password: string }) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth(auth, _session, callback) {
      if (auth.username === username && auth.password === password) return callback(null, { user: username });
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
