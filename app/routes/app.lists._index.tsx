import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Card,
  EmptyState,
  IndexFilters,
  IndexFiltersMode,
  IndexTable,
  Link,
  Page,
  Text,
  TextField,
  useSetIndexFiltersMode,
  type IndexFiltersProps,
  type IndexTableProps,
} from "@shopify/polaris";
import { useEffect, useRef, useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { DEFAULT_LIST_SORT, type ListSort } from "~/admin/list-sorts";
import { loadListsPage, type ListRowView } from "~/admin/lists-page.server";
import { PageError } from "~/components/PageError";
import { useI18n } from "~/i18n/context";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  return loadListsPage({ shopId, shopDomain, search: new URL(request.url).searchParams });
};

/** The sort orders as Polaris names them ("key direction") and as the address does ("key-direction"). */
const SORT_OPTIONS: IndexFiltersProps["sortOptions"] = [
  { label: "Updated", value: "updated desc", directionLabel: "Newest first" },
  { label: "Updated", value: "updated asc", directionLabel: "Oldest first" },
  { label: "Items", value: "items desc", directionLabel: "Most first" },
  { label: "Items", value: "items asc", directionLabel: "Fewest first" },
];
const toPolarisSort = (sort: ListSort) => sort.replace("-", " ");
const fromPolarisSort = (value: string) => value.replace(" ", "-") as ListSort;

/** Table columns: the sortable ones are Items (2) and Updated (4). */
const SORT_COLUMNS: Record<number, "items" | "updated"> = { 2: "items", 4: "updated" };

/** Typing in the search or the product filter asks again once the merchant pauses. */
const TYPING_PAUSE_MS = 400;

/** Who owns a list, as the page names them: the shop's name for the customer, else their id. */
function ownerLabel(owner: ListRowView["owner"]): string {
  if (owner.type === "anonymous") return "Guest";
  return owner.contact?.name ?? owner.contact?.email ?? `Customer ${owner.customerId}`;
}

export default function Lists() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [, setSearchParams] = useSearchParams();
  const [customer, setCustomer] = useState(data.filters.customer);
  const [product, setProduct] = useState(data.filters.product);
  useEffect(() => setCustomer(data.filters.customer), [data.filters.customer]);
  useEffect(() => setProduct(data.filters.product), [data.filters.product]);
  const filtered = data.filters.customer !== "" || data.filters.product !== "";
  const { mode, setMode } = useSetIndexFiltersMode(filtered ? IndexFiltersMode.Filtering : IndexFiltersMode.Default);
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/lists";

  /** Changes the address (the platform's own parameters, shop, host..., stay); a new filter starts at page 1. */
  const navigate = (changes: Record<string, string | null>) =>
    setSearchParams((params) => {
      if (!("cursor" in changes)) params.delete("cursor");
      for (const [name, value] of Object.entries(changes)) {
        if (value === null || value === "") params.delete(name);
        else params.set(name, value);
      }
      return params;
    });

  // What the merchant types is applied once they pause; a value the page already shows is not asked for again.
  const typed = useRef({ customer: data.filters.customer, product: data.filters.product });
  typed.current = { customer: data.filters.customer, product: data.filters.product };
  useEffect(() => {
    if (customer.trim() === typed.current.customer && product.trim() === typed.current.product) return;
    const timer = setTimeout(() => navigate({ customer: customer.trim(), product: product.trim() }), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
    // navigate changes on every render; the typed values are what this waits on.
  }, [customer, product]);

  const clearAll = () => {
    setCustomer("");
    setProduct("");
    navigate({ customer: null, product: null });
  };

  return (
    <Page>
      <TitleBar title="Lists" />
      <BlockStack gap="400">
        {data.fieldErrors.customer || data.fieldErrors.product ? (
          <Banner tone="critical" title="Check the filters">
            <BlockStack gap="100">
              {data.fieldErrors.customer ? <p>{data.fieldErrors.customer}</p> : null}
              {data.fieldErrors.product ? <p>{data.fieldErrors.product}</p> : null}
            </BlockStack>
          </Banner>
        ) : null}
        {data.searchUnavailable ? (
          <Banner tone="warning" title="Customers could not be searched">
            <p>Shopify did not answer the search. Try again in a moment, or search by customer ID.</p>
          </Banner>
        ) : null}
        {data.searchTruncated ? (
          <Banner tone="info" title="Many customers match">
            <p>
              Showing the lists of the first 250 customers found. Type more of the name or email to narrow the search.
            </p>
          </Banner>
        ) : null}
        {data.contactsUnavailable ? (
          <Banner tone="warning" title="Customer names could not be loaded">
            <p>Shopify did not answer, so owners are shown by customer ID. Reload the page to try again.</p>
          </Banner>
        ) : null}
        {data.cursorError ? (
          <Banner tone="warning" title="This page of lists is out of date">
            <p>
              The link points to a page this list no longer has. <Link url="/app/lists">Go to the first page</Link>.
            </p>
          </Banner>
        ) : null}
        <Card padding="0">
          <IndexFilters
            tabs={[{ id: "all", content: "All lists" }]}
            selected={0}
            onSelect={() => undefined}
            canCreateNewView={false}
            queryValue={customer}
            queryPlaceholder="Search by customer name, email or ID"
            onQueryChange={setCustomer}
            onQueryClear={() => {
              setCustomer("");
              navigate({ customer: null });
            }}
            filters={[
              {
                key: "product",
                label: "Product",
                shortcut: true,
                pinned: true,
                filter: (
                  <TextField
                    label="Product ID or title"
                    value={product}
                    onChange={setProduct}
                    autoComplete="off"
                    helpText="A product ID, or part of the product's title."
                  />
                ),
              },
            ]}
            appliedFilters={
              data.filters.product
                ? [
                    {
                      key: "product",
                      label: `Product: ${data.filters.product}`,
                      onRemove: () => {
                        setProduct("");
                        navigate({ product: null });
                      },
                    },
                  ]
                : []
            }
            onClearAll={clearAll}
            sortOptions={SORT_OPTIONS}
            sortSelected={[toPolarisSort(data.filters.sort)]}
            onSort={([value]) => navigate({ sort: fromPolarisSort(value ?? toPolarisSort(DEFAULT_LIST_SORT)) })}
            cancelAction={{ onAction: clearAll }}
            mode={mode}
            setMode={setMode}
            loading={loading}
            filteringAccessibilityLabel="Search and filter lists"
          />
          {data.page ? (
            <ListsTable
              page={data.page}
              sort={data.filters.sort}
              filtered={filtered}
              onSort={(sort) => navigate({ sort })}
              onPage={(cursor) => navigate({ cursor })}
              onClear={clearAll}
            />
          ) : null}
        </Card>
      </BlockStack>
    </Page>
  );
}

