import { describe, expect, it } from "vitest";
import {
  gatedReport,
  maxQueuedReports,
  REPORTS_PER_SHOP,
  reportsPerProcess,
} from "~/services/analytics/report-gate.server";

/** A report computation the test finishes by hand, counting how many run at once. */
function reports() {
  const running = new Set<string>();
  let peak = 0;
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const compute = (name: string) => () =>
    new Promise<string>((resolve) => {
      running.add(name);
      started.push(name);
      peak = Math.max(peak, running.size);
      finishers.set(name, () => {
        running.delete(name);
        resolve(`answer of ${name}`);
      });
    });
  const finish = (name: string) => finishers.get(name)!();
  return { compute, finish, started, peak: () => peak };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the analytics reports' share of a web process", () => {
  it("computes a report asked for while it is being computed once, and gives every caller its answer", async () => {
    const { compute, finish, started } = reports();
    const answers = Array.from({ length: 20 }, () => gatedReport("shop-a", "activity:90d", compute("one")));
    await settle();
    expect(started).toEqual(["one"]);
    finish("one");
    expect(await Promise.all(answers)).toEqual(answers.map(() => "answer of one"));
    // Asked again once answered, it is computed anew (nothing is kept).
    const again = gatedReport("shop-a", "activity:90d", compute("two"));
    await settle();
    expect(started).toEqual(["one", "two"]);
    finish("two");
    expect(await again).toBe("answer of two");
  });

  it("computes at most REPORTS_PER_SHOP of one shop's reports at once; another shop's start at once", async () => {
    const { compute, finish, started, peak } = reports();
    const noisy = Array.from({ length: 6 }, (_, n) => gatedReport("shop-noisy", `report-${n}`, compute(`noisy-${n}`)));
    await settle();
    expect(started).toEqual(["noisy-0", "noisy-1"].slice(0, REPORTS_PER_SHOP));
    const quiet = gatedReport("shop-quiet", "report-0", compute("quiet-0"));
    await settle();
    expect(started).toContain("quiet-0");
    finish("quiet-0");
    expect(await quiet).toBe("answer of quiet-0");
    for (let n = 0; n < 6; n++) {
      await settle();
      finish(`noisy-${n}`);
    }
    expect(await Promise.all(noisy)).toEqual(noisy.map((_, n) => `answer of noisy-${n}`));
    // The noisy shop's two plus the quiet one.
    expect(peak()).toBe(REPORTS_PER_SHOP + 1);
  });

  it("computes at most half the pool's worth of reports at once across shops", async () => {
    const { compute, finish, started, peak } = reports();
    const shops = reportsPerProcess() + 2;
    const answers = Array.from({ length: shops }, (_, n) =>
      gatedReport(`shop-many-${n}`, "report", compute(`many-${n}`)),
    );
    await settle();
    expect(started).toHaveLength(reportsPerProcess());
    for (let n = 0; n < shops; n++) {
      await settle();
      finish(`many-${n}`);
    }
    expect(await Promise.all(answers)).toEqual(answers.map((_, n) => `answer of many-${n}`));
    expect(peak()).toBe(reportsPerProcess());
  });

  it("refuses a report with a 503 and Retry-After once the process's queue is full, rather than queueing it", async () => {
    const { compute, finish } = reports();
    // Enough shops to fill every slot and the queue behind them.
    const admitted = reportsPerProcess() + maxQueuedReports();
    const answers = Array.from({ length: admitted }, (_, n) =>
      gatedReport(`shop-full-${n}`, "report", compute(`full-${n}`)),
    );
    await settle();
    await expect(gatedReport("shop-one-more", "report", compute("refused"))).rejects.toMatchObject({
      code: "unavailable",
      retryAfterSeconds: 5,
    });
    // A report already in progress is still shared, full queue or not.
    const shared = gatedReport("shop-full-0", "report", compute("not-started"));
    for (let n = 0; n < admitted; n++) {
      await settle();
      finish(`full-${n}`);
    }
    expect(await shared).toBe("answer of full-0");
    expect(await Promise.all(answers)).toEqual(answers.map((_, n) => `answer of full-${n}`));
    // Room again: the next one runs.
    const next = gatedReport("shop-one-more", "report", compute("after"));
    await settle();
    finish("after");
    expect(await next).toBe("answer of after");
  });

  it("passes a failure to every caller sharing it, and computes anew afterwards", async () => {
    const failing = () => Promise.reject(new Error("statement timeout"));
    const both = [gatedReport("shop-b", "top", failing), gatedReport("shop-b", "top", failing)];
    for (const answer of both) await expect(answer).rejects.toThrow("statement timeout");
    expect(await gatedReport("shop-b", "top", () => Promise.resolve("fine"))).toBe("fine");
  });
});
