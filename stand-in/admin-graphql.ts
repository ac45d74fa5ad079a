/**
 * The slice of the platform's Admin GraphQL API that the app uses, answered for the stand-in's shops by
 * a real GraphQL engine over a schema shaped like the platform's: a query the platform would refuse
 * (an unknown field, a wrong argument type) is refused here too, in the platform's error format.
 */
import { buildSchema, graphql, type GraphQLSchema } from "graphql";
import {
  findInventoryItem,
  findVariant,
  inventoryItemIdOf,
  isAvailableForSale,
  productImagePath,
  variantsOf,
} from "./catalogue";
import {
  activeSubscriptions,
  cancelSubscription,
  createSubscription,
  findSubscription,
  shopRestId,
  subscriptionNode,
  type AppSubscriptionCreateInput,
} from "./billing";
import type { BillingHooks } from "./billing-admin";
import type { StandInShop, StandInVariant } from "./demo-data";

const SDL = /* GraphQL */ `
  interface Node {
    id: ID!
  }
  enum ThemeRole {
    MAIN
    UNPUBLISHED
    DEMO
    DEVELOPMENT
    ARCHIVED
    LOCKED
  }
  type OnlineStoreThemeFileBodyText {
    content: String!
  }
  type OnlineStoreThemeFileBodyBase64 {
    contentBase64: String!
  }
  union OnlineStoreThemeFileBody = OnlineStoreThemeFileBodyText | OnlineStoreThemeFileBodyBase64
  type OnlineStoreThemeFile {
    filename: String!
    body: OnlineStoreThemeFileBody!
  }
  type OnlineStoreThemeFileConnection {
    nodes: [OnlineStoreThemeFile!]!
  }
  type OnlineStoreTheme implements Node {
    id: ID!
    name: String!
    role: ThemeRole!
    files(filenames: [String!], first: Int): OnlineStoreThemeFileConnection
  }
  type OnlineStoreThemeConnection {
    nodes: [OnlineStoreTheme!]!
  }
  enum CustomerEmailAddressMarketingState {
    INVALID
    NOT_SUBSCRIBED
    PENDING
    SUBSCRIBED
    UNSUBSCRIBED
  }
  type CustomerEmailAddress {
    emailAddress: String!
    marketingState: CustomerEmailAddressMarketingState!
  }
  type Customer implements Node {
    id: ID!
    firstName: String
    lastName: String
    displayName: String!
    locale: String!
    defaultEmailAddress: CustomerEmailAddress
    metafield(namespace: String, key: String!): Metafield
  }
  type Metafield {
    id: ID!
    namespace: String!
    key: String!
    type: String!
    value: String!
  }
  enum MetafieldOwnerType {
    CUSTOMER
    PRODUCT
  }
  enum MetafieldAdminAccessInput {
    MERCHANT_READ
    MERCHANT_READ_WRITE
  }
  enum MetafieldStorefrontAccessInput {
    PUBLIC_READ
    NONE
  }
  enum MetafieldCustomerAccountAccessInput {
    READ
    READ_WRITE
    NONE
  }
  input MetafieldAccessInput {
    admin: MetafieldAdminAccessInput
    storefront: MetafieldStorefrontAccessInput
    customerAccount: MetafieldCustomerAccountAccessInput
  }
  input MetafieldDefinitionInput {
    name: String!
    namespace: String
    key: String!
    description: String
    type: String!
    ownerType: MetafieldOwnerType!
    access: MetafieldAccessInput
    pin: Boolean
  }
  type MetafieldDefinition {
    id: ID!
    name: String!
    namespace: String!
    key: String!
  }
  enum MetafieldDefinitionCreateUserErrorCode {
    TAKEN
    INVALID
    UNSUPPORTED_PINNING
  }
  type MetafieldDefinitionCreateUserError {
    field: [String!]
    message: String!
    code: MetafieldDefinitionCreateUserErrorCode
  }
  type MetafieldDefinitionCreatePayload {
    createdDefinition: MetafieldDefinition
    userErrors: [MetafieldDefinitionCreateUserError!]!
  }
  input MetafieldsSetInput {
    ownerId: ID!
    namespace: String
    key: String!
    type: String
    value: String!
    compareDigest: String
  }
  enum MetafieldsSetUserErrorCode {
    INVALID_VALUE
    INVALID_TYPE
    BLANK
    LESS_THAN_OR_EQUAL_TO
    INVALID
  }
  type MetafieldsSetUserError {
    field: [String!]
    message: String!
    code: MetafieldsSetUserErrorCode
    elementIndex: Int
  }
  type MetafieldsSetPayload {
    metafields: [Metafield!]
    userErrors: [MetafieldsSetUserError!]!
  }
  input MetafieldIdentifierInput {
    ownerId: ID!
    namespace: String!
    key: String!
  }
  type MetafieldIdentifier {
    ownerId: ID!
    namespace: String!
    key: String!
  }
  type UserError {
    field: [String!]
    message: String!
  }
  type MetafieldsDeletePayload {
    deletedMetafields: [MetafieldIdentifier]
    userErrors: [UserError!]!
  }
  scalar JSON
  type FlowTriggerReceivePayload {
    userErrors: [UserError!]!
  }
  type Mutation {
    metafieldDefinitionCreate(definition: MetafieldDefinitionInput!): MetafieldDefinitionCreatePayload
    metafieldsSet(metafields: [MetafieldsSetInput!]!): MetafieldsSetPayload
    metafieldsDelete(metafields: [MetafieldIdentifierInput!]!): MetafieldsDeletePayload
    flowTriggerReceive(handle: String, payload: JSON): FlowTriggerReceivePayload
    appSubscriptionCreate(
      name: String!
      returnUrl: URL!
      test: Boolean = false
      trialDays: Int
      replacementBehavior: AppSubscriptionReplacementBehavior = STANDARD
      lineItems: [AppSubscriptionLineItemInput!]!
    ): AppSubscriptionCreatePayload
    appSubscriptionCancel(id: ID!, prorate: Boolean = false): AppSubscriptionCancelPayload
  }
  type CustomerConnection {
    nodes: [Customer!]!
  }
  scalar Decimal
  scalar Money
  enum CurrencyCode {
    USD
    EUR
    GBP
    CAD
  }
  type MoneyV2 {
    amount: Decimal!
    currencyCode: CurrencyCode!
  }
  type ProductPriceRangeV2 {
    minVariantPrice: MoneyV2!
    maxVariantPrice: MoneyV2!
  }
  enum ProductStatus {
    ACTIVE
    ARCHIVED
    DRAFT
  }
  scalar URL
  type Image {
    url: URL!
  }
  type MediaPreviewImage {
    image: Image
  }
  interface Media {
    id: ID!
    preview: MediaPreviewImage
  }
  type MediaImage implements Media & Node {
    id: ID!
    preview: MediaPreviewImage
  }
  type Product implements Node {
    id: ID!
    title: String!
    handle: String!
    status: ProductStatus!
    priceRangeV2: ProductPriceRangeV2!
    featuredMedia: Media
    variants(first: Int, after: String): ProductVariantConnection!
  }
  type ProductVariant implements Node {
    id: ID!
    title: String!
    price: Money!
    compareAtPrice: Money
    availableForSale: Boolean!
    inventoryQuantity: Int
    inventoryItem: InventoryItem!
    product: Product!
  }
  type ProductVariantConnection {
    nodes: [ProductVariant!]!
  }
  type InventoryItem implements Node {
    id: ID!
    variant: ProductVariant!
  }
  type ProductConnection {
    nodes: [Product!]!
  }
  scalar DateTime
  enum AppSubscriptionStatus {
    ACCEPTED
    ACTIVE
    CANCELLED
    DECLINED
    EXPIRED
    FROZEN
    PENDING
  }
  enum AppSubscriptionReplacementBehavior {
    APPLY_IMMEDIATELY
    APPLY_ON_NEXT_BILLING_CYCLE
    STANDARD
  }
  enum AppPricingInterval {
    ANNUAL
    EVERY_30_DAYS
  }
  type AppSubscriptionDiscountAmount {
    amount: MoneyV2!
  }
  type AppSubscriptionDiscountPercentage {
    percentage: Float!
  }
  union AppSubscriptionDiscountValue = AppSubscriptionDiscountAmount | AppSubscriptionDiscountPercentage
  type AppSubscriptionDiscount {
    durationLimitInIntervals: Int
    priceAfterDiscount: MoneyV2!
    remainingDurationInIntervals: Int
    value: AppSubscriptionDiscountValue!
  }
  type AppRecurringPricing {
    discount: AppSubscriptionDiscount
    interval: AppPricingInterval!
    price: MoneyV2!
  }
  type AppUsagePricing {
    balanceUsed: MoneyV2!
    cappedAmount: MoneyV2!
    interval: AppPricingInterval!
    terms: String!
  }
  union AppPricingDetails = AppRecurringPricing | AppUsagePricing
  type AppPlanV2 {
    pricingDetails: AppPricingDetails!
  }
  type AppSubscriptionLineItem {
    id: ID!
    plan: AppPlanV2!
  }
  type AppSubscription implements Node {
    id: ID!
    name: String!
    status: AppSubscriptionStatus!
    test: Boolean!
    trialDays: Int!
    createdAt: DateTime!
    currentPeriodEnd: DateTime
    returnUrl: URL!
    lineItems: [AppSubscriptionLineItem!]!
  }
  enum AppPurchaseStatus {
    ACCEPTED
    ACTIVE
    DECLINED
    EXPIRED
    PENDING
  }
  type AppPurchaseOneTime implements Node {
    id: ID!
    name: String!
    price: MoneyV2!
    status: AppPurchaseStatus!
    test: Boolean!
    createdAt: DateTime!
  }
  type AppPurchaseOneTimeEdge {
    cursor: String!
    node: AppPurchaseOneTime!
  }
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
  type AppPurchaseOneTimeConnection {
    edges: [AppPurchaseOneTimeEdge!]!
    nodes: [AppPurchaseOneTime!]!
    pageInfo: PageInfo!
  }
  enum AppTransactionSortKeys {
    CREATED_AT
    ID
  }
  type AppInstallation implements Node {
    id: ID!
    activeSubscriptions: [AppSubscription!]!
    oneTimePurchases(
      first: Int
      after: String
      last: Int
      before: String
      reverse: Boolean = false
      sortKey: AppTransactionSortKeys = CREATED_AT
    ): AppPurchaseOneTimeConnection!
  }
  input MoneyInput {
    amount: Decimal!
    currencyCode: CurrencyCode!
  }
  input AppSubscriptionDiscountValueInput {
    amount: Decimal
    percentage: Float
  }
  input AppSubscriptionDiscountInput {
    durationLimitInIntervals: Int
    value: AppSubscriptionDiscountValueInput
  }
  input AppRecurringPricingInput {
    interval: AppPricingInterval = EVERY_30_DAYS
    price: MoneyInput!
    discount: AppSubscriptionDiscountInput
  }
  input AppUsagePricingInput {
    cappedAmount: MoneyInput!
    terms: String!
  }
  input AppPlanInput {
    appRecurringPricingDetails: AppRecurringPricingInput
    appUsagePricingDetails: AppUsagePricingInput
  }
  input AppSubscriptionLineItemInput {
    plan: AppPlanInput!
  }
  type AppSubscriptionCreatePayload {
    appSubscription: AppSubscription
    confirmationUrl: URL
    userErrors: [UserError!]!
  }
  type AppSubscriptionCancelPayload {
    appSubscription: AppSubscription
    userErrors: [UserError!]!
  }
  type Shop {
    name: String!
    email: String!
    myshopifyDomain: String!
    currencyCode: CurrencyCode!
  }
  type Query {
    shop: Shop!
    themes(first: Int, roles: [ThemeRole!]): OnlineStoreThemeConnection
    customers(first: Int, query: String): CustomerConnection!
    products(first: Int, query: String): ProductConnection!
    nodes(ids: [ID!]!): [Node]!
    currentAppInstallation: AppInstallation!
  }
`;

