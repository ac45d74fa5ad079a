import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import { newId } from "~/lib/ids";
import { abandonTransferJob } from "~/services/transfers/jobs.server";
import { createShop } from "../factories";

describe("transfer jobs BullMQ gave up on", () => {
  it("are marked failed when still queued or running, and a finished job keeps its outcome", async () => {
    const shop = await createShop();
    const job = (status: string) =>
      insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "export", format: "csv", status },
        new Date(),
      );
    const [queued, running, succeeded, failed] = await Promise.all(
      ["queued", "running", "succeeded", "failed"].map(job),
    );
    for (const row of [queued, running, succeeded, failed]) await abandonTransferJob(row!.id, "stopped");

    const after = await database().selectFrom("TransferJob").selectAll().where("shopId", "=", shop.id).execute();
    const byId = new Map(after.map((row) => [row.id, row]));
    expect(byId.get(queued!.id)).toMatchObject({ status: "failed", error: "stopped" });
    expect(byId.get(running!.id)).toMatchObject({ status: "failed", error: "stopped" });
    expect(byId.get(running!.id)!.finishedAt).toBeInstanceOf(Date);
    expect(byId.get(succeeded!.id)).toMatchObject({ status: "succeeded", error: null });
    expect(byId.get(failed!.id)).toMatchObject({ status: "failed", error: null });
  });
});
