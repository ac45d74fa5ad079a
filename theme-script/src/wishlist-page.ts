/**
 * The wishlist page block's script (built into extensions/wishlist-theme/assets/wishlist-page.js and loaded
 * by blocks/wishlist-page.liquid only; docs/storefront.md, docs/decisions/030-wishlist-page-script.md).
 * It renders the shopper's own list (remove, share by link, stop sharing) or, with `?share=<token>`, the
 * shared list, each item with what the shop's product JSON (`/products/<handle>.js`) says of it now: image,
 * price in the shop's money format, the saved variant, whether it can be bought, and the date it was saved.
 * The list, the calls and the announcements are the embed's (page-context.ts).
 */
import type { ApiError, Item, List } from "./wishlist-client";
import { PAGE_EVENT, type PageContext } from "./page-context";

interface PageSettings {
  moneyFormat: string;
  strings: Record<string, string>;
}

/** The platform's Ajax API product (`/products/<handle>.js`), the members this page reads. */
interface ProductJson {
  title: string;
  price: number;
  available: boolean;
  featured_image: string | null;
  variants: Array<{
    id: number;
    title: string;
    price: number;
    available: boolean;
    featured_image: { src: string; alt: string | null } | null;
  }>;
}

/** A product the shop no longer shows (404): listed as unavailable. */
const GONE = "gone";
/** How many product JSONs are fetched at once: enough to fill a page quickly, few enough not to crowd a shop's storefront. */
const LOOKUPS_AT_ONCE = 4;

const root = document.querySelector<HTMLElement>("[data-wishlist-page]");
const pageSettings = document.querySelector("[data-wishlist-page-settings]");
if (root && pageSettings) {
  const settings = JSON.parse(pageSettings.textContent!) as PageSettings;
  const loaded = (window as { Wishlist?: { _page?: PageContext } }).Wishlist?._page;
  if (loaded) void renderPage(root, loaded, settings);
  // The app embed is off (its settings are written at the end of the body, before this deferred script
  // runs): no list can come, so the page says so rather than "Loading…" for ever.
  else if (!document.getElementById("wishlist-settings")) {
    const note = document.createElement("p");
    note.textContent = settings.strings.notAvailable!;
    root.querySelector("[data-wishlist-items]")!.replaceChildren(note);
  } else
    document.addEventListener(
      PAGE_EVENT,
      (event) => void renderPage(root, (event as CustomEvent<PageContext>).detail, settings),
      { once: true },
    );
}

/** Writes `cents` as the shop's `money_format` does (`{{amount}}`, `{{amount_with_comma_separator}}`, ...). */
function formatMoney(cents: number, moneyFormat: string): string {
  // The format may hold markup or entities ("<span class=money>&euro;{{amount}}</span>"): its text is shown.
  const format = new DOMParser().parseFromString(moneyFormat, "text/html").documentElement.textContent ?? "";
  return format.replace(/{{\s*(\w+)\s*}}/, (_, kind: string) => {
    const [thousands, decimal] = kind.includes("comma_separator")
      ? [".", ","]
      : kind.includes("apostrophe")
        ? ["'", "."]
        : kind.includes("period_and_space")
          ? [" ", "."]
          : kind.includes("space_separator")
            ? [" ", ","]
            : [",", "."];
    const places = kind.includes("no_decimals") ? 0 : 2;
    const [whole, fraction] = (cents / 100).toFixed(places).split(".");
    return whole!.replace(/\B(?=(\d{3})+(?!\d))/g, thousands) + (fraction ? decimal + fraction : "");
  });
}

