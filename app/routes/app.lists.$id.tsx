import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Card,
  DataTable,
  EmptyState,
  InlineGrid,
  InlineStack,
  Link,
  Page,
  SkeletonBodyText,
  SkeletonPage,
  Text,
} from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { loadListOwner } from "~/admin/lists-page.server";
import { pageErrorBoundary } from "~/components/PageError";
import { HeadedCard } from "~/components/CardHeadings";
import { useI18n } from "~/i18n/i18n-context";
import { isDomainError } from "~/lib/domain-error";
import { isId } from "~/lib/ids";
import { getShopSettings } from "~/services/shops/shops.server";
import { getListsOfOwner, getListWithItems } from "~/services/wishlists/browse.server";
import { listSummaryView, listView, merchantItemView } from "~/services/wishlists/views";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const listId = params.id ?? "";
  // A list of another shop is not found here, the same as an id that is not a list id at all.
  const notFound = () =>
    data(
      { listId, list: null, ownerLists: [], shareUrl: null, contact: null, contactsUnavailable: false },
      { status: 404 },
    );
  if (!isId("list", listId)) return notFound();
  try {
    const [list, settings] = await Promise.all([getListWithItems({ shopId, listId }), getShopSettings({ shopId })]);
    const view = { ...listView(list), items: list.items.map(merchantItemView) };
    const shareUrl =
      view.share.enabled && view.share.token
        ? `https://${shopDomain}${settings.sharePath}?share=${encodeURIComponent(view.share.token)}`
        : null;
    const [ownerLists, { contact, contactsUnavailable }] = await Promise.all([
      getListsOfOwner({ shopId, list }),
      loadListOwner({ shopId, shopDomain, customerId: view.owner.type === "customer" ? view.owner.customerId : null }),
    ]);
    return { listId, list: view, ownerLists: ownerLists.map(listSummaryView), shareUrl, contact, contactsUnavailable };
  } catch (error) {
    if (isDomainError(error, "not_found")) return notFound();
    throw error;
  }
};

export default function ListDetail() {
  const { listId, list, ownerLists, shareUrl, contact, contactsUnavailable } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const { t, rich, dateTime, number } = useI18n();
  if (navigation.state === "loading" && navigation.location.pathname.startsWith("/app/lists/")) {
    return (
      <SkeletonPage backAction>
        <Card>
          <SkeletonBodyText lines={8} />
        </Card>
      </SkeletonPage>
    );
  }
  if (!list) {
    return (
      <Page backAction={{ content: t("page.lists"), url: "/app/lists" }}>
        <TitleBar title={t("list.notFound.title")} />
        <Card>
          <EmptyState
            heading={t("list.notFound.title")}
            image="/favicon.svg"
            action={{ content: t("list.notFound.back"), url: "/app/lists" }}
          >
            <p>{t("list.notFound.body", { id: listId })}</p>
          </EmptyState>
        </Card>
      </Page>
    );
  }
  // A customer is named as the shop knows them when the platform answers, else by their id.
  const owner =
    list.owner.type === "customer"
      ? (contact?.name ?? contact?.email ?? t("list.customer", { id: String(list.owner.customerId) }))
      : t("list.guest");
  const ownerDetails =
    list.owner.type === "customer" && contact
      ? [contact.name ? contact.email : null, t("list.customerId", { id: String(list.owner.customerId) })].filter(
          (line) => line !== null,
        )
      : [];
  return (
    <Page backAction={{ content: t("page.lists"), url: "/app/lists" }}>
      <TitleBar title={t("list.title", { list: list.name, owner })} />
      <BlockStack gap="400">
        {contactsUnavailable ? (
          <Banner tone="warning" title={t("list.contactUnavailable.title")}>
            <p>{t("list.contactUnavailable.body")}</p>
          </Banner>
        ) : null}
        <HeadedCard title={list.name}>
          <div>
            <Badge>{list.default ? t("list.kind.default") : t("list.kind.named")}</Badge>
          </div>
          <InlineGrid columns={{ xs: 1, sm: 3 }} gap="400">
            <Fact label={t("list.owner")} details={ownerDetails}>
              {owner}
            </Fact>
            <Fact label={t("list.items")}>{number(list.count)}</Fact>
            <Fact label={t("list.updated")}>{list.updatedAt ? dateTime(list.updatedAt) : ""}</Fact>
          </InlineGrid>
          <BlockStack gap="100">
            <Text as="h3" variant="headingSm">
              {t("list.sharing")}
            </Text>
            {shareUrl ? (
              <BlockStack gap="100">
                <div>
                  <Badge tone="info">{t("list.shared")}</Badge>
                </div>
                <Text as="p" breakWord>
                  {rich("list.sharedBody", {
                    url: (
                      <Link url={shareUrl} target="_blank">
                        {shareUrl}
                      </Link>
                    ),
                  })}
                </Text>
              </BlockStack>
            ) : (
              <Text as="p">{t("list.notShared")}</Text>
            )}
          </BlockStack>
          <Text as="p" variant="bodySm" tone="subdued">
            {t("list.id", { id: list.id })}
          </Text>
        </HeadedCard>
        <Card padding={list.items.length ? "0" : undefined}>
          {list.items.length === 0 ? (
            <EmptyState heading={t("list.empty.heading")} image="/favicon.svg">
              <p>{t("list.empty.body")}</p>
            </EmptyState>
          ) : (
            <DataTable
              columnContentTypes={["text", "numeric", "text", "text", "text", "text"]}
              headings={[
                t("list.column.product"),
                t("list.column.quantity"),
                t("list.column.note"),
                t("list.column.handle"),
                t("list.column.added"),
                t("list.column.admin"),
              ]}
              rows={list.items.map((item) => [
                // A bought item (an order matched to it) stays on the list when Settings keep bought items.
                item.purchasedAt ? (
                  <InlineStack key={item.id} gap="200" blockAlign="center">
                    <ProductName {...item} />
                    <Badge tone="success">{t("list.bought", { date: dateTime(item.purchasedAt) })}</Badge>
                  </InlineStack>
                ) : (
                  <ProductName key={item.id} {...item} />
                ),
                number(item.quantity),
                // The shopper's own words: rendered as text (React escapes it), never as markup.
                item.note === null ? (
                  <Text key={item.id} as="span" tone="subdued">
                    {t("list.noNote")}
                  </Text>
                ) : (
                  <div key={item.id} style={NOTE_CELL}>
                    {item.note}
                  </div>
                ),
                <div key={item.id} style={HANDLE_CELL}>
                  <ProductHandle {...item} />
                </div>,
                dateTime(item.addedAt!),
                // A product deleted in the shop has no admin page to open.
                item.available ? (
                  <Link key={item.id} url={`shopify://admin/products/${item.productId}`}>
                    {t("list.openProduct", { id: item.productId })}
                  </Link>
                ) : (
                  <Text key={item.id} as="span" tone="subdued">
                    {t("list.productDeleted", { id: item.productId })}
                  </Text>
                ),
              ])}
            />
          )}
        </Card>
        <OwnerLists
          lists={ownerLists}
          current={list.id}
          heading={
            list.owner.type === "customer" ? t("list.ownerLists.heading", { owner }) : t("list.ownerLists.headingGuest")
          }
        />
      </BlockStack>
    </Page>
  );
}

