/**
 * Wishlist alerts (app/services/alerts, docs/decisions/050-wishlist-alerts.md) for BullMQ: the shop's
 * reading runs, its sender runs, its reminder runs, their sweeps, and the hourly maintenance.
 */
import type { BackoffStrategy, Job } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS, sweepJob } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import { maintainAlerts, queueDueAlertRefreshes, runAlertRefresh } from "~/services/alerts/refresh.server";
import { queueDueReminders, runReminders } from "~/services/alerts/reminders.server";
import { queueDueAlertSenders, runAlertSender } from "~/services/alerts/sender.server";
import { closeSmtpTransports } from "~/services/alerts/smtp.server";
import type { JobHandler } from "../job-handler";
import { retryDelayOf, runJob } from "../outcomes";

/** The wait the platform asked for, if the run failed for it; else 30 s, doubling per attempt, at most 15 min. */
const platformBackoff: BackoffStrategy = (attemptsMade, _type, error) =>
  retryDelayOf(error) ?? Math.min(30_000 * 2 ** Math.max(0, attemptsMade - 1), 15 * 60_000);

export const alertRefreshJobs = {
  consume: ({ connection }) => ({
    run: (job: Job) =>
      runJob(async () => {
        const { shopId } = JOBS.alertRefresh.payload.parse(job.data);
        const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const run = await runAlertRefresh({ shopId, finalAttempt, connection });
        if (run.read > 0 || run.postponed) logger.info({ shopId, jobId: job.id, ...run }, "alerts reading run");
        return run;
      }),
    backoffStrategy: platformBackoff,
  }),
  sweep: async (_job: Job, connection?: Redis) => {
    const shopIds = await queueDueAlertRefreshes(sweepJob("alertRefresh").olderThanMs, connection);
    if (shopIds.length > 0) logger.warn({ shopIds }, "alerts readings queued by the sweep (requests left waiting)");
    return { queued: shopIds.length, shopIds };
  },
} satisfies JobHandler<"alertRefresh">;

export const alertSendJobs = {
  consume: ({ connection }) => ({
    run: (job: Job) =>
      runJob(async () => {
        const { shopId } = JOBS.alertSend.payload.parse(job.data);
        const run = await runAlertSender({ shopId, connection });
        if (run.sent + run.skipped + run.failed + run.retried + run.flowSent + run.flowFailed > 0) {
          logger.info({ shopId, jobId: job.id, ...run }, "alert emails run");
        }
        return run;
      }),
    close: async () => closeSmtpTransports(),
  }),
  sweep: async (_job: Job, connection?: Redis) => {
    const shopIds = await queueDueAlertSenders(connection);
    return { queued: shopIds.length, shopIds };
  },
} satisfies JobHandler<"alertSend">;

export const alertRemindJobs = {
  consume: ({ connection }) => ({
    run: (job: Job) =>
      runJob(async () => {
        const { shopId } = JOBS.alertRemind.payload.parse(job.data);
        const run = await runReminders({ shopId, connection });
        if (run.reminders > 0 || run.more) logger.info({ shopId, jobId: job.id, ...run }, "reminders run");
        return run;
      }),
  }),
  // The sweep is the rule's schedule: the shops whose rule is on, each queued (deduplicated per shop).
  sweep: async (_job: Job, connection?: Redis) => {
    const shopIds = await queueDueReminders(connection);
    return { queued: shopIds.length, shopIds };
  },
} satisfies JobHandler<"alertRemind">;

const maintenance = async (job: Job, connection?: Redis) => {
  const { now } = JOBS.alertsMaintenance.payload.parse(job.data ?? {});
  const report = await maintainAlerts({ now: now ? new Date(now) : undefined, connection });
  logger.info(report, "alerts maintenance");
  return report;
};

export const alertsMaintenance = { run: maintenance } satisfies JobHandler<"alertsMaintenance">;