/** The slice's schema; tests/stand-in/admin-schema.test.ts holds it to the platform's. */
export const standInAdminSchema: GraphQLSchema = buildSchema(SDL);
// buildSchema leaves abstract types unresolved: name them from the objects the resolvers return.
for (const name of ["Node", "Media", "OnlineStoreThemeFileBody", "AppPricingDetails", "AppSubscriptionDiscountValue"]) {
  const type = standInAdminSchema.getType(name) as unknown as {
    resolveType: (value: { __typename: string }) => string;
  };
  type.resolveType = (value) => value.__typename;
}

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

interface MetafieldDefinitionInput {
  name: string;
  namespace?: string;
  key: string;
  type: string;
  ownerType: string;
  description?: string;
  access?: Record<string, string>;
}

interface MetafieldsSetInput {
  ownerId: string;
  namespace?: string;
  key: string;
  type?: string;
  value: string;
}

/** The platform's most common search form: `field:"value"` terms joined with OR. */
function searchTerms(query: string | undefined, field: string): string[] {
  const terms: string[] = [];
  const pattern = new RegExp(`${field}:(?:"((?:[^"\\\\]|\\\\.)*)"|(\\S+))`, "g");
  for (const match of (query ?? "").matchAll(pattern)) {
    terms.push((match[1] ?? match[2] ?? "").replace(/\\(.)/g, "$1").toLowerCase());
  }
  return terms;
}

