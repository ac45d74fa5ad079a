/**
 * The wishlist page block's script (built into extensions/wishlist-theme/assets/wishlist-page.js and loaded
 * by blocks/wishlist-page.liquid only; docs/storefront.md, docs/decisions/030-wishlist-page-script.md).
 * It renders the shopper's own lists (in a shop with named lists, one tab each, with rename, delete and a new
 * list) or, with `?share=<token>`, the shared list, each item with what the shop's product JSON
 * (`/products/<handle>.js`) says of it now: image, price in the shop's money format, the saved variant,
 * whether it can be bought, the date it was saved, the shopper's note and quantity (editable on their own
 * lists), a variant picker where the product has several, and "Add to cart" (the platform's Ajax Cart API,
 * `/cart/add.js`, with the quantity saved); "Add all to cart" adds every item that can be bought and says
 * which could not. Removing offers "Undo"; sharing offers "Copy link" and the browser's share sheet.
 * The default list, the calls and the announcements are the embed's (page-context.ts).
 */
import type { ApiError, Item, List, ListSummary } from "./wishlist-client";
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

/** What a row offers to buy: the variant chosen in its picker (the saved one, else the first available). */
interface Buyable {
  variantId: number | null;
  quantity: number;
  name: string;
}

async function renderPage(root: HTMLElement, context: PageContext, settings: PageSettings) {
  const { api } = context;
  const text = (key: string) => context.config().strings[key] ?? settings.strings[key] ?? context.strings[key] ?? key;
  const token = new URLSearchParams(location.search).get("share");
  const body = root.querySelector<HTMLElement>("[data-wishlist-items]")!;
  const heading = root.querySelector("[data-wishlist-title]");
  const shareButton = root.querySelector<HTMLButtonElement>("[data-wishlist-share]");
  const stopButton = root.querySelector<HTMLButtonElement>("[data-wishlist-unshare]");
  const field = root.querySelector<HTMLInputElement>("[data-wishlist-link]");
  const copyButton = root.querySelector<HTMLButtonElement>("[data-wishlist-copy]");
  const sheetButton = root.querySelector<HTMLButtonElement>("[data-wishlist-sheet]");
  const addAll = root.querySelector<HTMLButtonElement>("[data-wishlist-add-all]")!;
  const tabs = root.querySelector<HTMLElement>("[data-wishlist-tabs]")!;
  const tools = root.querySelector<HTMLElement>("[data-wishlist-tools]")!;
  const config = context.config();
  const storefrontRoot = (window as { Shopify?: { routes?: { root?: string } } }).Shopify?.routes?.root ?? "/";
  let list: List = { count: 0, items: [] };
  // The list shown: null for the default list (the embed's), else one of the shopper's named lists.
  let current: ListSummary | null = null;
  let currentItems: Item[] = [];
  // A guest of a shop without guest lists has no list to show: the page asks them to log in.
  const loginFirst = !token && !context.customer && !config.guestEnabled;
  const hideSharing = () => {
    for (const element of [shareButton, stopButton, field, copyButton, sheetButton]) element?.remove();
  };
  if (heading) heading.textContent = text(token ? "sharedTitle" : "title");
  if (token) {
    hideSharing();
    try {
      list = await api.shared(token);
      // A named list is shown under its name ("Gifts for Sam"); a default list as "Shared wishlist".
      const { name, default: isDefault } = list as List & { name?: string; default?: boolean };
      if (heading && name && isDefault === false) heading.textContent = name;
    } catch (error) {
      // The embed's bundle made the error (its own ApiError class, which instanceof here would not know).
      const status = (error as Partial<ApiError>).status;
      // 400: a token no share link can carry (mangled when copied), as dead as an unknown one.
      body.textContent = text(
        status === 404 || status === 400 ? "sharedMissing" : status === 403 ? "sharingDisabled" : "error",
      );
      addAll.remove();
      return;
    }
  } else if (context.loadFailed) {
    hideSharing();
    addAll.remove();
    body.textContent = text("loadFailed");
    return;
  }
  if (!token && !context.customer && !context.storageAllowed()) {
    // The visitor refused (or has not allowed) preferences storage: the list lasts for this page.
    const note = document.createElement("p");
    note.textContent = text("sessionOnly");
    const login = document.createElement("a");
    login.href = context.loginUrl;
    login.textContent = text("logIn");
    note.append(" ", login);
    tabs.before(note);
  }

  // ---- sharing: a link per list, copied, or handed to the browser's share sheet ----------------------------
  const shareOf = (listId: string | null) =>
    listId
      ? api.call<{ url: string }>("POST", `/wishlists/${listId}/share${api.owner(context.guestId())}`, {})
      : api.share(context.guestId());
  const unshareOf = (listId: string | null) =>
    listId
      ? api.call<void>("DELETE", `/wishlists/${listId}/share${api.owner(context.guestId())}`, {})
      : api.unshare(context.guestId());
  const isShared = () => (current ? current.share.enabled : context.shared());
  const showLink = (url: string | null) => {
    if (field) {
      field.value = url ?? "";
      field.hidden = !url;
    }
    if (copyButton) copyButton.hidden = !url;
    // The browser's share sheet, where it has one (phones, some desktops).
    if (sheetButton) sheetButton.hidden = !url || !("share" in navigator);
  };
  const copy = async () => {
    const copied = await navigator.clipboard?.writeText(field!.value).then(
      () => true,
      () => false,
    );
    // Where the browser refused the clipboard, the link is selected to copy by hand instead.
    if (copied) context.say(text("linkCopied"));
    else field?.select();
  };
  if (copyButton) copyButton.onclick = () => void copy();
  if (sheetButton)
    sheetButton.onclick = () =>
      void navigator.share({ title: current?.name ?? text("title"), url: field!.value }).catch(() => undefined);
  if (stopButton)
    stopButton.onclick = async () => {
      try {
        await unshareOf(current?.id ?? null);
        if (current) current.share.enabled = false;
        else context.shared(false);
        stopButton.hidden = true;
        showLink(null);
        context.say(text("sharingStopped"));
        shareButton?.focus();
      } catch (error) {
        context.failure(error);
      }
    };
  if (shareButton)
    shareButton.onclick = async () => {
      try {
        const { url } = await shareOf(current?.id ?? null);
        if (current) current.share.enabled = true;
        else context.shared(true);
        if (stopButton) stopButton.hidden = false;
        showLink(url);
        await copy();
      } catch (error) {
        context.failure(error);
      }
    };

  // ---- product lookups: each handle once per page, a few at a time -----------------------------------
  const products = new Map<string, Promise<ProductJson | typeof GONE | null>>();
  const waiting: Array<() => void> = [];
  let running = 0;
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

  // ---- the cart: the platform's Ajax Cart API ------------------------------------------------------------
  async function addToCart(lines: Buyable[]): Promise<Buyable[]> {
    const post = (part: Buyable[]) =>
      fetch(`${storefrontRoot}cart/add.js`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ items: part.map((line) => ({ id: line.variantId, quantity: line.quantity })) }),
      }).then(
        (response) => response.ok,
        () => false,
      );
    if (await post(lines)) return [];
    // The cart takes all or nothing: one line refused (sold out since, a limit) is found by adding them one by one.
    const refused: Buyable[] = [];
    if (lines.length > 1) for (const line of lines) if (!(await post([line]))) refused.push(line);
    return lines.length > 1 ? refused : lines;
  }
  async function buy(lines: Buyable[], skipped: number) {
    const refused = await addToCart(lines.filter((line) => line.variantId !== null));
    const added = lines.length - refused.length;
    const notAdded = skipped + refused.length;
    document.dispatchEvent(new CustomEvent("wishlist:cart", { detail: { added } }));
    const message = [
      added ? text("addedToCart").replace("{count}", String(added)) : "",
      notAdded ? text("notAdded").replace("{count}", String(notAdded)) : "",
    ].join(" ");
    context.say(message.trim(), added ? { href: `${storefrontRoot}cart`, text: text("viewCart") } : undefined);
  }

  // ---- one item ------------------------------------------------------------------------------------------
  const addedDate = new Intl.DateTimeFormat(context.locale || undefined, { dateStyle: "medium" });
  const part = (className: string, content: string) => {
    const element = document.createElement("span");
    element.className = className;
    element.textContent = content;
    return element;
  };
  const labelled = <T extends HTMLElement>(element: T, label: string, className: string) => {
    element.className = className;
    element.setAttribute("aria-label", label);
    return element;
  };
  /** Changes an item's note or quantity (own lists only); the field goes back if the change is refused. */
  async function update(item: Item, changes: { note?: string; quantity?: number }, revert: () => void) {
    try {
      Object.assign(
        item,
        await api.call<Item>("PATCH", `/wishlist/items/${item.id}${api.owner(context.guestId())}`, changes),
      );
      context.say(text("changeSaved"));
    } catch (error) {
      revert();
      context.failure(error);
    }
  }
  async function remove(item: Item) {
    try {
      await api.remove(context.guestId(), item.id);
      await context.refresh({ productId: item.productId, handle: item.handle, added: false });
      // "Undo" saves it again where it was, with its variant, note and quantity.
      context.say(text("removed"), {
        text: text("undo"),
        run: () =>
          void api
            .add(context.ensureGuestId(), {
              productId: item.productId,
              handle: item.handle,
              title: item.titleSnapshot,
              ...(item.variantId ? { variantId: item.variantId } : {}),
              ...(current?.id ? { listId: current.id } : {}),
            })
            .then((saved) =>
              item.note || item.quantity > 1
                ? api.call("PATCH", `/wishlist/items/${saved.id}${api.owner(context.guestId())}`, {
                    ...(item.note ? { note: item.note } : {}),
                    quantity: item.quantity,
                  })
                : null,
            )
            .then(() => context.refresh({ productId: item.productId, handle: item.handle, added: true }))
            .catch(context.failure),
      });
    } catch (error) {
      context.failure(error);
    }
  }

  function row(item: Item, product: ProductJson | typeof GONE | null, buyables: Array<() => Buyable | null>) {
    const element = document.createElement("li");
    element.className = "wl-item";
    const name = item.titleSnapshot || (product && product !== GONE ? product.title : "") || item.handle;
    // A product deleted from the shop, no longer shown on it, or without a handle to find it by has no page
    // to link to: its name, said to be unavailable.
    const gone = item.available === false || product === GONE || !item.handle;
    const found = product && product !== GONE ? product : null;
    const saved = found?.variants.find((candidate) => String(candidate.id) === item.variantId);
    // The variant to buy: the one saved, else the product's first available one (the picker can change it).
    let chosen = saved ?? found?.variants.find((candidate) => candidate.available) ?? found?.variants[0];
    const media = document.createElement("div");
    media.className = "wl-media";
    const imageUrl = gone || !found ? null : (chosen?.featured_image?.src ?? found.featured_image);
    if (imageUrl) {
      const image = document.createElement("img");
      image.src = imageUrl;
      image.alt = chosen?.featured_image?.alt || name;
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
    // Bought (an order of the shop): said in words, not by a colour, on the owner's list and a shared one.
    if (item.purchasedAt) info.append(part("wl-bought", text("bought")));
    const price = part("wl-price", "");
    const stock = part("wl-note", "");
    const actions = document.createElement("div");
    actions.className = "wl-actions";
    const cart = document.createElement("button");
    cart.type = "button";
    cart.className = "wl-remove wl-cart";
    cart.textContent = text("addToCart");
    cart.setAttribute("aria-label", `${text("addToCart")}: ${name}`);
    const show = () => {
      price.textContent = chosen ? formatMoney(chosen.price, settings.moneyFormat) : "";
      stock.textContent = text(chosen?.available ? "inStock" : "soldOut");
      cart.disabled = !chosen?.available;
    };
    const quantity = () => item.quantity;
    if (gone) {
      element.classList.add("wl-unavailable");
      info.append(part("wl-note", text("unavailable")));
      cart.disabled = true;
    } else if (found) {
      // A product without options has one variant, "Default Title", which is no choice worth naming.
      if (found.variants.length > 1) {
        const picker = labelled(document.createElement("select"), `${text("variant")}: ${name}`, "wl-variant");
        for (const variant of found.variants) {
          const option = new Option(
            variant.available ? variant.title : `${variant.title} (${text("soldOut")})`,
            String(variant.id),
          );
          option.selected = variant === chosen;
          picker.append(option);
        }
        picker.onchange = () => {
          chosen = found.variants.find((variant) => String(variant.id) === picker.value);
          show();
        };
        info.append(picker);
      }
      info.append(price, stock);
      show();
    } else cart.hidden = true;
    if (item.note && token) info.append(part("wl-item-note", item.note));
    info.append(part("wl-added", text("added").replace("{date}", addedDate.format(new Date(item.addedAt)))));
    const buyable = () =>
      gone || !found ? null : { variantId: chosen?.available ? chosen.id : null, quantity: quantity(), name };
    buyables.push(buyable);
    cart.onclick = () => {
      const line = buyable();
      if (line?.variantId) void buy([line], 0);
    };
    actions.append(cart);
    if (token) {
      if (item.quantity > 1) info.append(part("wl-qty", `${text("quantity")}: ${item.quantity}`));
    } else {
      const note = labelled(document.createElement("textarea"), `${text("note")}: ${name}`, "wl-note-field");
      note.maxLength = 280;
      note.rows = 2;
      note.placeholder = text("note");
      note.value = item.note ?? "";
      note.onchange = () => {
        const before = item.note ?? "";
        void update(item, { note: note.value }, () => (note.value = before));
      };
      const amount = labelled(document.createElement("input"), `${text("quantity")}: ${name}`, "wl-qty-field");
      amount.type = "number";
      amount.min = "1";
      amount.max = "99";
      amount.value = String(item.quantity);
      amount.onchange = () => {
        const before = item.quantity;
        const wanted = Number(amount.value);
        if (!Number.isInteger(wanted) || wanted < 1 || wanted > 99) {
          amount.value = String(before);
          context.say(text("quantityRange"));
          return;
        }
        void update(item, { quantity: wanted }, () => (amount.value = String(before)));
      };
      info.append(note);
      actions.prepend(amount);
      const lists = context.lists();
      if (lists && lists.length > 1) {
        const move = labelled(document.createElement("select"), `${text("moveTo")}: ${name}`, "wl-move");
        move.append(new Option(text("moveTo"), ""));
        for (const other of lists)
          if (other.id !== (current?.id ?? lists[0]!.id) && other.id)
            move.append(new Option(other.default ? text("title") : other.name, other.id));
        move.onchange = async () => {
          try {
            await api.call("POST", `/wishlist/items/${item.id}/move${api.owner(context.guestId())}`, {
              listId: move.value,
            });
            context.say(text("moved"));
            await context.refresh({ productId: item.productId, handle: item.handle, added: true });
          } catch (error) {
            const onIt = context
              .lists()
              ?.find((candidate) => candidate.id === move.value)
              ?.products?.some((saved) => saved.productId === item.productId);
            move.value = "";
            // 409: that list holds the product already (or is full, which the embed's message says).
            if ((error as Partial<ApiError>).status === 409 && onIt) context.say(text("alreadyOnList"));
            else context.failure(error);
          }
        };
        actions.append(move);
      }
      const removeButton = document.createElement("button");
      removeButton.type = "button";
      removeButton.className = "wl-remove wl-drop";
      removeButton.textContent = text("remove");
      removeButton.setAttribute("aria-label", `${text("remove")}: ${name}`);
      removeButton.onclick = () => void remove(item);
      actions.append(removeButton);
    }
    element.append(media, info, actions);
    return element;
  }

  // ---- tabs: one per list, in a shop with named lists --------------------------------------------------------
  const nameForm = document.createElement("form");
  nameForm.className = "wl-name-form";
  nameForm.hidden = true;
  const nameLabel = document.createElement("label");
  const nameField = document.createElement("input");
  nameField.id = "wl-list-name";
  nameField.maxLength = 60;
  nameField.required = true;
  nameLabel.htmlFor = nameField.id;
  const nameSave = document.createElement("button");
  nameSave.className = "wl-remove";
  nameSave.textContent = text("save");
  const nameCancel = document.createElement("button");
  nameCancel.type = "button";
  nameCancel.className = "wl-remove";
  nameCancel.textContent = text("cancel");
  nameForm.append(nameLabel, nameField, nameSave, nameCancel);
  let renaming = false;
  const openNameForm = (rename: boolean, opener: HTMLElement) => {
    renaming = rename;
    nameLabel.textContent = text(rename ? "rename" : "newList");
    nameField.value = rename ? current!.name : "";
    nameForm.hidden = false;
    nameField.focus();
    nameCancel.onclick = () => {
      nameForm.hidden = true;
      opener.focus();
    };
  };
  nameForm.onsubmit = async (event) => {
    event.preventDefault();
    const aid = context.ensureGuestId();
    try {
      const saved = await api.call<ListSummary>(
        renaming ? "PATCH" : "POST",
        `/wishlists${renaming ? `/${current!.id}` : ""}${api.owner(aid)}`,
        { name: nameField.value },
      );
      nameForm.hidden = true;
      context.say(text(renaming ? "listRenamed" : "listCreated"));
      await context.refresh();
      await select(saved.id);
    } catch (error) {
      context.say(text((error as Partial<ApiError>).status === 409 ? "nameTaken" : "error"));
    }
  };

  const tool = (label: string, run: (button: HTMLButtonElement) => void) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "wl-remove";
    button.textContent = label;
    button.onclick = () => run(button);
    return button;
  };

  function drawTabs() {
    const lists = context.lists();
    if (!lists || token) return;
    const selected = current?.id ?? null;
    const buttons = lists.map((candidate, index) => {
      const tab = document.createElement("button");
      tab.type = "button";
      tab.id = `wl-tab-${index}`;
      tab.setAttribute("role", "tab");
      const on = candidate.default ? selected === null || selected === candidate.id : candidate.id === selected;
      tab.setAttribute("aria-selected", String(on));
      tab.setAttribute("aria-controls", "wl-panel");
      tab.tabIndex = on ? 0 : -1;
      tab.textContent = `${candidate.default ? text("title") : candidate.name} (${candidate.count})`;
      if (on) body.setAttribute("aria-labelledby", tab.id);
      tab.onclick = () => void select(candidate.default ? null : candidate.id);
      return tab;
    });
    tabs.setAttribute("role", "tablist");
    body.setAttribute("role", "tabpanel");
    tabs.setAttribute("aria-label", text("lists"));
    tabs.replaceChildren(...buttons);
    // Arrow keys move between tabs, Home and End to the first and the last (and show the list), as a tab list does.
    tabs.onkeydown = (event) => {
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const count = buttons.length;
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1 + count, Home: 0, End: count - 1 }[event.key];
      if (at < 0 || to === undefined) return;
      event.preventDefault();
      const next = buttons[to % count]!;
      next.focus();
      next.click();
    };
    const own = current && !current.default;
    tools.replaceChildren(
      ...(own
        ? [
            tool(text("rename"), (button) => openNameForm(true, button)),
            tool(text("deleteList"), async () => {
              if (!confirm(text("confirmDelete").replace("{name}", current!.name))) return;
              try {
                await api.call("DELETE", `/wishlists/${current!.id}${api.owner(context.guestId())}`);
                context.say(text("listDeleted"));
                current = null;
                await context.refresh({ productId: "", handle: "", added: false });
                buttonsFocus();
              } catch (error) {
                context.failure(error);
              }
            }),
          ]
        : []),
      ...(lists.length < config.maxLists ? [tool(text("newList"), (button) => openNameForm(false, button))] : []),
      nameForm,
    );
  }
  const buttonsFocus = () => tabs.querySelector<HTMLElement>("[aria-selected=true]")?.focus();

  async function select(listId: string | null) {
    const lists = context.lists() ?? [];
    const found = lists.find((candidate) => candidate.id === listId && !candidate.default);
    current = found ?? null;
    // The tab shown is in the address (#list=<id>): a reload, or the Back button, comes back to it.
    history.replaceState(null, "", current ? `#list=${current.id}` : location.pathname + location.search);
    nameForm.hidden = true;
    showLink(null);
    await draw();
    buttonsFocus();
  }

  // ---- the list --------------------------------------------------------------------------------------------
  // Draws are numbered: a slower lookup of an earlier draw never paints over a later list.
  let drawn = 0;
  async function draw() {
    const draw = ++drawn;
    if (current) {
      // A named list: its items read afresh (the embed keeps the default list only); gone: back to the default.
      current = context.lists()?.find((candidate) => candidate.id === current!.id) ?? null;
      if (current) {
        try {
          currentItems = (await api.call<List>("GET", `/wishlists/${current.id}${api.owner(context.guestId())}`)).items;
        } catch (error) {
          context.failure(error);
          current = null;
        }
      }
    }
    if (draw !== drawn) return;
    drawTabs();
    const shown = token ? list.items : current ? currentItems : context.items();
    // An empty list has nothing to share: the button is not offered.
    if (shareButton) shareButton.hidden = !config.shareEnabled || loginFirst || shown.length === 0;
    if (stopButton) stopButton.hidden = !isShared();
    // Redrawing takes away the focused control (its Remove button was just pressed): focus goes on to the same
    // control of the row now in its place, or the heading once the list is empty, not back to the top.
    const active = document.activeElement as HTMLElement | null;
    const focusedRow = active?.closest("li");
    const focused = focusedRow && body.contains(focusedRow) ? [...body.querySelectorAll("li")].indexOf(focusedRow) : -1;
    const focusedClass = active?.className.split(" ").pop() ?? "";
    addAll.hidden = shown.length === 0;
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
    const buyables: Array<() => Buyable | null> = [];
    const rows = shown.map((item, index) => row(item, details[index]!, buyables));
    const listElement = document.createElement("ul");
    listElement.className = "wl-list";
    listElement.append(...rows);
    body.replaceChildren(listElement);
    addAll.onclick = () => {
      const lines = buyables.map((buyable) => buyable());
      const ready = lines.filter((line): line is Buyable => !!line?.variantId);
      if (ready.length) void buy(ready, lines.length - ready.length);
      else context.say(text("notAdded").replace("{count}", String(lines.length)));
    };
    if (focused >= 0) {
      const target = rows[Math.min(focused, rows.length - 1)]!;
      (target.querySelector<HTMLElement>(`.${focusedClass}`) ?? target.querySelector<HTMLElement>(".wl-drop"))?.focus();
    }
  }
  // The list the address names, where it is still one of the shopper's.
  const named = /^#list=(lst_\w+)$/.exec(location.hash)?.[1];
  current = (!token && context.lists()?.find((candidate) => candidate.id === named && !candidate.default)) || null;
  await draw();
  if (!token) context.on(() => void draw());
}