/**
 * Every list of the list's owner, this one among them (docs/decisions/046-named-lists.md): a customer or a
 * guest may keep named lists beside their default one. Each other list is a link to its own page.
 */
function OwnerLists({
  lists,
  current,
  heading,
}: {
  lists: Array<{ id: string; name: string; default: boolean; count: number; updatedAt: string | null }>;
  current: string;
  heading: string;
}) {
  const { t, plural, number, dateTime } = useI18n();
  return (
    <Card padding="0">
      <BlockStack gap="0">
        <Box padding="400">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              {heading}
            </Text>
            <Text as="p" tone="subdued">
              {lists.length > 1 ? plural("list.ownerLists.count", lists.length) : t("list.ownerLists.only")}
            </Text>
          </BlockStack>
        </Box>
        <DataTable
          columnContentTypes={["text", "numeric", "text"]}
          headings={[
            t("list.ownerLists.column.list"),
            t("list.ownerLists.column.items"),
            t("list.ownerLists.column.updated"),
          ]}
          rows={lists.map((other) => [
            <InlineStack key={other.id} gap="200" blockAlign="center" wrap={false}>
              {other.id === current ? (
                <Text as="span" fontWeight="semibold" breakWord>
                  {other.name}
                </Text>
              ) : (
                <Link url={`/app/lists/${other.id}`}>{other.name}</Link>
              )}
              {other.default ? <Badge>{t("list.kind.default")}</Badge> : null}
              {other.id === current ? <Badge>{t("list.ownerLists.current")}</Badge> : null}
            </InlineStack>,
            number(other.count),
            other.updatedAt ? dateTime(other.updatedAt) : "",
          ])}
        />
      </BlockStack>
    </Card>
  );
}

/**
 * Table cells keep their text on one line (Polaris): a 280-character note, or a long handle a shopper sent,
 * pushed the other columns past the page's edge. They wrap instead, keeping the line breaks a note has.
 */
const NOTE_CELL = { whiteSpace: "pre-line", overflowWrap: "anywhere", minWidth: "10rem", maxWidth: "20rem" } as const;
const HANDLE_CELL = { whiteSpace: "normal", overflowWrap: "anywhere", minWidth: "8rem", maxWidth: "14rem" } as const;

/**
 * The catalogue's title; until the platform has answered for the product, its id, with the title the save
 * carried marked as the shopper's (decision 029): a shopper can send any title.
 */
function ProductName({
  productId,
  catalogueTitle,
  savedTitle,
}: {
  productId: string;
  catalogueTitle: string | null;
  savedTitle: string | null;
}) {
  const { t } = useI18n();
  if (catalogueTitle) return <>{catalogueTitle}</>;
  return (
    <BlockStack gap="050">
      <Text as="span">{t("list.product", { id: productId })}</Text>
      {savedTitle ? (
        <Text as="span" variant="bodySm" tone="subdued" breakWord>
          {t("list.savedTitle", { title: savedTitle })}
        </Text>
      ) : null}
    </BlockStack>
  );
}

/** The catalogue's handle; until the platform has answered, the handle the save carried, marked as such. */
function ProductHandle({
  catalogueHandle,
  savedHandle,
}: {
  catalogueHandle: string | null;
  savedHandle: string | null;
}) {
  const { t } = useI18n();
  if (catalogueHandle) return <>{catalogueHandle}</>;
  if (!savedHandle) return null;
  return (
    <Text as="span" variant="bodySm" tone="subdued" breakWord>
      {t("list.savedHandle", { handle: savedHandle })}
    </Text>
  );
}

function Fact({ label, children, details = [] }: { label: string; children: string; details?: string[] }) {
  return (
    <BlockStack gap="050">
      <Text as="h3" variant="headingSm">
        {label}
      </Text>
      <Text as="p">{children}</Text>
      {details.map((detail) => (
        <Text as="p" variant="bodySm" tone="subdued" key={detail}>
          {detail}
        </Text>
      ))}
    </BlockStack>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.list", "list.error", { content: "page.lists", url: "/app/lists" });
