/**
 * The list picker (built into extensions/wishlist-theme/assets/wishlist-lists.js): in a shop with named lists,
 * the first press of a heart loads this script, and every press opens it. A modal dialog (the browser's
 * `<dialog>`: the page behind is inert, Tab stays inside, Escape closes, focus returns to the heart) with a
 * checkbox per list of the shopper, ticked where the product is, and a field to create a list, which then
 * holds the product. Each tick saves or removes at once; the hearts follow (page-context.ts `refresh`).
 */
import { PICKER_READY, type PickerContext, type Target } from "./page-context";
import type { ApiError, ListSummary } from "./wishlist-client";

let seq = 0;

// The dialog's styles come with it, once: pages that never open it carry none (the embed's size budget).
const style = document.createElement("style");
style.textContent =
  ".wl-dialog{max-width:min(24em,90vw);border:1px solid;border-radius:8px}.wl-dialog label{display:flex;gap:.5em;min-height:44px;align-items:center}.wl-dialog fieldset{border:0;padding:0}.wl-new input{min-height:44px;font:inherit}";
document.head.append(style);

function open(context: PickerContext, target: Target, opener: HTMLElement) {
  const { api } = context;
  const text = (key: string) => context.config().strings[key] ?? context.strings[key] ?? key;
  const id = `wl-picker-${++seq}`;
  const dialog = document.createElement("dialog");
  dialog.className = "wl-dialog";
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  const heading = document.createElement("h2");
  heading.id = `${id}-title`;
  heading.textContent = text("chooseLists");
  const product = document.createElement("p");
  product.textContent = target.title ?? "";
  const group = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.className = "wl-hidden";
  legend.textContent = text("chooseLists");
  group.append(legend);
  const status = document.createElement("p");
  status.setAttribute("role", "status");
  const form = document.createElement("form");
  form.className = "wl-new";
  const label = document.createElement("label");
  label.htmlFor = `${id}-name`;
  label.textContent = text("newList");
  const name = document.createElement("input");
  name.id = `${id}-name`;
  name.maxLength = 60;
  name.required = true;
  name.autocomplete = "off";
  const create = document.createElement("button");
  create.className = "wl-heart";
  create.textContent = text("create");
  form.append(label, name, create);
  const done = document.createElement("button");
  done.type = "button";
  done.className = "wl-heart";
  done.textContent = text("done");
  done.onclick = () => dialog.close();
  dialog.append(heading, product, group, form, status, done);
  // Tab and Shift+Tab go round the dialog's controls rather than out to the browser's.
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const controls = [...dialog.querySelectorAll<HTMLElement>("input,button")].filter(
      (control) => !control.closest("[hidden]"),
    );
    const edge = controls[event.shiftKey ? 0 : controls.length - 1];
    if (document.activeElement === edge) {
      event.preventDefault();
      controls[event.shiftKey ? controls.length - 1 : 0]!.focus();
    }
  });
  dialog.addEventListener("close", () => {
    dialog.remove();
    opener.focus();
  });
  document.body.append(dialog);
  dialog.showModal();

  const explain = (error: unknown, creating = false) => {
    const status = (error as Partial<ApiError>).status;
    return text(status === 409 ? (creating ? "nameTaken" : "listFull") : "error");
  };
  const matches = (saved: { productId: string; handle: string }) =>
    target.productId ? saved.productId === target.productId : saved.handle === target.handle;
  let productId = target.productId;
  let variantId = target.variantId;
  /** A card's heart knows the handle only: the embed's lookup gives its id, and its variant when it has one only. */
  async function productIdOf(): Promise<string> {
    if (productId) return productId;
    const product = await context.productOf(target.handle);
    variantId ??= product.variantId;
    return (productId = product.id);
  }
  const nameOf = (list: ListSummary) => (list.default ? text("title") : list.name);
  /** What a change says, and, for a guest whose list lasts this visit only, that too (the toast is behind). */
  const said = (key: string, list: ListSummary) =>
    `${text(key).replace("{list}", nameOf(list))}${context.storageAllowed() ? "" : ` ${text("sessionOnly")}`}`;

  /** Saves the product to the list (its id; null: the default list). */
  async function save(listId: string | null) {
    await api.add(context.ensureGuestId(), {
      productId: await productIdOf(),
      handle: target.handle,
      ...(variantId ? { variantId } : {}),
      ...(target.title ? { title: target.title.slice(0, 255) } : {}),
      ...(listId ? { listId } : {}),
    });
  }

  /** Draws a checkbox per list; the focus stays on the list it was on (`focus`: a list's id, "" the default). */
  function draw(lists: ListSummary[], focus?: string | null) {
    const boxes = lists.map((list) => {
      const row = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      const saved = list.products?.find(matches);
      box.checked = !!saved;
      box.dataset.list = list.default ? "" : (list.id ?? "");
      box.onchange = async () => {
        box.disabled = true;
        status.textContent = "";
        try {
          if (box.checked) await save(list.id);
          else if (saved) await api.remove(context.guestId(), saved.itemId);
          await context.refresh({ productId: await productIdOf(), handle: target.handle, added: box.checked });
          draw(context.lists() ?? lists, box.dataset.list);
          status.textContent = said(box.checked ? "savedTo" : "removedFrom", list);
        } catch (error) {
          box.checked = !box.checked;
          box.disabled = false;
          status.textContent = explain(error);
        }
      };
      row.append(box, " ", nameOf(list));
      return row;
    });
    group.replaceChildren(legend, ...boxes);
    if (focus !== undefined) group.querySelector<HTMLInputElement>(`[data-list="${focus ?? ""}"]`)?.focus();
    else boxes[0]?.querySelector("input")?.focus();
    form.hidden = lists.length >= context.config().maxLists;
  }

  form.onsubmit = async (event) => {
    event.preventDefault();
    create.disabled = true;
    status.textContent = "";
    try {
      const aid = context.ensureGuestId();
      const list = await api.call<ListSummary>("POST", `/wishlists${api.owner(aid)}`, { name: name.value });
      await save(list.id);
      await context.refresh({ productId: await productIdOf(), handle: target.handle, added: true });
      name.value = "";
      draw(context.lists() ?? [], list.id);
      status.textContent = said("savedTo", list);
    } catch (error) {
      status.textContent = explain(error, true);
    } finally {
      create.disabled = false;
    }
  };

  const aid = context.guestId();
  const known = context.lists();
  if (known && (aid || context.customer)) draw(known);
  // A guest who never saved has the default list only, not made yet.
  else
    draw([
      {
        id: null,
        name: "",
        default: true,
        count: 0,
        share: { enabled: false, token: null },
        updatedAt: null,
        products: [],
      },
    ]);
}

document.dispatchEvent(new CustomEvent(PICKER_READY, { detail: open }));
