/** @jsxImportSource preact */
/**
 * The customer's wishlists on a full page of their account (`customer-account.page.render`): one section per
 * list, each item with its title, note and quantity, Remove, Move to another list, and Add to cart (the
 * storefront's cart permalink, src/cart.ts). Everything comes from the app's /v1 API with the session token of
 * the logged-in customer (src/backend.ts); texts from locales/ (en, fr, de, es).
 */
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { appUrl } from "./app-url";
import { createBackend, type Item, type List } from "./backend";
import { itemLink, listCartLink, type StorefrontUrl } from "./cart";

export default async () => {
  render(<WishlistPage />, document.body);
};

/** The shop's storefront address, from the Storefront API (`api_access`): the links go to the shop's own domain. */
const PRIMARY_DOMAIN = "query WishlistStorefront { shop { primaryDomain { url } } }";

async function storefrontUrl(): Promise<StorefrontUrl | null> {
  try {
    const { data } = await shopify.query<{ shop: { primaryDomain: { url: string } } }>(PRIMARY_DOMAIN);
    const url = data?.shop.primaryDomain.url;
    return url ? url.replace(/\/+$/, "") : null;
  } catch {
    return null;
  }
}

type PageState = { status: "loading" } | { status: "error" } | { status: "ready"; lists: List[] };

function WishlistPage() {
  const t = shopify.i18n.translate;
  const [backend] = useState(() => createBackend(appUrl(), () => shopify.sessionToken.get()));
  const [state, setState] = useState<PageState>({ status: "loading" });
  const [storefront, setStorefront] = useState<StorefrontUrl | null>(null);
  /** The item an action is under way for (its buttons wait). */
  const [busy, setBusy] = useState<string | null>(null);
  const [actionFailed, setActionFailed] = useState(false);

  const load = useCallback(async () => {
    try {
      setState({ status: "ready", lists: await backend.lists() });
    } catch {
      setState({ status: "error" });
    }
  }, [backend]);

  useEffect(() => {
    void load();
    void storefrontUrl().then(setStorefront);
  }, [load]);

  /** Runs an action on an item, then shows the lists as they are now and says what was done. */
  const act = async (item: Item, action: () => Promise<void>, done: string) => {
    setBusy(item.id);
    setActionFailed(false);
    try {
      await action();
      await load();
      void shopify.toast.show(done);
    } catch {
      setActionFailed(true);
    } finally {
      setBusy(null);
    }
  };

  return (
    <s-page heading={t("page.heading")}>
      {actionFailed && <s-banner tone="critical" heading={t("error.action")} />}
      {state.status === "loading" && <s-spinner accessibilityLabel={t("loading")} />}
      {state.status === "error" && (
        <s-banner tone="critical" heading={t("error.load")}>
          <s-button
            onClick={() => {
              setState({ status: "loading" });
              void load();
            }}
          >
            {t("retry")}
          </s-button>
        </s-banner>
      )}
      {state.status === "ready" &&
        state.lists.map((list) => (
          <ListSection
            key={list.id ?? "default"}
            list={list}
            lists={state.lists}
            storefront={storefront}
            busy={busy}
            onRemove={(item, title) =>
              act(item, () => backend.removeItem(item, list.id!), t("item.removed", { title }))
            }
            onMove={(item, title, to) =>
              act(item, () => backend.moveItem(item, to.id!), t("item.moved", { title, list: to.name }))
            }
          />
        ))}
    </s-page>
  );
}

interface ListSectionProps {
  list: List;
  lists: List[];
  storefront: StorefrontUrl | null;
  busy: string | null;
  onRemove: (item: Item, title: string) => void;
  onMove: (item: Item, title: string, to: List) => void;
}

function ListSection({ list, lists, storefront, busy, onRemove, onMove }: ListSectionProps) {
  const t = shopify.i18n.translate;
  const addAll = storefront ? listCartLink(storefront, list.items) : null;
  // Lists an item can move to: the customer's other lists that exist (a default list not made yet has no id).
  const targets = lists.filter((other) => other.id !== null && other.id !== list.id);
  return (
    <s-section heading={list.name}>
      <s-stack direction="block" gap="base">
        <s-stack direction="inline" gap="base" alignItems="center">
          <s-text color="subdued">{t("list.count", { count: list.items.length })}</s-text>
          {addAll && (
            <s-button href={addAll} variant="secondary">
              {t("list.addAll")}
            </s-button>
          )}
        </s-stack>
        {list.items.length === 0 && <s-paragraph>{t("list.empty")}</s-paragraph>}
        {list.items.map((item) => (
          <ItemRow
            key={item.id}
            item={item}
            storefront={storefront}
            targets={targets}
            busy={busy === item.id}
            onRemove={onRemove}
            onMove={onMove}
          />
        ))}
      </s-stack>
    </s-section>
  );
}

interface ItemRowProps {
  item: Item;
  storefront: StorefrontUrl | null;
  targets: List[];
  busy: boolean;
  onRemove: (item: Item, title: string) => void;
  onMove: (item: Item, title: string, to: List) => void;
}

function ItemRow({ item, storefront, targets, busy, onRemove, onMove }: ItemRowProps) {
  const t = shopify.i18n.translate;
  const title = item.titleSnapshot || t("item.untitled");
  const link = storefront ? itemLink(storefront, item) : null;
  const menuId = `move-${item.id}`;
  return (
    <s-box border="base" borderRadius="base" padding="base">
      <s-stack direction="block" gap="small-200">
        <s-heading>{title}</s-heading>
        {!item.available && <s-badge tone="critical">{t("item.unavailable")}</s-badge>}
        {/* The shopper's own words: Preact renders them as text, never as markup. */}
        {item.note && <s-paragraph>{t("item.note", { note: item.note })}</s-paragraph>}
        <s-text>{t("item.quantity", { quantity: item.quantity })}</s-text>
        <s-stack direction="inline" gap="base">
          {link && (
            <s-button href={link.href} variant="primary">
              {t(link.addsToCart ? "item.addToCart" : "item.chooseOptions")}
            </s-button>
          )}
          <s-button
            tone="critical"
            loading={busy}
            disabled={busy}
            accessibilityLabel={t("item.removeLabel", { title })}
            onClick={() => onRemove(item, title)}
          >
            {t("item.remove")}
          </s-button>
          {targets.length > 0 && (
            <s-button commandFor={menuId} disabled={busy} accessibilityLabel={t("item.moveLabel", { title })}>
              {t("item.move")}
            </s-button>
          )}
          {targets.length > 0 && (
            <s-menu id={menuId} accessibilityLabel={t("item.moveLabel", { title })}>
              {targets.map((to) => (
                <s-button key={to.id} onClick={() => onMove(item, title, to)}>
                  {t("item.moveTo", { list: to.name })}
                </s-button>
              ))}
            </s-menu>
          )}
        </s-stack>
      </s-stack>
    </s-box>
  );
}
