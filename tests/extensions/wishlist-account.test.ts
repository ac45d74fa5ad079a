/// <reference types="@shopify/ui-extensions/customer-account.page.render" />
/**
 * The customer account extension (extensions/wishlist-account) rendered by the platform's own extension test
 * utilities (@shopify/ui-extensions-tester: a mock `shopify` global for the target, a DOM, the extension's real
 * module), against the real backend: its `fetch` goes to the web process's app in-process, with session tokens
 * signed as the platform signs them. What is stood in for is only the platform: the session token API, the
 * Storefront API's primary domain, the toast. The platform's sandbox itself (its web components' look and
 * behaviour, the account page around the extension) cannot run here: docs/customer-account.md says what is not
 * covered.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { getExtension } from "@shopify/ui-extensions-tester";
import { JSDOM } from "jsdom";
import { render } from "preact";
import { parse as parseToml } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createList as createNamedList, updateItem } from "~/services/wishlists/named-lists.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { ROOT } from "../../scripts/lib/databases";
import { signCustomerAccountToken } from "../../stand-in/customer-account-token";
import { createShopWithKey } from "../factories";
import { createTestApp } from "../support/http";

// A DOM for the extension to render into (the tester asks for one). Only `window` and `document` are set: the
// file's Node globals stay Node's, for the app it runs beside (Vitest's jsdom environment replaces more, and
// esbuild, loaded by the app's modules, then refuses to start).
const { window } = new JSDOM("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { window, document: window.document });

const EXTENSION = path.join(ROOT, "extensions/wishlist-account");
const STOREFRONT = "https://demo-shop.example";
const readJson = (file: string) =>
  JSON.parse(readFileSync(path.join(EXTENSION, file), "utf8")) as Record<string, unknown>;

const app = await createTestApp();
const { shop } = await createShopWithKey();
await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
const ADA = "7001";
const owner = { kind: "customer" as const, customerId: ADA };

const extension = getExtension("customer-account.page.render", { configSearchDir: EXTENSION });

/** The platform's translate over the extension's English catalogue: `{{name}}` filled in, `count` picks the plural. */
function translator(catalogue: Record<string, unknown>) {
  return (key: string, options: Record<string, unknown> = {}) => {
    let message = key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], catalogue);
    if (typeof message === "object" && message !== null) {
      message = (message as Record<string, string>)[options.count === 1 ? "one" : "other"];
    }
    if (typeof message !== "string") throw new Error(`no message ${key}`);
    return message.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(options[name]));
  };
}

const toasts: string[] = [];
let token: () => Promise<string>;

beforeEach(() => {
  extension.setUp();
  toasts.length = 0;
  token = () =>
    signCustomerAccountToken({
      shopDomain: shop.domain,
      customerId: ADA,
      apiKey: getEnv().SHOPIFY_API_KEY,
      apiSecret: getEnv().SHOPIFY_API_SECRET,
    });
  extension.shopify.sessionToken.get = () => token();
  extension.shopify.i18n.translate = translator(readJson("locales/en.default.json")) as never;
  extension.shopify.query = (async () => ({
    data: { shop: { primaryDomain: { url: `${STOREFRONT}/` } } },
  })) as never;
  extension.shopify.toast.show = async (message: string) => {
    toasts.push(message);
    return { hide: () => {} };
  };
  // The extension's calls reach the app as the sandbox sends them.
  extension.fetch = async (input, init) => app.request(String(input), init);
});

afterEach(() => {
  render(null, document.body);
  extension.tearDown();
});

const sections = () => [...document.body.querySelectorAll("s-section")];
const section = (name: string) => sections().find((element) => element.getAttribute("heading") === name)!;
const buttons = (root: ParentNode = document.body) => [...root.querySelectorAll("s-button")];
const button = (root: ParentNode, text: string) => buttons(root).find((element) => element.textContent === text)!;
const itemBox = (title: string) =>
  [...document.body.querySelectorAll("s-box")].find(
    (element) => element.querySelector("s-heading")?.textContent === title,
  )!;
const click = (element: { dispatchEvent(event: Event): boolean }) =>
  element.dispatchEvent(new window.MouseEvent("click", { bubbles: true }));

async function saved(productId: string, title: string, values: { variantId?: string; listId?: string } = {}) {
  const { item } = await addItem({
    shopId: shop.id,
    owner,
    item: { productId, handle: `handle-${productId}`, title, variantId: values.variantId ?? null },
    ...(values.listId ? { listId: values.listId } : {}),
  });
  return item;
}