type ListsPage = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["page"]>;

function ListsTable({
  page,
  sort,
  filtered,
  onSort,
  onPage,
  onClear,
}: {
  page: ListsPage;
  sort: ListSort;
  filtered: boolean;
  onSort: (sort: ListSort) => void;
  onPage: (cursor: string) => void;
  onClear: () => void;
}) {
  const { dateTime } = useI18n();
  const [sortColumn, direction] = sort.split("-") as ["items" | "updated", "asc" | "desc"];
  const sortColumnIndex = sortColumn === "items" ? 2 : 4;
  const headings: IndexTableProps["headings"] = [
    { title: "List" },
    { title: "Owner" },
    { title: "Items", alignment: "end" },
    { title: "Sharing" },
    { title: "Updated" },
  ];
  return (
    <IndexTable
      resourceName={{ singular: "list", plural: "lists" }}
      itemCount={page.lists.length}
      selectable={false}
      headings={headings}
      sortable={[false, false, true, false, true]}
      sortColumnIndex={sortColumnIndex}
      sortDirection={direction === "asc" ? "ascending" : "descending"}
      defaultSortDirection="descending"
      sortToggleLabels={{
        2: { ascending: "Sort by fewest items", descending: "Sort by most items" },
        4: { ascending: "Sort by oldest update", descending: "Sort by newest update" },
      }}
      onSort={(index, sortDirection) => {
        const column = SORT_COLUMNS[index];
        if (column) onSort(`${column}-${sortDirection === "ascending" ? "asc" : "desc"}`);
      }}
      emptyState={
        <EmptyState
          heading={filtered ? "No lists match these filters" : page.first ? "No lists yet" : "No more lists"}
          image="/favicon.svg"
          action={filtered ? { content: "Clear filters", onAction: onClear } : undefined}
        >
          <p>
            {filtered
              ? "Check the name, email, ID or product, or the customer has not saved a product yet."
              : "A list is made when a shopper saves their first product."}
          </p>
        </EmptyState>
      }
      pagination={
        page.previousCursor || page.nextCursor
          ? {
              hasPrevious: page.previousCursor !== null,
              onPrevious: () => page.previousCursor && onPage(page.previousCursor),
              hasNext: page.nextCursor !== null,
              onNext: () => page.nextCursor && onPage(page.nextCursor),
              accessibilityLabels: { previous: "Previous page of lists", next: "Next page of lists" },
            }
          : undefined
      }
    >
      {page.lists.map((list, index) => (
        <IndexTable.Row id={list.id} key={list.id} position={index}>
          <IndexTable.Cell>
            <BlockStack gap="050">
              <Link
                url={`/app/lists/${list.id}`}
                removeUnderline
                accessibilityLabel={`${list.name} of ${ownerLabel(list.owner)}`}
              >
                <Text as="span" fontWeight="semibold">
                  {list.name}
                </Text>
              </Link>
              <Text as="span" variant="bodySm" tone="subdued">
                {list.id}
              </Text>
            </BlockStack>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <OwnerCell owner={list.owner} />
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {String(list.count)}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>{list.shared ? <Badge tone="info">Shared</Badge> : "Not shared"}</IndexTable.Cell>
          <IndexTable.Cell>{list.updatedAt ? dateTime(list.updatedAt) : ""}</IndexTable.Cell>
        </IndexTable.Row>
      ))}
    </IndexTable>
  );
}

/** The owner's name, with their email and id below it; a customer the platform did not name, by id. */
function OwnerCell({ owner }: { owner: ListRowView["owner"] }) {
  const label = ownerLabel(owner);
  const details = [owner.contact?.name ? owner.contact.email : null, owner.contact ? `ID ${owner.customerId}` : null];
  return (
    <BlockStack gap="050">
      <Text as="span">{label}</Text>
      {details
        .filter((detail) => detail !== null)
        .map((detail) => (
          <Text as="span" variant="bodySm" tone="subdued" key={detail}>
            {detail}
          </Text>
        ))}
    </BlockStack>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Lists" title="The lists could not be shown" />;
}
