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
  InlineStack,
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
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import type { Translator } from "~/i18n/translate";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  return loadListsPage({ shopId, shopDomain, search: new URL(request.url).searchParams });
};

/** The sort orders as Polaris names them ("key direction") and as the address does ("key-direction"). */
const sortOptions = ({ t }: Pick<Translator, "t">): IndexFiltersProps["sortOptions"] => [
  { label: t("lists.sort.updated"), value: "updated desc", directionLabel: t("lists.sort.newestFirst") },
  { label: t("lists.sort.updated"), value: "updated asc", directionLabel: t("lists.sort.oldestFirst") },
  { label: t("lists.sort.items"), value: "items desc", directionLabel: t("lists.sort.mostFirst") },
  { label: t("lists.sort.items"), value: "items asc", directionLabel: t("lists.sort.fewestFirst") },
];
const toPolarisSort = (sort: ListSort) => sort.replace("-", " ");
const fromPolarisSort = (value: string) => value.replace(" ", "-") as ListSort;

/** Table columns: the sortable ones are Items (2) and Updated (4). */
const SORT_COLUMNS: Record<number, "items" | "updated"> = { 2: "items", 4: "updated" };

/** Typing in the search or the product filter asks again once the merchant pauses. */
const TYPING_PAUSE_MS = 400;

/** Who owns a list, as the page names them: the shop's name for the customer, else their id. */
function ownerLabel(owner: ListRowView["owner"], { t }: Pick<Translator, "t">): string {
  if (owner.type === "anonymous") return t("lists.guest");
  return owner.contact?.name ?? owner.contact?.email ?? t("lists.customer", { id: String(owner.customerId) });
}