describe("the customer's wishlists page", () => {
  it("shows each list with its items' titles, notes and quantities, and links to the cart", async () => {
    // GIVEN Ada's default list with a shirt (a variant, two of them, a note with markup) and a coat without a
    // variant, and her named list "Gifts" with a hat
    const gifts = await createNamedList({ shopId: shop.id, owner, name: "Gifts" });
    const shirt = await saved("8100000001", "Aurora Linen Shirt", { variantId: "9100000001" });
    await updateItem({
      shopId: shop.id,
      owner,
      itemId: shirt.id,
      changes: { quantity: 2, note: "<img src=x> size M" },
    });
    await saved("8100000002", "Harbor Wool Coat");
    await saved("8100000003", "Meadow Sun Hat", { variantId: "9100000003", listId: gifts.id });

    // WHEN the page renders
    await extension.render();

    // THEN it shows one section per list, the default first
    await vi.waitFor(() =>
      expect(sections().map((element) => element.getAttribute("heading"))).toEqual(["Wishlist", "Gifts"]),
    );
    const shirtBox = itemBox("Aurora Linen Shirt");
    expect(shirtBox.textContent).toContain("Quantity: 2");
    // The note is the shopper's text, shown as text: no element was made of it.
    expect(shirtBox.textContent).toContain("Note: <img src=x> size M");
    expect(shirtBox.querySelector("img")).toBeNull();
    // Add to cart: the storefront's cart permalink with the saved variant and quantity.
    expect(button(shirtBox, "Add to cart").getAttribute("href")).toBe(`${STOREFRONT}/cart/9100000001:2`);
    // Without a variant there is no cart line to add: the product page, to choose one.
    expect(button(itemBox("Harbor Wool Coat"), "Choose options").getAttribute("href")).toBe(
      `${STOREFRONT}/products/handle-8100000002`,
    );
    expect(section("Wishlist").textContent).toContain("2 items");
    expect(button(section("Wishlist"), "Add all to cart").getAttribute("href")).toBe(`${STOREFRONT}/cart/9100000001:2`);
    expect(button(section("Gifts"), "Add all to cart").getAttribute("href")).toBe(`${STOREFRONT}/cart/9100000003:1`);
    expect(section("Gifts").textContent).toContain("1 item");
  });

  it("moves an item to another list and removes one, through the backend", async () => {
    // GIVEN Ada's default list with a scarf and a dress, and an empty list "Later"
    const later = await createNamedList({ shopId: shop.id, owner, name: "Later" });
    const scarf = await saved("8100000009", "Ember Wool Scarf", { variantId: "9100000009" });
    const dress = await saved("8100000010", "Willow Silk Dress", { variantId: "9100000010" });
    await extension.render();
    await vi.waitFor(() => expect(itemBox("Ember Wool Scarf")).toBeDefined());
    expect(section("Later").textContent).toContain("Nothing is saved on this list yet.");

    // WHEN she moves the scarf to "Later" (its menu names her other lists)
    const menu = itemBox("Ember Wool Scarf").querySelector("s-menu")!;
    expect(buttons(menu).map((element) => element.textContent)).toEqual(
      expect.arrayContaining(["Move to Later", "Move to Gifts"]),
    );
    click(button(menu, "Move to Later"));

    // THEN it shows under "Later", the database says so, and she is told
    await vi.waitFor(() => expect(section("Later").textContent).toContain("Ember Wool Scarf"));
    const row = await database().selectFrom("Item").select("listId").where("id", "=", scarf.id).executeTakeFirst();
    expect(row?.listId).toBe(later.id);
    expect(toasts).toContain("Ember Wool Scarf moved to Later");

    // WHEN she removes the dress
    click(button(itemBox("Willow Silk Dress"), "Remove"));

    // THEN it is gone from the page and from the database
    await vi.waitFor(() => expect(document.body.textContent).not.toContain("Willow Silk Dress"));
    expect(
      await database().selectFrom("Item").select("id").where("id", "=", dress.id).executeTakeFirst(),
    ).toBeUndefined();
    expect(toasts).toContain("Willow Silk Dress removed");
    expect(button(itemBox("Ember Wool Scarf"), "Remove").getAttribute("accessibilitylabel") ?? "").toBe(
      "Remove Ember Wool Scarf",
    );
  });

  it("says when the lists cannot be loaded (a token the backend refuses), and loads them on Try again", async () => {
    token = () =>
      signCustomerAccountToken({
        shopDomain: shop.domain,
        customerId: ADA,
        apiKey: getEnv().SHOPIFY_API_KEY,
        apiSecret: "not-the-app-secret",
      });
    await extension.render();
    await vi.waitFor(() =>
      expect(document.body.querySelector("s-banner")?.getAttribute("heading")).toBe("Your lists could not be loaded."),
    );
    expect(sections()).toEqual([]);
    token = () =>
      signCustomerAccountToken({
        shopDomain: shop.domain,
        customerId: ADA,
        apiKey: getEnv().SHOPIFY_API_KEY,
        apiSecret: getEnv().SHOPIFY_API_SECRET,
      });
    click(button(document.body, "Try again"));
    await vi.waitFor(() => expect(sections().length).toBeGreaterThan(0));
  });

  it("shows no cart links when the shop's storefront address is unknown (no Storefront API answer)", async () => {
    extension.shopify.query = (async () => {
      throw new Error("api_access not granted");
    }) as never;
    await saved("8100000004", "Canyon Leather Boots", { variantId: "9100000004" });
    await extension.render();
    await vi.waitFor(() => expect(itemBox("Canyon Leather Boots")).toBeDefined());
    expect(buttons().some((element) => element.getAttribute("href"))).toBe(false);
    expect(button(itemBox("Canyon Leather Boots"), "Remove")).toBeDefined();
  });
});