/** The terms of a search without a field (`ada`, `"ada lovelace"`), lower-case; connectives are not terms. */
function defaultTerms(query: string | undefined): string[] {
  const terms: string[] = [];
  for (const match of (query ?? "").matchAll(/(\w+:)?(?:"((?:[^"\\]|\\.)*)"|(\S+))/g)) {
    if (match[1] || match[3] === "OR" || match[3] === "AND") continue;
    terms.push((match[2] ?? match[3] ?? "").replace(/\\(.)/g, "$1").toLowerCase());
  }
  return terms;
}

function themeSettingsData(shop: StandInShop): string {
  // The theme editor writes a comment block above the JSON; readers must cope with it.
  const settings = { current: { blocks: shop.theme.blocks }, presets: {} };
  return `/*\n * This file is auto-generated by the theme editor.\n */\n${JSON.stringify(settings, null, 2)}`;
}

/** The shop's metafields, by owner id, then by `namespace.key`. */
function metafieldsOf(shop: StandInShop) {
  shop.metafields ??= {};
  return shop.metafields;
}

type Customer = StandInShop["customers"][number];

/** Positions of each customer array's ids, and the array's length when they were taken. */
const customerPositions = new WeakMap<Customer[], { length: number; at: Map<string, number> }>();

/**
 * A customer of the shop by id, as `customers.find` would answer, without scanning: the alerts benchmark
 * (scripts/bench/alerts.ts) gives a shop 100,000 customers, and the recipients query asks for up to 250 of
 * them a call. Tests change the array in place (customers pushed after the start), so the index is taken
 * again when a position no longer holds its id, or when an id is not in it and the array's length changed.
 */
