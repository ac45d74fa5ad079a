/**
 * Per-shop slots of one worker process (docs/decisions/026-fairness-between-shops.md). A queue's
 * concurrency is one pool shared by every shop; without a per-shop share, one shop whose receivers answer
 * slowly (or not at all, until the timeout) holds every slot, and every other shop's deliveries wait for
 * them. A job of a shop that holds its share is put back in the queue, delayed, and looked at again.
 *
 * Batch jobs (docs/decisions/045-webhook-batching.md) take the same slots one delivery at a time and wait
 * for them in memory: a shop runs at most `batchesPerShop` of them at once in a process (more are put back,
 * like a single job), so one shop's batches hold a bounded few of the queue's slots, and its deliveries in
 * flight stay within its share whatever its batches hold.
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
/**
 * Batches of one shop a process runs at once, at most: with two, the next batch's deliveries fill the
 * slots the last ones of the batch before leave free; with eight (2,000 deliveries), a shop whose
 * receivers answer at once has a second of deliveries at hand while its other batches are held. Never more
 * than a quarter of the queue's concurrency (each batch holds one of its slots while it runs), nor fewer
 * than one.
 */
export const BATCHES_PER_SHOP = 8;

export function batchesPerShop(queueConcurrency: number): number {
  return Math.max(1, Math.min(BATCHES_PER_SHOP, Math.floor(queueConcurrency / 4)));
}
/** Held batches come back sooner than held deliveries: each one held carries a shop's next deliveries. */
const BATCH_HOLD_FIRST_MS = 100;
const BATCH_HOLD_MAX_MS = 500;

export class ShopSlots {
  private readonly running = new Map<string, number>();
  private readonly holds = new Map<string, number>();
  private readonly batches = new Map<string, number>();
  /**
   * Deliveries of batches waiting for a slot, by shop. A freed slot goes to the waiting shop with the fewest
   * deliveries in flight: a shop with a backlog of thousands waiting here does not go before a shop whose
   * first delivery just came.
   */
  private readonly waiting = new Map<string, Array<() => void>>();
  private inFlight = 0;

  /**
   * @param perShop the most deliveries of one shop this process makes at once
   * @param total the most deliveries of batches this process makes at once (single jobs are bounded by the
   *   queue's concurrency instead, and count here too)
   */
  constructor(
    private readonly perShop: number,
    private readonly total = Number.POSITIVE_INFINITY,
    private readonly batchesOfShop = BATCHES_PER_SHOP,
  ) {}

  /** Takes one of the shop's slots, if it has one free. */
  tryTake(shopId: string): boolean {
    const taken = this.running.get(shopId) ?? 0;
    if (taken >= this.perShop) return false;
    this.running.set(shopId, taken + 1);
    this.inFlight++;
    return true;
  }

  /** Waits for one of the shop's slots and one of the process's; resolves to its release. */
  take(shopId: string): Promise<() => void> {
    return new Promise((resolve) => {
      const admit = () => resolve(() => this.release(shopId));
      if (this.inFlight < this.total && !this.waiting.has(shopId) && this.tryTake(shopId)) admit();
      else {
        const queue = this.waiting.get(shopId);
        if (queue) queue.push(admit);
        else this.waiting.set(shopId, [admit]);
      }
    });
  }

  release(shopId: string): void {
    const taken = (this.running.get(shopId) ?? 1) - 1;
    if (taken > 0) this.running.set(shopId, taken);
    else this.running.delete(shopId);
    this.inFlight--;
    this.admitWaiting();
  }

  private admitWaiting(): void {
    while (this.waiting.size > 0 && this.inFlight < this.total) {
      let next: string | undefined;
      let fewest = this.perShop;
      for (const shopId of this.waiting.keys()) {
        const taken = this.running.get(shopId) ?? 0;
        if (taken < fewest) [next, fewest] = [shopId, taken];
      }
      if (next === undefined) return; // every waiting shop holds its share
      const queue = this.waiting.get(next)!;
      const admit = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(next);
      this.tryTake(next);
      admit();
    }
  }

  /** Starts a batch of the shop, if it runs fewer than `batchesOfShop` here. */
  tryStartBatch(shopId: string): boolean {
    const started = this.batches.get(shopId) ?? 0;
    if (started >= this.batchesOfShop) return false;
    this.batches.set(shopId, started + 1);
    return true;
  }

  endBatch(shopId: string): void {
    const started = (this.batches.get(shopId) ?? 1) - 1;
    if (started > 0) this.batches.set(shopId, started);
    else this.batches.delete(shopId);
  }

  /**
   * How long to hold a job whose shop has no free slot: doubling from HOLD_FIRST_MS with each hold of the
   * same job, up to HOLD_MAX_MS, with a tenth of jitter so held jobs do not come back together. A shop with
   * a long backlog therefore costs a few queue operations per job, not one per slot freed. A batch job
   * starts at BATCH_HOLD_FIRST_MS, up to BATCH_HOLD_MAX_MS.
   */
  holdMs(jobId: string, { batch = false } = {}): number {
    const held = this.holds.get(jobId) ?? 0;
    this.holds.delete(jobId); // re-inserted last: the map forgets the jobs held longest ago first
    this.holds.set(jobId, held + 1);
    if (this.holds.size > REMEMBERED_JOBS) this.holds.delete(this.holds.keys().next().value!);
    const delay = batch
      ? Math.min(BATCH_HOLD_FIRST_MS * 2 ** held, BATCH_HOLD_MAX_MS)
      : Math.min(HOLD_FIRST_MS * 2 ** held, HOLD_MAX_MS);
    return Math.round(delay * (0.9 + Math.random() * 0.1));
  }

  /** The job runs: its holds are forgotten. */
  forget(jobId: string): void {
    this.holds.delete(jobId);
  }
}
