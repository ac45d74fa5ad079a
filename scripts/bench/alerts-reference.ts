/**
 * The reference of the alerts benchmark (scripts/bench/alerts.ts), in a process of its own so that it pays
 * for its SMTP client as the worker does, while the mailbox stays in the benchmark's process: a bare
 * nodemailer loop, pooled as the sender's transport is (4 connections, 1,000 messages each), 4 sends at a
 * time, sending one rendered alert email N times, each to the address and with the Message-ID and
 * List-Unsubscribe headers the sender would give it. Reads the job from the JSON file named as its argument;
 * prints `RESULT <json>` with the seconds it took, each send's latency percentiles and its peak RSS.
 */
import { readFileSync } from "node:fs";
import nodemailer from "nodemailer";

interface ReferenceJob {
  port: number;
  /** The recipients, in order: one message each. */
  recipients: string[];
  concurrency: number;
  from: { name: string; address: string };
  subject: string;
  html: string;
  text: string;
  unsubscribeUrl: string;
  messageHost: string;
}

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as ReferenceJob;
const transport = nodemailer.createTransport({
  host: "127.0.0.1",
  port: job.port,
  secure: false,
  ignoreTLS: true,
  pool: true,
  maxConnections: job.concurrency,
  maxMessages: 1_000,
});

const latencies: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    while (next < job.recipients.length) {
      const index = next++;
      const sentAt = performance.now();
      await transport.sendMail({
        from: job.from,
        to: job.recipients[index]!,
        subject: job.subject,
        html: job.html,
        text: job.text,
        messageId: `<reference${index}@${job.messageHost}>`,
        list: { unsubscribe: { url: job.unsubscribeUrl, comment: "Unsubscribe from wishlist alerts" } },
        headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      });
      latencies.push(performance.now() - sentAt);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
transport.close();
latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
const peakRssMb = Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) / 1024);
process.stdout.write(
  `RESULT ${JSON.stringify({ sent: latencies.length, seconds, p50: at(50), p99: at(99), max: latencies.at(-1), peakRssMb })}\n`,
);
