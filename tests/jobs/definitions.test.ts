import { describe, expect, it } from "vitest";
import { z } from "zod";
import { JOBS } from "~/jobs/definitions";

describe("the job table (docs/decisions/039-job-and-webhook-registries.md)", () => {
  it("marks every kind whose payload names a shop as shop-scoped, so a shop's redaction removes its jobs", () => {
    const namingAShop = Object.entries(JOBS)
      .filter(([, kind]) => "payload" in kind && kind.payload instanceof z.ZodObject && "shopId" in kind.payload.shape)
      .map(([key]) => key);
    const scoped = Object.entries(JOBS)
      .filter(([, kind]) => "shopScoped" in kind && kind.shopScoped)
      .map(([key]) => key);
    expect(namingAShop.length).toBeGreaterThan(0);
    expect(namingAShop.sort()).toEqual(scoped.sort());
  });
});
