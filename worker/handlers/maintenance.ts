/**
 * The maintenance queue's worker: each job is one of the scheduled kinds of the job table, or the sweep
 * of a kind that declares one (app/jobs/definitions.ts), run by the handler ./index.ts binds to it on the
 * worker's `connection`.
 */
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS, SCHEDULED_KINDS, sweepJob, SWEPT_KINDS } from "~/jobs/definitions";
import type { MaintenanceRun } from "../job-handler";
import { JobFailed, runJob } from "../outcomes";
import { JOB_HANDLERS } from "./index";

type Handlers = typeof JOB_HANDLERS;
type Report =
  | Awaited<ReturnType<Handlers[(typeof SCHEDULED_KINDS)[number]]["run"]>>
  | Awaited<ReturnType<Handlers[(typeof SWEPT_KINDS)[number]]["sweep"]>>;
type KeysOf<T> = T extends unknown ? keyof T : never;
/** Every field any maintenance job reports, each optional (a job reports its own). */
type MaintenanceReport = { [K in KeysOf<Report>]?: Extract<Report, Record<K, unknown>>[K] };

const RUNS = new Map<string, MaintenanceRun>([
  ...SCHEDULED_KINDS.map((kind): [string, MaintenanceRun] => [JOBS[kind].name, JOB_HANDLERS[kind].run]),
  ...SWEPT_KINDS.map((kind): [string, MaintenanceRun] => [sweepJob(kind).name, JOB_HANDLERS[kind].sweep]),
]);

export function handleMaintenanceJob(job: Job, connection?: Redis): Promise<MaintenanceReport> {
  return runJob(async () => {
    const run = RUNS.get(job.name);
    if (!run) throw new JobFailed(`unknown maintenance job ${job.name}`, null);
    return (await run(job, connection)) as MaintenanceReport;
  });
}
