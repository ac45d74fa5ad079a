/**
 * The storefront script of the theme app extension (built into extensions/wishlist-theme/assets/wishlist.js
 * by scripts/build-theme.ts; docs/storefront.md). No framework: it finds the heart buttons the app blocks
 * rendered (and, when the merchant turns it on, adds hearts to product cards), keeps them in step with the
 * shopper's list, hands the wishlist page block's own script what it needs (page-context.ts), and exposes
 * `window.Wishlist` and the `wishlist:change` event for theme developers.
 */
import { ApiError, createApi, type Config, type Item, type List, type ListSummary } from "./wishlist-client";
import { PAGE_EVENT, PICKER_READY, type PageContext, type PickerContext, type Target } from "./page-context";

interface EmbedSettings {
  proxy: string;
  locale: string;
  customer: string | null;
  loginUrl: string;
  sharePath: string;
  cards: boolean;
  cardSelector: string;
  position: string;
  badge: boolean;
  /** The list picker's script (wishlist-lists.js), loaded on the first press of a heart in a shop with lists. */
  pickerUrl: string;
  strings: Record<string, string>;
}

type Listener = (detail: ChangeDetail) => void;
interface ChangeDetail {
  productId: string;
  handle: string;
  added: boolean;
  count: number;
}

const AID_KEY = "wishlist:aid";
/** The list id last written into this browser session's cart, with the cart it was written into. */
const LIST_KEY = "wishlist:list";

const settingsElement = document.getElementById("wishlist-settings");
if (settingsElement && !(window as { Wishlist?: unknown }).Wishlist) start(JSON.parse(settingsElement.textContent!));