export default function Lists() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [, setSearchParams] = useSearchParams();
  const [customer, setCustomer] = useState(data.filters.customer);
  const [product, setProduct] = useState(data.filters.product);
  const [listName, setListName] = useState(data.filters.name);
  useEffect(() => setCustomer(data.filters.customer), [data.filters.customer]);
  useEffect(() => setProduct(data.filters.product), [data.filters.product]);
  useEffect(() => setListName(data.filters.name), [data.filters.name]);
  const filtered = data.filters.customer !== "" || data.filters.product !== "" || data.filters.name !== "";
  const { mode, setMode } = useSetIndexFiltersMode(filtered ? IndexFiltersMode.Filtering : IndexFiltersMode.Default);
  // A link that filters the page (an owner's "2 lists") opens the filters, so the page says what it shows.
  useEffect(() => {
    if (filtered) setMode(IndexFiltersMode.Filtering);
  }, [filtered, setMode]);
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/lists";
  const i18n = useI18n();
  const { t, rich } = i18n;

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
  const typed = useRef(data.filters);
  typed.current = data.filters;
  useEffect(() => {
    const shown = typed.current;
    if (customer.trim() === shown.customer && product.trim() === shown.product && listName.trim() === shown.name)
      return;
    const timer = setTimeout(
      () => navigate({ customer: customer.trim(), product: product.trim(), name: listName.trim() }),
      TYPING_PAUSE_MS,
    );
    return () => clearTimeout(timer);
    // navigate changes on every render; the typed values are what this waits on.
  }, [customer, product, listName]);

  const clearAll = () => {
    setCustomer("");
    setProduct("");
    setListName("");
    navigate({ customer: null, product: null, name: null });
  };

  return (
    <Page>
      <TitleBar title={t("page.lists")} />
      <BlockStack gap="400">
        {data.fieldErrors.customer || data.fieldErrors.product || data.fieldErrors.name ? (
          <Banner tone="critical" title={t("lists.checkFilters")}>
            <BlockStack gap="100">
              {data.fieldErrors.customer ? <p>{data.fieldErrors.customer}</p> : null}
              {data.fieldErrors.product ? <p>{data.fieldErrors.product}</p> : null}
              {data.fieldErrors.name ? <p>{data.fieldErrors.name}</p> : null}
            </BlockStack>
          </Banner>
        ) : null}
        {data.searchUnavailable ? (
          <Banner tone="warning" title={t("lists.searchUnavailable.title")}>
            <p>{t("lists.searchUnavailable.body")}</p>
          </Banner>
        ) : null}
        {data.searchTruncated ? (
          <Banner tone="info" title={t("lists.searchTruncated.title")}>
            <p>{t("lists.searchTruncated.body", { count: data.searchLimit })}</p>
          </Banner>
        ) : null}
        {data.contactsUnavailable ? (
          <Banner tone="warning" title={t("lists.contactsUnavailable.title")}>
            <p>{t("lists.contactsUnavailable.body")}</p>
          </Banner>
        ) : null}
        {data.cursorError ? (
          <Banner tone="warning" title={t("lists.cursorError.title")}>
            <p>
              {rich("lists.cursorError.body", {
                link: <Link url="/app/lists">{t("lists.cursorError.firstPage")}</Link>,
              })}
            </p>
          </Banner>
        ) : null}
        <Card padding="0">
          <IndexFilters
            tabs={[{ id: "all", content: t("lists.tab.all") }]}
            selected={0}
            onSelect={() => undefined}
            canCreateNewView={false}
            queryValue={customer}
            queryPlaceholder={t("lists.search")}
            onQueryChange={setCustomer}
            onQueryClear={() => {
              setCustomer("");
              navigate({ customer: null });
            }}
            filters={[
              {
                key: "product",
                label: t("lists.filter.product"),
                shortcut: true,
                pinned: true,
                filter: (
                  <TextField
                    label={t("lists.filter.productField")}
                    value={product}
                    onChange={setProduct}
                    autoComplete="off"
                    helpText={t("lists.filter.productHelp")}
                  />
                ),
              },
              {
                key: "name",
                label: t("lists.filter.name"),
                shortcut: true,
                pinned: true,
                filter: (
                  <TextField
                    label={t("lists.filter.nameField")}
                    value={listName}
                    onChange={setListName}
                    autoComplete="off"
                    helpText={t("lists.filter.nameHelp")}
                  />
                ),
              },
            ]}
            appliedFilters={[
              ...(data.filters.product
                ? [
                    {
                      key: "product",
                      label: t("lists.filter.productApplied", { product: data.filters.product }),
                      onRemove: () => {
                        setProduct("");
                        navigate({ product: null });
                      },
                    },
                  ]
                : []),
              ...(data.filters.name
                ? [
                    {
                      key: "name",
                      label: t("lists.filter.nameApplied", { name: data.filters.name }),
                      onRemove: () => {
                        setListName("");
                        navigate({ name: null });
                      },
                    },
                  ]
                : []),
            ]}
            onClearAll={clearAll}
            sortOptions={sortOptions(i18n)}
            sortSelected={[toPolarisSort(data.filters.sort)]}
            onSort={([value]) => navigate({ sort: fromPolarisSort(value ?? toPolarisSort(DEFAULT_LIST_SORT)) })}
            cancelAction={{ onAction: clearAll }}
            mode={mode}
            setMode={setMode}
            loading={loading}
            filteringAccessibilityLabel={t("lists.filtering")}
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
  const i18n = useI18n();
  const { t, dateTime, number } = i18n;
  const [sortColumn, direction] = sort.split("-") as ["items" | "updated", "asc" | "desc"];
  const sortColumnIndex = sortColumn === "items" ? 2 : 4;
  const headings: IndexTableProps["headings"] = [
    { title: t("lists.column.list") },
    { title: t("lists.column.owner") },
    { title: t("lists.column.items"), alignment: "end" },
    { title: t("lists.column.sharing") },
    { title: t("lists.column.updated") },
  ];
  return (
    <IndexTable
      resourceName={{ singular: t("lists.resource.singular"), plural: t("lists.resource.plural") }}
      itemCount={page.lists.length}
      selectable={false}
      headings={headings}
      sortable={[false, false, true, false, true]}
      sortColumnIndex={sortColumnIndex}
      sortDirection={direction === "asc" ? "ascending" : "descending"}
      defaultSortDirection="descending"
      sortToggleLabels={{
        2: { ascending: t("lists.sortToggle.fewestItems"), descending: t("lists.sortToggle.mostItems") },
        4: { ascending: t("lists.sortToggle.oldestUpdate"), descending: t("lists.sortToggle.newestUpdate") },
      }}
      onSort={(index, sortDirection) => {
        const column = SORT_COLUMNS[index];
        if (column) onSort(`${column}-${sortDirection === "ascending" ? "asc" : "desc"}`);
      }}
      emptyState={
        <EmptyState
          heading={
            filtered
              ? t("lists.empty.filteredHeading")
              : page.first
                ? t("lists.empty.heading")
                : t("lists.empty.noMore")
          }
          image="/favicon.svg"
          action={filtered ? { content: t("lists.empty.clear"), onAction: onClear } : undefined}
        >
          <p>{filtered ? t("lists.empty.filteredBody") : t("lists.empty.body")}</p>
        </EmptyState>
      }
      pagination={
        page.previousCursor || page.nextCursor
          ? {
              hasPrevious: page.previousCursor !== null,
              onPrevious: () => page.previousCursor && onPage(page.previousCursor),
              hasNext: page.nextCursor !== null,
              onNext: () => page.nextCursor && onPage(page.nextCursor),
              accessibilityLabels: { previous: t("lists.previousPage"), next: t("lists.nextPage") },
            }
          : undefined
      }
    >
      {page.lists.map((list, index) => (
        <IndexTable.Row id={list.id} key={list.id} position={index}>
          <IndexTable.Cell>
            <BlockStack gap="050">
              <InlineStack gap="200" blockAlign="center">
                <Link
                  url={`/app/lists/${list.id}`}
                  removeUnderline
                  accessibilityLabel={t("lists.linkLabel", { list: list.name, owner: ownerLabel(list.owner, i18n) })}
                >
                  <Text as="span" fontWeight="semibold" breakWord>
                    {list.name}
                  </Text>
                </Link>
                {list.default ? <Badge>{t("lists.defaultList")}</Badge> : null}
              </InlineStack>
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
              {number(list.count)}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            {list.shared ? <Badge tone="info">{t("lists.shared")}</Badge> : t("lists.notShared")}
          </IndexTable.Cell>
          <IndexTable.Cell>{list.updatedAt ? dateTime(list.updatedAt) : ""}</IndexTable.Cell>
        </IndexTable.Row>
      ))}
    </IndexTable>
  );
}

/**
 * The owner's name, with their email and id below it; a customer the platform did not name, by id. An owner
 * with several lists (named lists beside their default one) says how many: for a customer, a link to all of
 * them (the customer filter); a guest is never shown by id, so only the number.
 */
function OwnerCell({ owner }: { owner: ListRowView["owner"] }) {
  const i18n = useI18n();
  const label = ownerLabel(owner, i18n);
  const details = [
    owner.contact?.name ? owner.contact.email : null,
    owner.contact ? i18n.t("lists.ownerId", { id: String(owner.customerId) }) : null,
  ];
  const lists = i18n.plural("lists.ownerLists", owner.listCount);
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
      {owner.listCount > 1 ? (
        owner.customerId !== null ? (
          <Text as="span" variant="bodySm">
            <Link
              url={`/app/lists?customer=${owner.customerId}`}
              accessibilityLabel={i18n.plural("lists.ownerListsLabel", owner.listCount, { owner: label })}
            >
              {lists}
            </Link>
          </Text>
        ) : (
          <Text as="span" variant="bodySm" tone="subdued">
            {lists}
          </Text>
        )
      ) : null}
    </BlockStack>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.lists", "lists.error");
