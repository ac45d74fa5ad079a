import { describe, expect, it } from "vitest";
import { alertSettingsSchema, DEFAULT_ALERT_SETTINGS, readAlertSettings } from "~/services/alerts/alert-settings";
import { fromMinorUnits, toMinorUnits } from "~/lib/money";
import { findAlerts, lowStockRearmed, watchedState, type VariantState } from "~/services/alerts/rules";

const variant = (variantId: string, over: Partial<VariantState> = {}): VariantState => ({
  variantId,
  priceMinor: 5_000,
  currency: "USD",
  available: true,
  inventoryQuantity: 20,
  ...over,
});
const fresh = { priceSeenMinor: null, lowStockAlertedAt: null };
const kinds = (found: Array<{ kind: string }>) => found.map((alert) => alert.kind);

describe("the item's view of a reading", () => {
  it("is the chosen variant while the product has it, else the product as a whole", () => {
    const variants = [
      variant("1", { priceMinor: 7_000, available: false, inventoryQuantity: 0 }),
      variant("2", { priceMinor: 6_000, inventoryQuantity: 3 }),
      variant("3", { priceMinor: 9_000, inventoryQuantity: 4 }),
    ];
    expect(watchedState(variants, "1")).toEqual({
      variantId: "1",
      available: false,
      priceMinor: 7_000,
      currency: "USD",
      quantity: 0,
    });
    // The product: available when any variant is, at its cheapest available price, with the units of them all.
    expect(watchedState(variants, "")).toEqual({
      variantId: "",
      available: true,
      priceMinor: 6_000,
      currency: "USD",
      quantity: 7,
    });
    // A variant the product no longer has: the product as a whole.
    expect(watchedState(variants, "99")?.variantId).toBe("");
    expect(watchedState([], "1")).toBeNull();
  });

  it("has no quantity when some variant's stock is not tracked, and the cheapest price of all when none is available", () => {
    const variants = [
      variant("1", { available: false, priceMinor: 8_000, inventoryQuantity: null }),
      variant("2", { available: false, priceMinor: 4_000 }),
    ];
    expect(watchedState(variants, "")).toMatchObject({ available: false, priceMinor: 4_000, quantity: null });
  });
});