function findCustomer(shop: StandInShop, id: string): Customer | undefined {
  const { customers } = shop;
  let index = customerPositions.get(customers);
  let at = index?.at.get(id);
  const stale = at === undefined ? index?.length !== customers.length : customers[at]?.id !== id;
  if (stale) {
    index = { length: customers.length, at: new Map() };
    for (const [position, customer] of customers.entries()) {
      if (!index.at.has(customer.id)) index.at.set(customer.id, position);
    }
    customerPositions.set(customers, index);
    at = index.at.get(id);
  }
  return at === undefined ? undefined : customers[at];
}

function customerNode(shop: StandInShop, customer: Customer) {
  const ownerId = gid("Customer", customer.id);
  return {
    __typename: "Customer",
    id: ownerId,
    metafield: ({ namespace, key }: { namespace?: string; key: string }) => {
      const found = metafieldsOf(shop)[ownerId]?.[`${namespace ?? ""}.${key}`];
      return found ? { id: found.id, namespace: namespace ?? "", key, type: found.type, value: found.value } : null;
    },
    firstName: customer.firstName,
    lastName: customer.lastName,
    displayName: `${customer.firstName} ${customer.lastName}`,
    locale: customer.locale ?? "en",
    defaultEmailAddress: {
      emailAddress: customer.email,
      marketingState: customer.marketingState ?? "NOT_SUBSCRIBED",
    },
  };
}

/** What a resolver needs beyond the shop: the stand-in's origin (its images) and where Flow triggers go. */
export interface AdminGraphqlContext {
  /** The origin the stand-in serves product images from; unset: the shop's own domain, as the platform's CDN path. */
  origin?: string;
  /** Each accepted `flowTriggerReceive`, in order. */
  flowTriggers?: FlowTriggerCall[];
  /** The billing admin: the charges' confirmation pages and their webhooks; unset: none sent. */
  billing?: BillingHooks;
}

/** A `flowTriggerReceive` the platform accepted: what Flow would start its workflows with. */
export interface FlowTriggerCall {
  shopDomain: string;
  handle: string;
  payload: Record<string, unknown>;
  at: number;
}

type Product = StandInShop["products"][number];

