import type { LoaderFunctionArgs } from "@remix-run/node";
import { Form, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  DataTable,
  EmptyState,
  InlineStack,
  Link,
  Page,
  Pagination,
  SkeletonBodyText,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { z } from "zod";
import { formFailure } from "~/admin/forms.server";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readPagePosition, twoWayPage } from "~/admin/two-way-pages.server";
import { PageError } from "~/components/PageError";
import { platformIdSchema } from "~/lib/validation";
import { browseLists } from "~/services/wishlists/browse.server";
import { listSummaryView } from "~/services/wishlists/views";

const PAGE_SIZE = 25;

/**
 * The filter takes a customer id as GET /v1/lists does (decimal digits, canonical form), once the spaces
 * around what was typed or pasted are dropped; empty: all lists.
 */
const ListFilter = z.object({ customerId: platformIdSchema.optional() });

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const search = new URL(request.url).searchParams;
  // A pasted ID often carries spaces around it: they are not part of the ID, so they are dropped.
  const typed = (search.get("customerId") ?? "").trim();
  const filter = ListFilter.safeParse({ customerId: typed === "" ? undefined : typed });
  if (!filter.success) {
    const { fieldErrors } = formFailure(filter.error);
    return {
      typed,
      customerId: null,
      fieldError: `Customer ID ${fieldErrors.customerId}`,
      cursorError: false,
      page: null,
    };
  }
  const { customerId } = filter.data;
  const scope = `admin-lists:${shopId}:${customerId ?? ""}`;
  const position = readPagePosition(scope, search.get("cursor"));
  if (!position) return { typed, customerId: customerId ?? null, fieldError: null, cursorError: true, page: null };
  const rows = await browseLists({ shopId, customerId, ...position, limit: PAGE_SIZE });
  const page = twoWayPage(scope, rows, PAGE_SIZE, position);
  return {
    typed,
    customerId: customerId ?? null,
    fieldError: null,
    cursorError: false,
    page: {
      lists: page.rows.map(listSummaryView),
      previousCursor: page.previousCursor,
      nextCursor: page.nextCursor,
      first: Object.keys(position).length === 0,
    },
  };
};

const formatTime = (iso: string) =>
  `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;

export default function Lists() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [searchParams, setSearchParams] = useSearchParams();
  const [customerId, setCustomerId] = useState(data.typed);
  useEffect(() => setCustomerId(data.typed), [data.typed]);
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/lists";
  const goTo = (cursor: string | null) =>
    setSearchParams((params) => {
      if (cursor) params.set("cursor", cursor);
      else params.delete("cursor");
      return params;
    });

  return (
    <Page>
      <TitleBar title="Lists" />
      <BlockStack gap="400">
        <Card>
          <Form method="get" role="search" aria-label="Filter lists">
            {/* The platform's own parameters (shop, host...) stay in the address when the filter changes. */}
            {[...searchParams]
              .filter(([name]) => name !== "customerId" && name !== "cursor")
              .map(([name, value]) => (
                <input key={name} type="hidden" name={name} value={value} />
              ))}
            <TextField
              label="Customer ID"
              name="customerId"
              value={customerId}
              onChange={setCustomerId}
              autoComplete="off"
              inputMode="numeric"
              helpText="The platform's customer ID (digits). Leave empty to see every list."
              error={data.fieldError ?? undefined}
              connectedRight={
                <InlineStack gap="200" wrap={false}>
                  <Button submit>Filter</Button>
                  {data.typed !== "" ? <Button url="/app/lists">Clear</Button> : null}
                </InlineStack>
              }
            />
          </Form>
        </Card>
        {data.cursorError ? (
          <Banner tone="warning" title="This page of lists is out of date">
            <p>
              The link points to a page this list no longer has. <Link url="/app/lists">Go to the first page</Link>.
            </p>
          </Banner>
        ) : null}
        {loading ? (
          <Card>
            <BlockStack gap="200">
              <Text as="p" tone="subdued">
                Loading…
              </Text>
              <SkeletonBodyText lines={10} />
            </BlockStack>
          </Card>
        ) : data.page ? (
          <ListsTable
            page={data.page}
            customerId={data.customerId}
            onPrevious={() => goTo(data.page!.previousCursor)}
            onNext={() => goTo(data.page!.nextCursor)}
          />
        ) : null}
      </BlockStack>
    </Page>
  );
}

const ownerName = (list: ListsPage["lists"][number]) =>
  list.owner.type === "customer" ? `Customer ${list.owner.customerId}` : "Guest";

type ListsPage = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["page"]>;

function ListsTable({
  page,
  customerId,
  onPrevious,
  onNext,
}: {
  page: ListsPage;
  customerId: string | null;
  onPrevious: () => void;
  onNext: () => void;
}) {
  if (page.lists.length === 0 && page.first) {
    return (
      <Card>
        <EmptyState
          heading={customerId ? `Customer ${customerId} has no lists` : "No lists yet"}
          image="/favicon.svg"
          action={customerId ? { content: "Show every list", url: "/app/lists" } : undefined}
        >
          <p>
            {customerId
              ? "Check the ID, or the customer has not saved a product yet."
              : "A list is made when a shopper saves their first product."}
          </p>
        </EmptyState>
      </Card>
    );
  }
  return (
    <Card padding="0">
      <DataTable
        columnContentTypes={["text", "text", "numeric", "text", "text"]}
        headings={["List", "Owner", "Items", "Sharing", "Updated"]}
        rows={page.lists.map((list) => [
          <BlockStack gap="050" key={list.id}>
            <Link
              url={`/app/lists/${list.id}`}
              removeUnderline
              accessibilityLabel={`${list.name} of ${ownerName(list)}`}
            >
              {list.name}
            </Link>
            <Text as="span" variant="bodySm" tone="subdued">
              {list.id}
            </Text>
          </BlockStack>,
          ownerName(list),
          list.count,
          list.share.enabled ? <Badge tone="info">Shared</Badge> : "Not shared",
          list.updatedAt ? formatTime(list.updatedAt) : "",
        ])}
        footerContent={
          page.previousCursor || page.nextCursor ? (
            <InlineStack align="center">
              <Pagination
                hasPrevious={page.previousCursor !== null}
                onPrevious={onPrevious}
                hasNext={page.nextCursor !== null}
                onNext={onNext}
                accessibilityLabels={{ previous: "Previous page of lists", next: "Next page of lists" }}
              />
            </InlineStack>
          ) : undefined
        }
      />
    </Card>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Lists" title="The lists could not be shown" />;
}
