/**
 * Queue reconciliation (docs/decisions/025-queue-reconciliation.md): the database records every delivery
 * the queue owes (`WebhookDeliveryDue`), and this pass queues again the ones overdue by more than
 * `graceMs`. A job Redis still holds is left as it is (same job id); one Redis lost, because it restarted
 * without persistence or failed over to a replica that lagged, is added again with the attempts it has left.
 */
import type { Queue } from "bullmq";
import { database } from "~/data/database.server";
import {
  claimOverdueDeliveries,
  deleteEndedDeliveryDues,
  findOverdueDeliveries,
} from "~/data/webhook-delivery-due-rows.server";
import { requeueDeliveries } from "./fanout.server";

/** One pass: returns how many deliveries it queued again (at most `limit`). */
export async function requeueOverdueDeliveries(
  queue: Queue,
  { graceMs, limit = 1_000, now = new Date() }: { graceMs: number; limit?: number; now?: Date },
): Promise<number> {
  const before = new Date(now.getTime() - graceMs);
  await deleteEndedDeliveryDues(database(), before);
  const overdue = await findOverdueDeliveries(database(), before, limit);
  if (overdue.length === 0) return 0;
  // Not again before another grace period (a job still waiting behind a backlog is looked at once per
  // period); claimed first, so that a job that runs at once moves or ends its row after this. Only what the
  // claim returns is queued: a batch job's lease may have renewed a row since it was read.
  const claimed = await claimOverdueDeliveries(database(), overdue, {
    before,
    dueAt: new Date(now.getTime() + graceMs),
  });
  const keys = new Set(claimed.map((key) => `${key.eventId} ${key.endpointId}`));
  const requeued = overdue.filter((due) => keys.has(`${due.eventId} ${due.endpointId}`));
  await requeueDeliveries(queue, requeued);
  return requeued.length;
}