describe("the rules", () => {
  const before = watchedState([variant("1", { available: false, inventoryQuantity: 0 })], "1");

  it("alert nothing on a first reading: it is what the shopper saw", () => {
    expect(findAlerts(null, watchedState([variant("1")], "1")!, fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
  });

  it("back in stock: unavailable, then available", () => {
    const after = watchedState([variant("1", { inventoryQuantity: 12 })], "1")!;
    expect(kinds(findAlerts(before, after, fresh, DEFAULT_ALERT_SETTINGS))).toEqual(["back_in_stock"]);
    // Available both times: nothing.
    expect(findAlerts(after, after, fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    const off = alertSettingsSchema.parse({ backInStock: { enabled: false } });
    expect(findAlerts(before, after, fresh, off)).toEqual([]);
  });

  it("back in stock with few left is also low stock", () => {
    const after = watchedState([variant("1", { inventoryQuantity: 2 })], "1")!;
    expect(kinds(findAlerts(before, after, fresh, DEFAULT_ALERT_SETTINGS))).toEqual(["back_in_stock", "low_stock"]);
  });

  it("price drop: at least the threshold below the price seen, measured from it, not from the last price", () => {
    const was = watchedState([variant("1", { priceMinor: 10_000 })], "1")!;
    const cheaper = (price: number) => watchedState([variant("1", { priceMinor: price })], "1")!;
    expect(findAlerts(was, cheaper(9_100), fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    expect(findAlerts(was, cheaper(9_000), fresh, DEFAULT_ALERT_SETTINGS)).toEqual([
      { kind: "price_dropped", oldPriceMinor: 10_000, newPriceMinor: 9_000, quantity: 20 },
    ]);
    // Seen at 12,000, then raised to 13,000: a fall to 10,800 is 10% below what the shopper saw.
    const seen = { priceSeenMinor: 12_000, lowStockAlertedAt: null };
    const raised = watchedState([variant("1", { priceMinor: 13_000 })], "1")!;
    expect(findAlerts(raised, cheaper(10_800), seen, DEFAULT_ALERT_SETTINGS)).toEqual([
      { kind: "price_dropped", oldPriceMinor: 12_000, newPriceMinor: 10_800, quantity: 20 },
    ]);
    // Seen (or last alerted) at 9,000: a fall from 10,000 to 9,000 is no drop below it.
    expect(
      findAlerts(was, cheaper(9_000), { priceSeenMinor: 9_000, lowStockAlertedAt: null }, DEFAULT_ALERT_SETTINGS),
    ).toEqual([]);
    // A price rise is no drop, whatever the reference.
    expect(findAlerts(cheaper(5_000), cheaper(6_000), seen, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    const twentyFive = alertSettingsSchema.parse({ priceDrop: { minPercent: 25 } });
    expect(findAlerts(was, cheaper(8_000), fresh, twentyFive)).toEqual([]);
    expect(kinds(findAlerts(was, cheaper(7_500), fresh, twentyFive))).toEqual(["price_dropped"]);
  });

  it("price drop: not for an item that cannot be bought, nor across a change of currency", () => {
    const was = watchedState([variant("1", { priceMinor: 10_000 })], "1")!;
    const soldOut = watchedState([variant("1", { priceMinor: 5_000, available: false })], "1")!;
    expect(findAlerts(was, soldOut, fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    const euros = watchedState([variant("1", { priceMinor: 5_000, currency: "EUR" })], "1")!;
    expect(findAlerts(was, euros, fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
  });

  it("low stock: 1 to threshold units left, once until the stock rises above it again", () => {
    const was = watchedState([variant("1", { inventoryQuantity: 9 })], "1")!;
    const left = (units: number) => watchedState([variant("1", { inventoryQuantity: units })], "1")!;
    expect(findAlerts(was, left(6), fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    expect(findAlerts(was, left(5), fresh, DEFAULT_ALERT_SETTINGS)).toEqual([
      { kind: "low_stock", oldPriceMinor: null, newPriceMinor: 5_000, quantity: 5 },
    ]);
    const told = { priceSeenMinor: null, lowStockAlertedAt: new Date() };
    expect(findAlerts(left(5), left(2), told, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    expect(lowStockRearmed(left(5), DEFAULT_ALERT_SETTINGS)).toBe(false);
    expect(lowStockRearmed(left(6), DEFAULT_ALERT_SETTINGS)).toBe(true);
    // Sold out (0 left) is no low stock: back in stock says it when it returns.
    expect(findAlerts(was, left(0), fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    const untracked = watchedState([variant("1", { inventoryQuantity: null })], "1")!;
    expect(findAlerts(was, untracked, fresh, DEFAULT_ALERT_SETTINGS)).toEqual([]);
    expect(lowStockRearmed(untracked, DEFAULT_ALERT_SETTINGS)).toBe(true);
  });
});

describe("the settings document", () => {
  it("fills what it lacks with the defaults and reads an unreadable one as the defaults", () => {
    expect(DEFAULT_ALERT_SETTINGS).toMatchObject({
      backInStock: { enabled: true },
      priceDrop: { enabled: true, minPercent: 10 },
      lowStock: { enabled: true, threshold: 5 },
      cooldownDays: 7,
      email: { enabled: false, audience: "subscribed", ratePerMinute: 60 },
    });
    expect(readAlertSettings('{"priceDrop":{"minPercent":20}}').priceDrop).toEqual({ enabled: true, minPercent: 20 });
    expect(readAlertSettings("not json")).toEqual(DEFAULT_ALERT_SETTINGS);
    expect(readAlertSettings('{"cooldownDays":-1}')).toEqual(DEFAULT_ALERT_SETTINGS);
  });

  it("refuses header injection in the sender's name and a host that could carry a command", () => {
    expect(alertSettingsSchema.safeParse({ email: { fromName: "Shop\r\nBcc: all@example.com" } }).success).toBe(false);
    expect(alertSettingsSchema.safeParse({ email: { smtp: { host: "smtp.example.com\r\nRSET" } } }).success).toBe(
      false,
    );
    expect(alertSettingsSchema.safeParse({ email: { fromAddress: "a@b" } }).success).toBe(false);
    expect(alertSettingsSchema.safeParse({ email: { fromAddress: "wishlist@shop.example" } }).success).toBe(true);
  });
});

describe("prices in minor units", () => {
  it("turn the platform's decimal strings into integers with the currency's digits, exactly", () => {
    expect(toMinorUnits("12.5", "EUR")).toBe(1_250);
    expect(toMinorUnits("1234.50", "USD")).toBe(123_450);
    expect(toMinorUnits("0.29", "USD")).toBe(29); // 0.29 * 100 is 28.999... in floating point
    expect(toMinorUnits("1500", "JPY")).toBe(1_500);
    expect(toMinorUnits("1500.5", "JPY")).toBe(1_501);
    expect(toMinorUnits("1.2345", "KWD")).toBe(1_235);
    expect(toMinorUnits("-1.00", "USD")).toBeNull();
    expect(toMinorUnits("1e3", "USD")).toBeNull();
    expect(toMinorUnits(null, "USD")).toBeNull();
    expect(fromMinorUnits(1_250, "EUR")).toBe("12.50");
    expect(fromMinorUnits(1_500, "JPY")).toBe("1500");
    expect(fromMinorUnits(1_235, "KWD")).toBe("1.235");
  });
});