/** Every key of a catalogue, nested keys joined with dots; plural forms under their key. */
function flatten(catalogue: Record<string, unknown>, prefix = ""): Record<string, string> {
  return Object.fromEntries(
    Object.entries(catalogue).flatMap(([key, value]) =>
      typeof value === "string"
        ? [[`${prefix}${key}`, value]]
        : Object.entries(flatten(value as Record<string, unknown>, `${prefix}${key}.`)),
    ),
  );
}

describe("the extension's files", () => {
  const english = flatten(readJson("locales/en.default.json"));
  const placeholders = (message: string) => [...message.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]).sort();

  it.each(["fr", "de", "es"])(
    "locales/%s.json has English's keys, each translated, with its placeholders",
    (locale) => {
      const catalogue = flatten(readJson(`locales/${locale}.json`));
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const [key, message] of Object.entries(catalogue)) {
        expect(message.trim(), key).not.toBe("");
        expect(placeholders(message), key).toEqual(placeholders(english[key]!));
      }
      const same = Object.keys(english).filter((key) => catalogue[key] === english[key]);
      expect(same.length / Object.keys(english).length).toBeLessThan(0.15);
    },
  );

  it("names the target, the capabilities and the API version of the installed UI extensions package", () => {
    const toml = parseToml(readFileSync(path.join(EXTENSION, "shopify.extension.toml"), "utf8")) as {
      api_version: string;
      extensions: Array<{
        type: string;
        name: string;
        targeting: Array<{ target: string; module: string }>;
        capabilities: Record<string, boolean>;
      }>;
    };
    const [definition] = toml.extensions;
    expect(definition).toMatchObject({
      type: "ui_extension",
      capabilities: { network_access: true, api_access: true },
    });
    expect(definition!.targeting).toEqual([
      { target: "customer-account.page.render", module: "./src/WishlistPage.tsx" },
    ]);
    expect(english[definition!.name.replace(/^t:/, "")]).toBe("Wishlist");
    const installed = JSON.parse(
      readFileSync(path.join(ROOT, "node_modules/@shopify/ui-extensions/package.json"), "utf8"),
    );
    const [year, month] = (installed.version as string).split(".");
    expect(toml.api_version).toBe(`${year}-${month!.padStart(2, "0")}`);
  });

  it("its package.json asks for what the root installs (the root's `npm ci` is what installs it)", () => {
    const root = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const own = readJson("package.json") as { dependencies: Record<string, string> };
    for (const [name, range] of Object.entries(own.dependencies)) expect(root.devDependencies[name], name).toBe(range);
  });

  it("calls the app at shopify.app.toml's application_url unless the CLI names another", async () => {
    const app = parseToml(readFileSync(path.join(ROOT, "shopify.app.toml"), "utf8")) as { application_url: string };
    const { APPLICATION_URL, appUrl } = await import("../../extensions/wishlist-account/src/app-url");
    expect(APPLICATION_URL).toBe(app.application_url);
    expect(appUrl()).toBe(app.application_url);
  });
});
