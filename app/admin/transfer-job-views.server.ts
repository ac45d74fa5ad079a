/**
 * Import and export jobs as the admin pages show them: the TransferJob view of docs/openapi.json (the same
 * serializer as /v1), with a fresh 24-hour download link for a finished job's file or report.
 */
import { data } from "@remix-run/node";
import { serializeTransferJob } from "~/api/v1/serializers";
import { isDomainError } from "~/lib/domain-error";
import { isId } from "~/lib/ids";
import {
  exportFilename,
  getJob,
  importFilenames,
  listJobs,
  resultLink,
  type TransferJobRow,
  type TransferKind,
} from "~/services/transfers/jobs.server";

/**
 * The job as /v1 shows it, with its file's name: the file an import read, as the merchant uploaded it, or the
 * name an export's file downloads as.
 */
export async function transferJobView(job: TransferJobRow, uploaded?: string | null) {
  const name =
    job.kind === "export"
      ? exportFilename(job)
      : uploaded !== undefined
        ? uploaded
        : (await importFilenames({ shopId: job.shopId, jobs: [job] })).get(job.id);
  return { ...serializeTransferJob(job, await resultLink(job)), filename: name ?? null };
}

export type TransferJobView = Awaited<ReturnType<typeof transferJobView>>;

/** The shop's latest jobs of a kind, newest first. */
export async function latestJobViews({ shopId, kind, limit }: { shopId: string; kind: TransferKind; limit: number }) {
  const rows = (await listJobs({ shopId, kind, limit })).slice(0, limit);
  const filenames = await importFilenames({ shopId, jobs: rows });
  return Promise.all(rows.map((job) => transferJobView(job, filenames.get(job.id) ?? null)));
}

/** One of the shop's jobs; a job id that is malformed, another shop's or unknown is a 404 for the page. */
export async function findJobForPage({ shopId, kind, jobId }: { shopId: string; kind: TransferKind; jobId: string }) {
  const notFound = () => data({ message: `No ${kind} with the id "${jobId}" exists in this shop.` }, { status: 404 });
  if (!isId("job", jobId)) throw notFound();
  try {
    return await getJob({ shopId, jobId, kind });
  } catch (error) {
    if (isDomainError(error, "not_found")) throw notFound();
    throw error;
  }
}
