/**
 * Per-shop slots of one worker process (docs/decisions/026-fairness-between-shops.md). A queue's
 * concurrency is one pool shared by every shop; without a per-shop share, one shop whose receivers answer
 * slowly (or not at all, until the timeout) holds every slot, and every other shop's deliveries wait for
 * them. A job of a shop that holds its share is put back in the queue, delayed, and looked at again.
 */

/** Jobs whose holds are remembered; older entries are forgotten first (a forgotten job starts again at HOLD_FIRST_MS). */
const REMEMBERED_JOBS = 10_000;
const HOLD_FIRST_MS = 250;
/**
 * The longest a held job waits before it is looked at again. Longer holds would cost fewer queue
 * operations for a shop with a long backlog, but leave its freed slots unused: with fast receivers, a
 * shop whose only work is its backlog would be delivered at the pace its held jobs come back.
 */
const HOLD_MAX_MS = 2_000;

export class ShopSlots {
  private readonly running = new Map<string, number>();
  private readonly holds = new Map<string, number>();

  /** @param perShop the most jobs of one shop this process runs at once */
  constructor(private readonly perShop: number) {}

  /** Takes one of the shop's slots, if it has one free. */
  tryTake(shopId: string): boolean {
    const taken = this.running.get(shopId) ?? 0;
    if (taken >= this.perShop) return false;
    this.running.set(shopId, taken + 1);
    return true;
  }

  release(shopId: string): void {
    const taken = (this.running.get(shopId) ?? 1) - 1;
    if (taken > 0) this.running.set(shopId, taken);
    else this.running.delete(shopId);
  }

  /**
   * How long to hold a job whose shop has no free slot: doubling from HOLD_FIRST_MS with each hold of the
   * same job, up to HOLD_MAX_MS, with a tenth of jitter so held jobs do not come back together. A shop with
   * a long backlog therefore costs a few queue operations per job, not one per slot freed.
   */
  holdMs(jobId: string): number {
    const held = this.holds.get(jobId) ?? 0;
    this.holds.delete(jobId); // re-inserted last: the map forgets the jobs held longest ago first
    this.holds.set(jobId, held + 1);
    if (this.holds.size > REMEMBERED_JOBS) this.holds.delete(this.holds.keys().next().value!);
    const delay = Math.min(HOLD_FIRST_MS * 2 ** held, HOLD_MAX_MS);
    return Math.round(delay * (0.9 + Math.random() * 0.1));
  }

  /** The job runs: its holds are forgotten. */
  forget(jobId: string): void {
    this.holds.delete(jobId);
  }
}