function variantNode(shop: StandInShop, product: Product, variant: StandInVariant, context: AdminGraphqlContext) {
  const id = gid("ProductVariant", variant.id);
  const node = {
    __typename: "ProductVariant",
    id,
    title: variant.title,
    price: variant.price,
    compareAtPrice: variant.compareAtPrice ?? null,
    availableForSale: isAvailableForSale(variant),
    inventoryQuantity: variant.inventoryQuantity ?? null,
    inventoryItem: () => ({
      __typename: "InventoryItem",
      id: gid("InventoryItem", inventoryItemIdOf(variant.id)),
      variant: () => node,
    }),
    product: () => productNode(shop, product, context),
  };
  return node;
}

function productNode(shop: StandInShop, product: Product, context: AdminGraphqlContext) {
  const prices = variantsOf(product).map((variant) => Number(variant.price));
  const money = (amount: number) => ({ amount: amount.toFixed(2), currencyCode: shop.currency ?? "USD" });
  return {
    __typename: "Product",
    id: gid("Product", product.id),
    title: product.title,
    handle: product.handle,
    status: "ACTIVE",
    priceRangeV2: { minVariantPrice: money(Math.min(...prices)), maxVariantPrice: money(Math.max(...prices)) },
    // One image per product; its media id is the product's number under another type.
    featuredMedia: {
      __typename: "MediaImage",
      id: gid("MediaImage", product.id),
      preview: { image: { url: `${context.origin ?? `https://${shop.domain}`}${productImagePath(product)}` } },
    },
    variants: ({ first, after }: { first?: number | null; after?: string | null }) => {
      const all = variantsOf(product);
      const from = after ? all.findIndex((variant) => variant.id === after) + 1 : 0;
      return {
        nodes: all
          .slice(from, from + (first ?? all.length))
          .map((variant) => variantNode(shop, product, variant, context)),
      };
    },
  };
}

/** The Flow payload limit the platform enforces: the payload's JSON, in bytes. */
const FLOW_PAYLOAD_LIMIT_BYTES = 50_000;

/**
 * `flowTriggerReceive` as the platform answers it: `handle` and `payload` both required, the payload a JSON
 * object of at most 50,000 bytes, refusals as userErrors on `body` in Flow's schema-validation wording. The
 * platform also refuses a handle no trigger extension of the app declares; the stand-in, which has no app
 * configuration to read, accepts any.
 */
function receiveFlowTrigger(shop: StandInShop, context: AdminGraphqlContext, handle: unknown, payload: unknown) {
  const refuse = (field: string, message: string) => ({ userErrors: [{ field: [field], message }] });
  const invalid = (reason: string) => refuse("body", `Errors validating schema:\n  ${reason}\n`);
  if (typeof handle !== "string" || handle.trim() === "" || payload === null || payload === undefined) {
    return refuse("handle", "`handle` and `payload` arguments are required");
  }
  const json = JSON.stringify(payload);
  if (Buffer.byteLength(json) > FLOW_PAYLOAD_LIMIT_BYTES) {
    return invalid(`Properties size exceeds the limit of ${FLOW_PAYLOAD_LIMIT_BYTES} bytes.`);
  }
  if (typeof payload !== "object" || Array.isArray(payload)) {
    return invalid(
      `Type error for field 'properties': ${typeof payload === "string" ? payload : json} is not an Object.`,
    );
  }
  context.flowTriggers?.push({
    shopDomain: shop.domain,
    handle,
    payload: payload as Record<string, unknown>,
    at: Date.now(),
  });
  return { userErrors: [] };
}

function rootFor(shop: StandInShop, context: AdminGraphqlContext) {
  return {
    shop: () => ({
      name: shop.name,
      email: shop.email ?? `owner@${shop.domain}`,
      myshopifyDomain: shop.domain,
      currencyCode: shop.currency ?? "USD",
    }),
    themes: ({ roles }: { roles?: string[] }) => ({
      nodes:
        roles && !roles.includes("MAIN")
          ? []
          : [
              {
                __typename: "OnlineStoreTheme",
                id: shop.theme.id,
                name: shop.theme.name,
                role: "MAIN",
                files: ({ filenames }: { filenames?: string[] }) => ({
                  nodes:
                    !filenames || filenames.includes("config/settings_data.json")
                      ? [
                          {
                            filename: "config/settings_data.json",
                            body: { __typename: "OnlineStoreThemeFileBodyText", content: themeSettingsData(shop) },
                          },
                        ]
                      : [],
                }),
              },
            ],
    }),
    customers: ({ first = 50, query }: { first?: number; query?: string }) => {
      const emails = searchTerms(query, "email");
      const words = defaultTerms(query);
      // A word without a field matches the start of a name or of the email, case aside; all must match.
      const matchesWords = (customer: Customer) =>
        words.every((word) =>
          [customer.firstName, customer.lastName, customer.email].some((field) => field.toLowerCase().startsWith(word)),
        );
      const matching = shop.customers.filter(
        (c) => (emails.length === 0 || emails.includes(c.email.toLowerCase())) && matchesWords(c),
      );
      return { nodes: matching.slice(0, first).map((customer) => customerNode(shop, customer)) };
    },
    products: ({ first = 50, query }: { first?: number; query?: string }) => {
      const handles = searchTerms(query, "handle");
      const matching = handles.length ? shop.products.filter((p) => handles.includes(p.handle)) : shop.products;
      return { nodes: matching.slice(0, first).map((product) => productNode(shop, product, context)) };
    },
    // ---- mutations: the metafield calls of the customer metafield sync ----
    metafieldDefinitionCreate: ({ definition }: { definition: MetafieldDefinitionInput }) => {
      shop.metafieldDefinitions ??= [];
      const namespace = definition.namespace ?? "$app";
      const taken = shop.metafieldDefinitions.some(
        (existing) =>
          existing.ownerType === definition.ownerType &&
          existing.namespace === namespace &&
          existing.key === definition.key,
      );
      if (taken) {
        return {
          createdDefinition: null,
          userErrors: [{ field: ["definition", "key"], message: "Key is in use for this owner type.", code: "TAKEN" }],
        };
      }
      const created = {
        ...definition,
        namespace,
        id: gid("MetafieldDefinition", String(shop.metafieldDefinitions.length + 1)),
      };
      shop.metafieldDefinitions.push(created);
      return { createdDefinition: created, userErrors: [] };
    },
    metafieldsSet: ({ metafields }: { metafields: MetafieldsSetInput[] }) => {
      if (metafields.length > 25) {
        return {
          metafields: null,
          userErrors: [
            { field: ["metafields"], message: "Exceeds the maximum input size of 25.", code: "LESS_THAN_OR_EQUAL_TO" },
          ],
        };
      }
      const userErrors = metafields.flatMap((input, index) => {
        const refuse = (message: string, code: string) => [
          { field: ["metafields", String(index), "value"], message, code, elementIndex: index },
        ];
        const owner = /^gid:\/\/shopify\/Customer\/(\d+)$/.exec(input.ownerId)?.[1];
        if (!owner || !findCustomer(shop, owner)) {
          return [
            {
              field: ["metafields", String(index), "ownerId"],
              message: "Owner does not exist.",
              code: "INVALID",
              elementIndex: index,
            },
          ];
        }
        if (input.type !== "list.product_reference")
          return refuse("The stand-in stores list.product_reference values only.", "INVALID_TYPE");
        let value: unknown;
        try {
          value = JSON.parse(input.value);
        } catch {
          return refuse("Value must be a JSON array.", "INVALID_VALUE");
        }
        if (!Array.isArray(value) || value.length === 0)
          return refuse("Value must be a non-empty array.", "INVALID_VALUE");
        if (value.length > 128) return refuse("Value has more than 128 items.", "INVALID_VALUE");
        if (!value.every((item) => typeof item === "string" && /^gid:\/\/shopify\/Product\/\d+$/.test(item))) {
          return refuse("Value must hold product ids.", "INVALID_VALUE");
        }
        return [];
      });
      // Atomic, as on the platform: one refused input writes nothing.
      if (userErrors.length > 0) return { metafields: null, userErrors };
      const written = metafields.map((input) => {
        const owned = (metafieldsOf(shop)[input.ownerId] ??= {});
        const slot = `${input.namespace ?? ""}.${input.key}`;
        const id =
          owned[slot]?.id ??
          gid("Metafield", String(Object.keys(metafieldsOf(shop)).length * 100 + Object.keys(owned).length + 1));
        owned[slot] = { id, type: input.type!, value: input.value };
        return { id, namespace: input.namespace ?? "", key: input.key, type: input.type!, value: input.value };
      });
      return { metafields: written, userErrors: [] };
    },
    metafieldsDelete: ({ metafields }: { metafields: Array<{ ownerId: string; namespace: string; key: string }> }) => ({
      deletedMetafields: metafields.map((input) => {
        const owned = metafieldsOf(shop)[input.ownerId];
        const slot = `${input.namespace}.${input.key}`;
        if (!owned?.[slot]) return null;
        delete owned[slot];
        return input;
      }),
      userErrors: [],
    }),
    flowTriggerReceive: ({ handle, payload }: { handle?: string | null; payload?: unknown }) =>
      receiveFlowTrigger(shop, context, handle, payload),
    // ---- billing: the calls of the platform library's billing.request, billing.check and billing.cancel ----
    currentAppInstallation: () => ({
      id: gid("AppInstallation", shopRestId(shop)),
      activeSubscriptions: () => activeSubscriptions(shop).map(subscriptionNode),
      oneTimePurchases: ({ first, last }: { first?: number | null; last?: number | null }) => {
        // The platform's connections refuse a page of no declared size.
        if (first == null && last == null) throw new Error("you must provide one of first or last");
        // The stand-in takes no one-time purchases (appPurchaseOneTimeCreate is not in its schema).
        return {
          edges: [],
          nodes: [],
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        };
      },
    }),
    appSubscriptionCreate: (input: AppSubscriptionCreateInput) => {
      const created = createSubscription(shop, input);
      if ("userErrors" in created) return { appSubscription: null, confirmationUrl: null, ...created };
      const { subscription } = created;
      return {
        appSubscription: subscriptionNode(subscription),
        confirmationUrl:
          context.billing?.confirmationUrl(shop, subscription) ??
          `https://${shop.domain}/admin/charges/${subscription.id}/confirm`,
        userErrors: [],
      };
    },
    appSubscriptionCancel: ({ id }: { id: string; prorate?: boolean | null }) => {
      const subscription = findSubscription(shop, id);
      if (!subscription) {
        return { appSubscription: null, userErrors: [{ field: ["id"], message: "Couldn't find subscription" }] };
      }
      try {
        cancelSubscription(subscription);
      } catch (error) {
        return { appSubscription: null, userErrors: [{ field: ["id"], message: (error as Error).message }] };
      }
      context.billing?.updated(shop, [subscription]);
      return { appSubscription: subscriptionNode(subscription), userErrors: [] };
    },
    nodes: ({ ids }: { ids: string[] }) =>
      ids.map((id) => {
        const match = /^gid:\/\/shopify\/(Customer|Product|ProductVariant|InventoryItem|AppSubscription)\/(\d+)$/.exec(
          id,
        );
        if (!match) return null;
        const [, type, number] = match as unknown as [string, string, string];
        if (type === "AppSubscription") {
          const subscription = findSubscription(shop, number);
          return subscription ? subscriptionNode(subscription) : null;
        }
        if (type === "Customer") {
          const customer = findCustomer(shop, number);
          return customer ? customerNode(shop, customer) : null;
        }
        if (type === "ProductVariant" || type === "InventoryItem") {
          const found = type === "ProductVariant" ? findVariant(shop, number) : findInventoryItem(shop, number);
          if (!found) return null;
          const variant = variantNode(shop, found.product, found.variant, context);
          return type === "ProductVariant" ? variant : variant.inventoryItem();
        }
        const product = shop.products.find((p) => p.id === number);
        return product ? productNode(shop, product, context) : null;
      }),
  };
}

/** A query's cost as the platform reports it: a flat 1 + 1 per node returned, from a generous bucket. */
function costExtension(data: unknown) {
  const size = JSON.stringify(data ?? {}).match(/"id":/g)?.length ?? 0;
  const cost = 1 + size;
  return {
    cost: {
      requestedQueryCost: cost,
      actualQueryCost: cost,
      throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 2000 - cost, restoreRate: 100 },
    },
  };
}

export async function answerAdminGraphql(
  shop: StandInShop,
  body: { query?: unknown; variables?: unknown },
  context: AdminGraphqlContext = {},
): Promise<Record<string, unknown>> {
  if (typeof body.query !== "string") return { errors: [{ message: "Parameter Missing or Invalid" }] };
  const result = await graphql({
    schema: standInAdminSchema,
    source: body.query,
    rootValue: rootFor(shop, context),
    variableValues: (body.variables as Record<string, unknown> | undefined) ?? {},
  });
  return {
    ...(result.data ? { data: result.data } : {}),
    ...(result.errors
      ? { errors: result.errors.map((error) => ({ message: error.message, locations: error.locations })) }
      : {}),
    extensions: costExtension(result.data),
  };
}
