import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Card,
  DataTable,
  EmptyState,
  InlineGrid,
  Link,
  Page,
  SkeletonBodyText,
  SkeletonPage,
  Text,
} from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { loadListOwner } from "~/admin/lists-page.server";
import { PageError } from "~/components/PageError";
import { isDomainError } from "~/lib/domain-error";
import { isId } from "~/lib/ids";
import { getShopSettings } from "~/services/shops/shops.server";
import { getListWithItems } from "~/services/wishlists/browse.server";
import { listView, merchantItemView } from "~/services/wishlists/views";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const listId = params.id ?? "";
  // A list of another shop is not found here, the same as an id that is not a list id at all.
  const notFound = () =>
    data({ listId, list: null, shareUrl: null, contact: null, contactsUnavailable: false }, { status: 404 });
  if (!isId("list", listId)) return notFound();
  try {
    const [list, settings] = await Promise.all([getListWithItems({ shopId, listId }), getShopSettings({ shopId })]);
    const view = { ...listView(list), items: list.items.map(merchantItemView) };
    const shareUrl =
      view.share.enabled && view.share.token
        ? `https://${shopDomain}${settings.sharePath}?share=${encodeURIComponent(view.share.token)}`
        : null;
    const { contact, contactsUnavailable } = await loadListOwner({
      shopId,
      shopDomain,
      customerId: view.owner.type === "customer" ? view.owner.customerId : null,
    });
    return { listId, list: view, shareUrl, contact, contactsUnavailable };
  } catch (error) {
    if (isDomainError(error, "not_found")) return notFound();
    throw error;
  }
};

const formatTime = (iso: string) =>
  `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;

export default function ListDetail() {
  const { listId, list, shareUrl, contact, contactsUnavailable } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
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
      <Page backAction={{ content: "Lists", url: "/app/lists" }}>
        <TitleBar title="List not found" />
        <Card>
          <EmptyState
            heading="List not found"
            image="/favicon.svg"
            action={{ content: "Back to lists", url: "/app/lists" }}
          >
            <p>{`This shop has no list with the ID "${listId}". It may have been merged into a customer's list.`}</p>
          </EmptyState>
        </Card>
      </Page>
    );
  }
  // A customer is named as the shop knows them when the platform answers, else by their id.
  const owner =
    list.owner.type === "customer"
      ? (contact?.name ?? contact?.email ?? `Customer ${list.owner.customerId}`)
      : "Guest (not logged in)";
  const ownerDetails =
    list.owner.type === "customer" && contact
      ? [contact.name ? contact.email : null, `Customer ID ${list.owner.customerId}`].filter((line) => line !== null)
      : [];
  return (
    <Page backAction={{ content: "Lists", url: "/app/lists" }}>
      <TitleBar title={`${list.name}: ${owner}`} />
      <BlockStack gap="400">
        {contactsUnavailable ? (
          <Banner tone="warning" title="The customer's name could not be loaded">
            <p>Shopify did not answer, so the owner is shown by customer ID. Reload the page to try again.</p>
          </Banner>
        ) : null}
        <Card>
          <BlockStack gap="300">
            <Text as="h2" variant="headingMd">
              {list.name}
            </Text>
            <InlineGrid columns={{ xs: 1, sm: 3 }} gap="400">
              <Fact label="Owner" details={ownerDetails}>
                {owner}
              </Fact>
              <Fact label="Items">{String(list.count)}</Fact>
              <Fact label="Updated">{list.updatedAt ? formatTime(list.updatedAt) : ""}</Fact>
            </InlineGrid>
            <BlockStack gap="100">
              <Text as="h3" variant="headingSm">
                Sharing
              </Text>
              {shareUrl ? (
                <BlockStack gap="100">
                  <div>
                    <Badge tone="info">Shared</Badge>
                  </div>
                  <Text as="p" breakWord>
                    Anyone with the link can see this list:{" "}
                    <Link url={shareUrl} target="_blank">
                      {shareUrl}
                    </Link>
                  </Text>
                </BlockStack>
              ) : (
                <Text as="p">Not shared: only its owner sees this list.</Text>
              )}
            </BlockStack>
            <Text as="p" variant="bodySm" tone="subdued">
              {`List ID ${list.id}`}
            </Text>
          </BlockStack>
        </Card>
        <Card padding={list.items.length ? "0" : undefined}>
          {list.items.length === 0 ? (
            <EmptyState heading="This list is empty" image="/favicon.svg">
              <p>Its owner removed every product they had saved.</p>
            </EmptyState>
          ) : (
            <DataTable
              columnContentTypes={["text", "text", "text", "text"]}
              headings={["Product", "Handle", "Added", "In the admin"]}
              rows={list.items.map((item) => [
                <ProductName key={item.id} {...item} />,
                item.handle,
                formatTime(item.addedAt!),
                // A product deleted in the shop has no admin page to open.
                item.available ? (
                  <Link key={item.id} url={`shopify://admin/products/${item.productId}`}>
                    {`Open product ${item.productId}`}
                  </Link>
                ) : (
                  <Text key={item.id} as="span" tone="subdued">
                    {`Product ${item.productId} was deleted`}
                  </Text>
                ),
              ])}
            />
          )}
        </Card>
      </BlockStack>
    </Page>
  );
}

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
  if (catalogueTitle) return <>{catalogueTitle}</>;
  return (
    <BlockStack gap="050">
      <Text as="span">{`Product ${productId}`}</Text>
      {savedTitle ? (
        <Text as="span" variant="bodySm" tone="subdued" breakWord>
          {`Title sent by the shopper, not from the catalogue: ${savedTitle}`}
        </Text>
      ) : null}
    </BlockStack>
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

export function ErrorBoundary() {
  return (
    <PageError
      pageTitle="List"
      title="The list could not be shown"
      backAction={{ content: "Lists", url: "/app/lists" }}
    />
  );
}