function start(settings: EmbedSettings) {
  const api = createApi(settings.proxy, settings.locale);
  const strings = settings.strings;
  let config: Config = {
    strings,
    guestEnabled: true,
    shareEnabled: true,
    sharePath: settings.sharePath,
    multipleLists: false,
    maxLists: 1,
  };
  let items: Item[] = [];
  // Where the shop has named lists: every list of the shopper with the products it holds (hearts are full when
  // a product is on any of them). Null in a shop with one list per shopper.
  let lists: ListSummary[] | null = null;
  // Whether the shopper's own list has a share link (its `share.enabled`), for the page's Stop sharing.
  let shared = false;
  let blockedUntil = 0;
  // The shopper's list could not be read at load: the wishlist page must not call it empty.
  let loadFailed = false;
  const listeners = new Set<Listener>();
  // Products with a save or removal under way: a second press (a double click) waits for the first.
  const pending = new Set<string>();

  // The guest id is also kept for the page's life: storage cleared mid-visit (or refused, as in some private
  // modes) must not split the guest's list, nor make removals fail for want of an id.
  let aidInPage: string | null = null;
  // Whether the visitor allows preferences storage (the platform's Customer Privacy API): without it a guest's
  // id lives in this page only. A customer needs no id in the browser: asked only when a guest id is left to merge.
  let storageAllowed = false;
  let toldSessionOnly = false;
  const storage = {
    // Only an id this script could have made: anything else in storage (edited by hand, another script) is
    // ignored and replaced on the next save.
    get: () => {
      const stored = storageAllowed ? safely(() => localStorage.getItem(AID_KEY)) : null;
      if (stored && /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/.test(stored)) aidInPage = stored;
      return aidInPage;
    },
    set: (value: string) => {
      aidInPage = value;
      if (storageAllowed) safely(() => localStorage.setItem(AID_KEY, value));
    },
    drop: () => {
      aidInPage = null;
      safely(() => localStorage.removeItem(AID_KEY));
    },
  };
  // A customer is named by the platform's signature; a guest by the anonymous id kept in this browser.
  const guestId = () => (settings.customer ? null : storage.get());

  /**
   * A guest's default list in the cart's hidden attribute `_wishlist_list`, so that the order the cart
   * becomes names the list its buyer saved to (docs/storefront.md, "Orders from guests"): the value the API
   * gives the guest (`cartAttribute`: the list id with the app's tag for this guest, since a share link shows
   * a list id to anyone), never the anonymous id: the merchant, the platform and other apps read cart
   * attributes. Written once per browser session and cart (the cart's token is in its cookie where the
   * platform lets scripts read it: the new cart after a checkout is written again), and again only when the
   * list changes. Never for a customer (their orders name them; the API gives their list no attribute) nor
   * where the visitor does not allow preferences storage: there an attribute this
   * session wrote is blanked (the platform then drops it) and nothing is kept, as after a login or a refusal.
   * A refused write would be refused again: only one that did not arrive is made again.
   */
  let attribute: string | null | undefined;
  function tag(list?: List) {
    if (list) attribute = list.cartAttribute;
    const value = (storageAllowed && attribute) || "";
    // Read again once written: the write may have made the cart.
    const key = () => value && value + document.cookie.match(/cart=([^;]*)/)?.[1];
    if ((safely(() => sessionStorage[LIST_KEY]) ?? "") !== key())
      fetch("/cart/update.js", {
        method: "POST",
        body: new URLSearchParams({ "attributes[_wishlist_list]": value }),
      }).then(
        () => safely(() => (value ? (sessionStorage[LIST_KEY] = key()) : delete sessionStorage[LIST_KEY])),
        Boolean,
      );
  }

  /** The guest's id, made (and kept as consent allows) on the first save. */
  function ensureGuestId(): string | null {
    if (settings.customer) return null;
    const aid = guestId() ?? crypto.randomUUID();
    storage.set(aid);
    if (!storageAllowed && !toldSessionOnly) {
      toldSessionOnly = true;
      setTimeout(() => say(text("sessionOnly"), { href: settings.loginUrl, text: text("logIn") }), 1500);
    }
    return aid;
  }

  /**
   * Asks the platform's Customer Privacy API whether preferences may be stored (false without an answer in 3 s,
   * or without the API), and follows the visitor's later answers (`visitorConsentCollected`).
   */
  function privacy(): Promise<boolean> {
    const shopify = (window as { Shopify?: ShopifyGlobal }).Shopify;
    document.addEventListener("visitorConsentCollected", (event) => {
      storageAllowed = (event as CustomEvent<{ preferencesAllowed?: boolean }>).detail?.preferencesAllowed === true;
      // The answer decides what the cart may carry: the list id once allowed, nothing once refused.
      tag();
      if (!aidInPage) return;
      if (storageAllowed) storage.set(aidInPage);
      else safely(() => localStorage.removeItem(AID_KEY));
    });
    return new Promise((resolve) => {
      setTimeout(() => resolve(false), 3000);
      try {
        shopify!.loadFeatures([{ name: "consent-tracking-api", version: "0.1" }], (error) =>
          resolve(!error && shopify!.customerPrivacy!.preferencesProcessingAllowed() === true),
        );
      } catch {
        resolve(false);
      }
    });
  }

  // ---- announcements ---------------------------------------------------------------------------------
  const live = document.createElement("div");
  live.className = "wl-toast";
  live.setAttribute("role", "status");
  live.setAttribute("aria-live", "polite");
  document.body.append(live);
  let hideTimer = 0;
  /** Announces `message`, with a link or a button (`run`: "Undo") after it. */
  function say(message: string, link?: { href?: string; text: string; run?: () => void }) {
    live.textContent = message;
    if (link) {
      const action = document.createElement(link.run ? "button" : "a");
      if (action instanceof HTMLAnchorElement) action.href = link.href!;
      else {
        action.className = "wl-undo";
        action.onclick = () => {
          live.classList.remove("wl-show");
          link.run!();
        };
      }
      action.textContent = link.text;
      live.append(" ", action);
    }
    live.classList.add("wl-show");
    clearTimeout(hideTimer);
    hideTimer = window.setTimeout(() => live.classList.remove("wl-show"), 5000);
  }
  function failure(error: unknown) {
    if (error instanceof ApiError && error.status === 429) {
      const seconds = error.retryAfter || 30;
      blockedUntil = Date.now() + seconds * 1000;
      say(text("rateLimited").replace("{seconds}", String(seconds)));
    } else if (error instanceof ApiError && error.status === 409) {
      say(text("listFull"));
    } else {
      say(text("error"));
    }
  }
  const text = (key: string) => config.strings[key] ?? strings[key] ?? key;

  // ---- state ---------------------------------------------------------------------------------------
  const savedItems = (productId: string | null, handle: string) =>
    items.filter((item) => (productId ? item.productId === productId : item.handle === handle));
  const onAnyList = (productId: string | null, handle: string) =>
    savedItems(productId, handle).length > 0 ||
    !!lists?.some((list) =>
      list.products!.some((saved) => (productId ? saved.productId === productId : saved.handle === handle)),
    );

  /**
   * The state of every heart, and the count badges. A button with visible labels (the product page's) says
   * what pressing it does ("Add" / "Remove", swapped by the embed's CSS on `data-saved`) and is no toggle; an
   * icon-only heart keeps one name and is a toggle (`aria-pressed`): one pattern each, never both, so no
   * screen reader hears "Remove from wishlist, pressed". A heart whose change is under way is `aria-busy`.
   */
  function render() {
    for (const button of document.querySelectorAll<HTMLButtonElement>("[data-wishlist-button]")) {
      const saved = onAnyList(button.dataset.productId ?? null, button.dataset.handle ?? "");
      button.toggleAttribute("data-saved", saved);
      if (!button.querySelector("[data-when]")) button.setAttribute("aria-pressed", String(saved));
      // With named lists a press opens the list picker.
      if (lists) button.setAttribute("aria-haspopup", "dialog");
      button.setAttribute("aria-busy", String(pending.has(button.dataset.handle ?? "")));
    }
    for (const count of document.querySelectorAll("[data-wishlist-count]")) {
      // Products saved, on any of the shopper's lists.
      const saved = new Set(
        [...items, ...(lists ?? []).flatMap((list) => list.products!)].map((item) => item.productId),
      );
      count.textContent = saved.size ? String(saved.size) : "";
    }
  }

  function emit(detail: ChangeDetail) {
    document.dispatchEvent(new CustomEvent("wishlist:change", { detail }));
    for (const listener of listeners) listener(detail);
  }

  /** Saves or removes a product, optimistically: the heart changes at once and rolls back if the call fails. */
  async function toggle(target: {
    productId?: string;
    handle: string;
    variantId?: string;
    title?: string;
  }): Promise<boolean> {
    if (!settings.customer && !config.guestEnabled) {
      say(text("loginToSave"), { href: settings.loginUrl, text: text("logIn") });
      return false;
    }
    if (Date.now() < blockedUntil) {
      say(text("rateLimited").replace("{seconds}", String(Math.ceil((blockedUntil - Date.now()) / 1000))));
      return false;
    }
    const existing = savedItems(target.productId ?? null, target.handle);
    const adding = existing.length === 0;
    if (pending.has(target.handle)) {
      // The heart already shows where the first press is heading: say so rather than drop this one unseen.
      say(text("pending"));
      return !adding;
    }
    pending.add(target.handle);
    const placeholder: Item = {
      id: "",
      productId: target.productId ?? "",
      variantId: target.variantId ?? null,
      handle: target.handle,
      titleSnapshot: target.title ?? "",
      addedAt: new Date().toISOString(),
      note: null,
      quantity: 1,
    };
    items = adding ? [placeholder, ...items] : items.filter((item) => !existing.includes(item));
    render();
    try {
      if (adding) {
        // A card's heart knows the handle only: the product JSON gives its id (and its variant, when it has one only).
        const product = target.productId
          ? { id: target.productId, variantId: target.variantId }
          : await productOf(target.handle);
        const variantId = target.variantId ?? product.variantId;
        // A save keeps the guest id in this browser (again, if storage was cleared since).
        const saved = await api.add(ensureGuestId(), {
          productId: product.id,
          handle: target.handle,
          ...(variantId ? { variantId } : {}),
          ...(target.title ? { title: target.title.slice(0, 255) } : {}),
        });
        items = items.map((item) => (item === placeholder ? saved : item));
        // A guest's first save made the list: its attribute is read for the cart (once).
        if (!(attribute || settings.customer)) api.list(guestId()).then(tag, Boolean);
      } else {
        for (const item of existing) await api.remove(guestId(), item.id);
      }
    } catch (error) {
      // Only this change is undone: others may have finished meanwhile.
      items = adding ? items.filter((item) => item !== placeholder) : [...existing, ...items];
      failure(error);
      return !adding;
    } finally {
      // Drawn once the heart is no longer busy, done or rolled back: the next press may go.
      pending.delete(target.handle);
      render();
    }
    say(text(adding ? "saved" : "removed"));
    const productId = target.productId ?? items.find((item) => item.handle === target.handle)?.productId ?? "";
    emit({ productId, handle: target.handle, added: adding, count: items.length });
    return adding;
  }

  // ---- buttons -------------------------------------------------------------------------------------
  document.addEventListener("click", (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>(
      "[data-wishlist-button],[data-wishlist-remove]",
    );
    if (!button) return;
    event.preventDefault();
    const data = button.dataset;
    // On a product page the variant is the one the product form has selected now.
    const form = button.closest("[data-wishlist-product-page]")
      ? document.querySelector("form[action*='/cart/add']")
      : null;
    const variant = (form?.querySelector<HTMLInputElement>("[name=id]")?.value ?? data.variantId) || undefined;
    const target = { productId: data.productId, handle: data.handle ?? "", variantId: variant, title: data.title };
    if (lists && button.dataset.wishlistButton !== undefined) void pick(button, target);
    else void toggle(target);
  });

  // ---- the list picker (shops with named lists), its script loaded on first use ---------------------------
  let picker: Promise<(context: PickerContext, target: Target, opener: HTMLElement) => void> | null = null;
  async function pick(opener: HTMLElement, target: Target) {
    if (!settings.customer && !config.guestEnabled) {
      say(text("loginToSave"), { href: settings.loginUrl, text: text("logIn") });
      return;
    }
    picker ??= new Promise((resolve, reject) => {
      document.addEventListener(PICKER_READY, (event) => resolve((event as CustomEvent).detail), { once: true });
      const script = document.createElement("script");
      script.src = settings.pickerUrl;
      script.onerror = () => {
        picker = null;
        reject(new ApiError(0));
      };
      document.head.append(script);
    });
    try {
      (await picker)(context(), target, opener);
    } catch (error) {
      failure(error);
    }
  }

  /** Reads the shopper's lists again (after the picker or the page changed them) and redraws the hearts. */
  async function refresh(change?: { productId: string; handle: string; added: boolean }) {
    const aid = guestId();
    if (settings.customer || aid) {
      const [list, summaries] = await Promise.all([api.list(aid), lists ? api.lists(aid) : null]);
      items = list.items;
      tag(list);
      if (summaries) lists = summaries.data;
    }
    render();
    if (change) emit({ ...change, count: items.length });
  }

  function addCardHearts() {
    if (!settings.cards) return;
    for (const card of document.querySelectorAll<HTMLElement>(settings.cardSelector)) {
      if (card.querySelector("[data-wishlist-button]")) continue;
      const link = card.querySelector<HTMLAnchorElement>("a[href*='/products/']");
      const handle = link && /\/products\/([^/?#]+)/.exec(link.pathname)?.[1];
      if (!handle) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = `wl-heart wl-card wl-${settings.position}`;
      button.dataset.wishlistButton = "";
      button.dataset.handle = decodeURIComponent(handle);
      button.dataset.title = link.textContent?.trim() ?? "";
      button.setAttribute("aria-label", `${text("add")}: ${button.dataset.title || button.dataset.handle}`);
      button.append(icon());
      if (getComputedStyle(card).position === "static") card.style.position = "relative";
      card.append(button);
    }
  }

  function addBadge() {
    if (!settings.badge || document.querySelector("[data-wishlist-count]")) return;
    const badge = document.createElement("a");
    badge.className = "wl-badge";
    // Only a path on this shop: a browser reads "//host" or "/\host" as another site (settings stored before
    // the API refused them).
    badge.href = /^\/(?![/\\\s])/.test(config.sharePath) ? config.sharePath : settings.sharePath;
    const count = document.createElement("span");
    count.dataset.wishlistCount = "";
    // Named by its text ("Wishlist 2"), not by a label that would differ from what it shows.
    const name = document.createElement("span");
    name.className = "wl-hidden";
    name.textContent = text("title");
    badge.append(icon(), name, count);
    (document.querySelector("header") ?? document.body).append(badge);
  }

  // ---- start ---------------------------------------------------------------------------------------
  async function load() {
    let shareEnded = false;
    const loadedConfig = api.config().catch(() => null);
    // A customer is asked only when a guest id is left to merge: it is read only where storage is allowed.
    if (!settings.customer || safely(() => localStorage.getItem(AID_KEY))) {
      storageAllowed = await privacy();
      // Refused (or not given): an id stored before is not kept either. Allowed: a save made while the answer
      // was coming keeps its id.
      if (!storageAllowed) safely(() => localStorage.removeItem(AID_KEY));
      else if (aidInPage) storage.set(aidInPage);
    }
    let aid = storage.get();
    try {
      if (settings.customer && aid) {
        // The guest list joins the customer's list once; the guest id is then dropped.
        const merged = await api.identify(aid);
        items = merged.items;
        shareEnded = merged.guestShareLinkEnded === true;
        shared = merged.share?.enabled === true;
        storage.drop();
        aid = null;
      } else if (settings.customer || aid) {
        const list = await api.list(guestId());
        items = list.items;
        shared = list.share?.enabled === true;
        tag(list);
      }
    } catch (error) {
      loadFailed = true;
      if (error instanceof ApiError && error.status === 429) failure(error);
    }
    config = (await loadedConfig) ?? config;
    if (config.multipleLists && !loadFailed) {
      lists = [];
      if (settings.customer || aid)
        lists = await api.lists(guestId()).then(
          (answer) => answer.data,
          () => [],
        );
    }
    // The guest's share link ended at this login (docs/decisions/033-guest-share-link-at-login.md).
    if (shareEnded) say(text("shareEnded"));
    // The merchant's texts (GET /storefront/config) replace the theme's defaults.
    for (const label of document.querySelectorAll("[data-wishlist-button] [data-when]")) {
      label.textContent = text((label as HTMLElement).dataset.when === "on" ? "remove" : "add");
    }
    addCardHearts();
    addBadge();
    render();
    // The wishlist page block's script (wishlist-page.js) renders the page from here on.
    const page = context();
    (window as unknown as { Wishlist: { _page: PageContext } }).Wishlist._page = page;
    document.dispatchEvent(new CustomEvent(PAGE_EVENT, { detail: page }));
  }

  function context(): PageContext {
    return {
      api,
      customer: settings.customer,
      loginUrl: settings.loginUrl,
      locale: settings.locale,
      guestId,
      ensureGuestId,
      storageAllowed: () => storageAllowed || !!settings.customer,
      items: () => items,
      lists: () => lists,
      refresh,
      productOf,
      config: () => config,
      strings,
      loadFailed,
      shared: (value) => (shared = value ?? shared),
      say,
      failure,
      on,
    };
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  function on(listener: Listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  function icon(): Node {
    const template = document.getElementById("wishlist-icon") as HTMLTemplateElement | null;
    return template ? template.content.cloneNode(true) : document.createTextNode("\u2665");
  }

  async function productOf(handle: string): Promise<{ id: string; variantId?: string }> {
    const response = await fetch(`/products/${encodeURIComponent(handle)}.js`).catch(() => null);
    if (!response?.ok) throw new ApiError(response?.status ?? 0);
    const product = (await response.json()) as { id: number | string; variants: Array<{ id: number }> };
    return {
      id: String(product.id),
      variantId: product.variants.length === 1 ? String(product.variants[0]!.id) : undefined,
    };
  }

  const ready = load().catch(() => undefined);
  (window as unknown as { Wishlist: unknown }).Wishlist = {
    /** The shopper's saved items, once the first load is done. */
    get: async () => {
      await ready;
      return items.slice();
    },
    toggle: async (productId: string, options: { handle: string; variantId?: string; title?: string }) => {
      await ready;
      return toggle({ productId, ...options });
    },
    on,
  };
}

/** The platform's `window.Shopify` on a storefront page, the members this script uses. */
interface ShopifyGlobal {
  loadFeatures: (features: Array<{ name: string; version: string }>, done: (error?: unknown) => void) => void;
  customerPrivacy?: { preferencesProcessingAllowed: () => boolean };
}

function safely<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