async function renderPage(root: HTMLElement, context: PageContext, settings: PageSettings) {
  const { api } = context;
  const text = (key: string) => context.config().strings[key] ?? settings.strings[key] ?? context.strings[key] ?? key;
  const token = new URLSearchParams(location.search).get("share");
  const body = root.querySelector<HTMLElement>("[data-wishlist-items]")!;
  const heading = root.querySelector("[data-wishlist-title]");
  const shareButton = root.querySelector<HTMLButtonElement>("[data-wishlist-share]");
  const stopButton = root.querySelector<HTMLButtonElement>("[data-wishlist-unshare]");
  const config = context.config();
  let list: List = { count: 0, items: [] };
  // A guest of a shop without guest lists has no list to show: the page asks them to log in.
  const loginFirst = !token && !context.customer && !config.guestEnabled;
  if (token) {
    if (heading) heading.textContent = text("sharedTitle");
    shareButton?.remove();
    stopButton?.remove();
    try {
      list = await api.shared(token);
    } catch (error) {
      // The embed's bundle made the error (its own ApiError class, which instanceof here would not know).
      const status = (error as Partial<ApiError>).status;
      // 400: a token no share link can carry (mangled when copied), as dead as an unknown one.
      body.textContent = text(
        status === 404 || status === 400 ? "sharedMissing" : status === 403 ? "sharingDisabled" : "error",
      );
      return;
    }
  } else if (context.loadFailed) {
    if (heading) heading.textContent = text("title");
    shareButton?.remove();
    stopButton?.remove();
    body.textContent = text("loadFailed");
    return;
  } else if (shareButton) {
    if (heading) heading.textContent = text("title");
    const field = root.querySelector<HTMLInputElement>("[data-wishlist-link]");
    // Withdrawing a link is offered whenever the list has one, also while the shop has sharing off.
    if (stopButton) {
      stopButton.hidden = !context.shared();
      stopButton.onclick = async () => {
        try {
          await api.unshare(context.guestId());
          context.shared(false);
          stopButton.hidden = true;
          if (field) field.hidden = true;
          context.say(text("sharingStopped"));
          shareButton.focus();
        } catch (error) {
          context.failure(error);
        }
      };
    }
    shareButton.onclick = async () => {
      try {
        const { url } = await api.share(context.guestId());
        const copied = await navigator.clipboard?.writeText(url).then(
          () => true,
          () => false,
        );
        context.shared(true);
        if (stopButton) stopButton.hidden = false;
        if (field) {
          field.value = url;
          field.hidden = false;
        }
        // Where the browser refused the clipboard, the link is selected to copy by hand instead.
        if (copied) context.say(text("linkCopied"));
        else field?.select();
      } catch (error) {
        context.failure(error);
      }
    };
  }

  // ---- product lookups: each handle once per page, a few at a time -----------------------------------
  const products = new Map<string, Promise<ProductJson | typeof GONE | null>>();
  const waiting: Array<() => void> = [];
  let running = 0;
  const storefrontRoot = (window as { Shopify?: { routes?: { root?: string } } }).Shopify?.routes?.root ?? "/";
  async function fetchProduct(handle: string): Promise<ProductJson | typeof GONE | null> {
    if (running >= LOOKUPS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      const response = await fetch(`${storefrontRoot}products/${encodeURIComponent(handle)}.js`);
      if (response.status === 404) return GONE;
      return response.ok ? ((await response.json()) as ProductJson) : null;
    } catch {
      // Not reached: the row keeps its name and link, without the details.
      return null;
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  }
  const productOf = (handle: string) => {
    let lookup = products.get(handle);
    if (!lookup) products.set(handle, (lookup = fetchProduct(handle)));
    return lookup;
  };

  const addedDate = new Intl.DateTimeFormat(context.locale || undefined, { dateStyle: "medium" });
  const part = (className: string, content: string) => {
    const element = document.createElement("span");
    element.className = className;
    element.textContent = content;
    return element;
  };

  function row(item: Item, product: ProductJson | typeof GONE | null): HTMLLIElement {
    const element = document.createElement("li");
    element.className = "wl-item";
    const name = item.titleSnapshot || (product && product !== GONE ? product.title : "") || item.handle;
    // A product deleted from the shop, no longer shown on it, or without a handle to find it by has no page
    // to link to: its name, said to be unavailable.
    const gone = item.available === false || product === GONE || !item.handle;
    const variant =
      product && product !== GONE
        ? product.variants.find((candidate) => String(candidate.id) === item.variantId)
        : null;
    const media = document.createElement("div");
    media.className = "wl-media";
    const imageUrl = gone || !product ? null : (variant?.featured_image?.src ?? product.featured_image);
    if (imageUrl) {
      const image = document.createElement("img");
      image.src = imageUrl;
      image.alt = variant?.featured_image?.alt || name;
      image.width = image.height = 80;
      image.loading = "lazy";
      media.append(image);
    }
    const info = document.createElement("div");
    info.className = "wl-info";
    const link = document.createElement(gone ? "span" : "a");
    link.className = "wl-name";
    if (link instanceof HTMLAnchorElement)
      link.href = `${storefrontRoot}products/${encodeURIComponent(item.handle)}${item.variantId ? `?variant=${item.variantId}` : ""}`;
    link.textContent = name;
    info.append(link);
    if (gone) {
      element.classList.add("wl-unavailable");
      info.append(part("wl-note", text("unavailable")));
    } else if (product) {
      // A product without options has one variant, "Default Title", which is no choice worth naming.
      if (variant && product.variants.length > 1) info.append(part("wl-variant", variant.title));
      info.append(
        part("wl-price", formatMoney(variant?.price ?? product.price, settings.moneyFormat)),
        part("wl-note", text((variant ?? product).available ? "inStock" : "soldOut")),
      );
    }
    info.append(part("wl-added", text("added").replace("{date}", addedDate.format(new Date(item.addedAt)))));
    element.append(media, info);
    if (!token) {
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "wl-remove";
      remove.textContent = text("remove");
      remove.dataset.wishlistRemove = "";
      remove.dataset.productId = item.productId;
      remove.dataset.handle = item.handle;
      remove.setAttribute("aria-label", `${text("remove")}: ${name}`);
      element.append(remove);
    }
    return element;
  }

  // Draws are numbered: a slower lookup of an earlier draw never paints over a later list.
  let drawn = 0;
  const draw = async () => {
    const draw = ++drawn;
    const shown = token ? list.items : context.items();
    // An empty list has nothing to share: the button is not offered.
    if (shareButton && !token) shareButton.hidden = !config.shareEnabled || loginFirst || shown.length === 0;
    // Redrawing takes away the focused row (its Remove button was just pressed): focus goes on to the
    // row now in its place, or the heading once the list is empty, not back to the top of the page.
    const focusedRow = document.activeElement?.closest("li");
    const focused = focusedRow && body.contains(focusedRow) ? [...body.querySelectorAll("li")].indexOf(focusedRow) : -1;
    if (!shown.length) {
      body.textContent = text(loginFirst ? "loginToSave" : "empty");
      if (loginFirst) {
        const login = document.createElement("a");
        login.href = context.loginUrl;
        login.textContent = text("logIn");
        body.append(" ", login);
      }
      if (focused >= 0 && heading instanceof HTMLElement) {
        heading.tabIndex = -1;
        heading.focus();
      }
      return;
    }
    // A product the service knows is deleted is not looked up: the shop would only answer 404.
    const details = await Promise.all(
      shown.map((item) => (item.handle && item.available !== false ? productOf(item.handle) : null)),
    );
    if (draw !== drawn) return;
    const rows = shown.map((item, index) => row(item, details[index]!));
    const listElement = document.createElement("ul");
    listElement.className = "wl-list";
    listElement.append(...rows);
    body.replaceChildren(listElement);
    if (focused >= 0)
      listElement.querySelectorAll<HTMLElement>(".wl-remove")[Math.min(focused, rows.length - 1)]?.focus();
  };
  await draw();
  if (!token) context.on(() => void draw());
}
