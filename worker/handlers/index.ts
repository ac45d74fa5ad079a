/**
 * Each kind of the job table (app/jobs/definitions.ts) bound to its handler. The type asks for every kind,
 * with a `consume`, `run` or `sweep` as its entry declares: a kind added to the table without its handler
 * here does not compile.
 */
import type { JobKindName } from "~/jobs/definitions";
import type { JobHandler } from "../job-handler";
import { alertRefreshJobs, alertRemindJobs, alertSendJobs, alertsMaintenance } from "./alert-jobs";
import { complianceJobs } from "./compliance-jobs";
import { healthJobs } from "./health-jobs";
import { eventsPurge, filesPurge, idempotencyPurge } from "./housekeeping";
import { metafieldJobs } from "./metafield-jobs";
import { productJobs } from "./product-jobs";
import { transferJobs } from "./transfer-jobs";
import { webhookJobs } from "./webhook-jobs";

export const JOB_HANDLERS = {
  health: healthJobs,
  webhookDelivery: webhookJobs,
  transfer: transferJobs,
  compliance: complianceJobs,
  metafieldSync: metafieldJobs,
  productSnapshot: productJobs,
  alertRefresh: alertRefreshJobs,
  alertSend: alertSendJobs,
  alertRemind: alertRemindJobs,
  alertsMaintenance,
  idempotencyPurge,
  eventsPurge,
  filesPurge,
} satisfies { [K in JobKindName]: JobHandler<K> };
