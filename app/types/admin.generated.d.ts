/* eslint-disable eslint-comments/disable-enable-pair */
/* eslint-disable eslint-comments/no-unlimited-disable */
/* eslint-disable */
import type * as AdminTypes from './admin.types.js';

export type WishlistShopContactEmailQueryVariables = AdminTypes.Exact<{ [key: string]: never; }>;


export type WishlistShopContactEmailQuery = { shop: Pick<AdminTypes.Shop, 'email'> };

export type WishlistProductStatesQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistProductStatesQuery = { shop: Pick<AdminTypes.Shop, 'currencyCode'>, nodes: Array<AdminTypes.Maybe<(
    Pick<AdminTypes.Product, 'id' | 'title' | 'handle' | 'status'>
    & { featuredMedia?: AdminTypes.Maybe<{ preview?: AdminTypes.Maybe<{ image?: AdminTypes.Maybe<Pick<AdminTypes.Image, 'url'>> }> }>, variants: { nodes: Array<(
        Pick<AdminTypes.ProductVariant, 'id' | 'title' | 'price' | 'compareAtPrice' | 'availableForSale' | 'inventoryQuantity'>
        & { inventoryItem: Pick<AdminTypes.InventoryItem, 'id'> }
      )> } }
  )>> };

export type WishlistFlowTriggerMutationVariables = AdminTypes.Exact<{
  handle?: AdminTypes.InputMaybe<AdminTypes.Scalars['String']['input']>;
  payload?: AdminTypes.InputMaybe<AdminTypes.Scalars['JSON']['input']>;
}>;


export type WishlistFlowTriggerMutation = { flowTriggerReceive?: AdminTypes.Maybe<{ userErrors: Array<Pick<AdminTypes.UserError, 'field' | 'message'>> }> };

export type WishlistAlertRecipientsQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistAlertRecipientsQuery = { nodes: Array<AdminTypes.Maybe<(
    Pick<AdminTypes.Customer, 'id' | 'firstName' | 'locale'>
    & { defaultEmailAddress?: AdminTypes.Maybe<Pick<AdminTypes.CustomerEmailAddress, 'emailAddress' | 'marketingState'>> }
  )>> };

export type WishlistProductTitlesQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistProductTitlesQuery = { nodes: Array<AdminTypes.Maybe<Pick<AdminTypes.Product, 'id' | 'title' | 'handle'>>> };

export type WishlistMetafieldDefinitionMutationVariables = AdminTypes.Exact<{
  definition: AdminTypes.MetafieldDefinitionInput;
}>;


export type WishlistMetafieldDefinitionMutation = { metafieldDefinitionCreate?: AdminTypes.Maybe<{ createdDefinition?: AdminTypes.Maybe<Pick<AdminTypes.MetafieldDefinition, 'id'>>, userErrors: Array<Pick<AdminTypes.MetafieldDefinitionCreateUserError, 'field' | 'message' | 'code'>> }> };

export type WishlistMetafieldsSetMutationVariables = AdminTypes.Exact<{
  metafields: Array<AdminTypes.MetafieldsSetInput> | AdminTypes.MetafieldsSetInput;
}>;


export type WishlistMetafieldsSetMutation = { metafieldsSet?: AdminTypes.Maybe<{ metafields?: AdminTypes.Maybe<Array<Pick<AdminTypes.Metafield, 'id'>>>, userErrors: Array<Pick<AdminTypes.MetafieldsSetUserError, 'field' | 'message' | 'code' | 'elementIndex'>> }> };

export type WishlistMetafieldsDeleteMutationVariables = AdminTypes.Exact<{
  metafields: Array<AdminTypes.MetafieldIdentifierInput> | AdminTypes.MetafieldIdentifierInput;
}>;


export type WishlistMetafieldsDeleteMutation = { metafieldsDelete?: AdminTypes.Maybe<{ deletedMetafields?: AdminTypes.Maybe<Array<AdminTypes.Maybe<Pick<AdminTypes.MetafieldIdentifier, 'key'>>>>, userErrors: Array<Pick<AdminTypes.UserError, 'field' | 'message'>> }> };

export type WishlistListOwnersQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistListOwnersQuery = { nodes: Array<AdminTypes.Maybe<(
    Pick<AdminTypes.Customer, 'id' | 'displayName'>
    & { defaultEmailAddress?: AdminTypes.Maybe<Pick<AdminTypes.CustomerEmailAddress, 'emailAddress'>> }
  )>> };

export type WishlistListOwnerSearchQueryVariables = AdminTypes.Exact<{
  query: AdminTypes.Scalars['String']['input'];
  first: AdminTypes.Scalars['Int']['input'];
}>;


export type WishlistListOwnerSearchQuery = { customers: { nodes: Array<Pick<AdminTypes.Customer, 'id'>> } };

export type WishlistSubscriptionNowQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistSubscriptionNowQuery = { nodes: Array<AdminTypes.Maybe<Pick<AdminTypes.AppSubscription, 'id' | 'name' | 'status'>>> };

export type WishlistProductSnapshotsQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistProductSnapshotsQuery = { nodes: Array<AdminTypes.Maybe<Pick<AdminTypes.Product, 'id' | 'title' | 'handle'>>> };

export type WishlistEmbedStatusQueryVariables = AdminTypes.Exact<{ [key: string]: never; }>;


export type WishlistEmbedStatusQuery = { themes?: AdminTypes.Maybe<{ nodes: Array<(
      Pick<AdminTypes.OnlineStoreTheme, 'id' | 'name'>
      & { files?: AdminTypes.Maybe<{ nodes: Array<{ body: Pick<AdminTypes.OnlineStoreThemeFileBodyText, 'content'> }> }> }
    )> }> };

export type CustomersByEmailQueryVariables = AdminTypes.Exact<{
  query: AdminTypes.Scalars['String']['input'];
  first: AdminTypes.Scalars['Int']['input'];
}>;


export type CustomersByEmailQuery = { customers: { nodes: Array<(
      Pick<AdminTypes.Customer, 'id'>
      & { defaultEmailAddress?: AdminTypes.Maybe<Pick<AdminTypes.CustomerEmailAddress, 'emailAddress'>> }
    )> } };

export type CustomersByIdQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type CustomersByIdQuery = { nodes: Array<AdminTypes.Maybe<Pick<AdminTypes.Customer, 'id'>>> };

export type WishlistMarketingExportQueryVariables = AdminTypes.Exact<{
  ids: Array<AdminTypes.Scalars['ID']['input']> | AdminTypes.Scalars['ID']['input'];
}>;


export type WishlistMarketingExportQuery = { shop: Pick<AdminTypes.Shop, 'currencyCode'>, nodes: Array<AdminTypes.Maybe<(
    Pick<AdminTypes.Customer, 'id' | 'firstName' | 'lastName'>
    & { defaultEmailAddress?: AdminTypes.Maybe<Pick<AdminTypes.CustomerEmailAddress, 'emailAddress'>> }
  ) | (
    Pick<AdminTypes.Product, 'id' | 'title'>
    & { priceRangeV2: { minVariantPrice: Pick<AdminTypes.MoneyV2, 'amount'> } }
  ) | Pick<AdminTypes.ProductVariant, 'id' | 'title' | 'price'>>> };

interface GeneratedQueryTypes {
  "#graphql\n  query WishlistShopContactEmail { shop { email } }": {return: WishlistShopContactEmailQuery, variables: WishlistShopContactEmailQueryVariables},
  "#graphql\n  query WishlistProductStates($ids: [ID!]!) {\n    shop { currencyCode }\n    nodes(ids: $ids) {\n      ... on Product {\n        id title handle status\n        featuredMedia { preview { image { url } } }\n        variants(first: 100) { nodes { id title price compareAtPrice availableForSale inventoryQuantity inventoryItem { id } } }\n      }\n    }\n  }": {return: WishlistProductStatesQuery, variables: WishlistProductStatesQueryVariables},
  "#graphql\n  query WishlistAlertRecipients($ids: [ID!]!) {\n    nodes(ids: $ids) { ... on Customer { id firstName locale defaultEmailAddress { emailAddress marketingState } } }\n  }": {return: WishlistAlertRecipientsQuery, variables: WishlistAlertRecipientsQueryVariables},
  "#graphql\n  query WishlistProductTitles($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      ... on Product { id title handle }\n    }\n  }": {return: WishlistProductTitlesQuery, variables: WishlistProductTitlesQueryVariables},
  "#graphql\n  query WishlistListOwners($ids: [ID!]!) {\n    nodes(ids: $ids) { ... on Customer { id displayName defaultEmailAddress { emailAddress } } }\n  }": {return: WishlistListOwnersQuery, variables: WishlistListOwnersQueryVariables},
  "#graphql\n  query WishlistListOwnerSearch($query: String!, $first: Int!) {\n    customers(first: $first, query: $query) { nodes { id } }\n  }": {return: WishlistListOwnerSearchQuery, variables: WishlistListOwnerSearchQueryVariables},
  "#graphql\n  query WishlistSubscriptionNow($ids: [ID!]!) {\n    nodes(ids: $ids) { ... on AppSubscription { id name status } }\n  }": {return: WishlistSubscriptionNowQuery, variables: WishlistSubscriptionNowQueryVariables},
  "#graphql\n  query WishlistProductSnapshots($ids: [ID!]!) {\n    nodes(ids: $ids) { ... on Product { id title handle } }\n  }": {return: WishlistProductSnapshotsQuery, variables: WishlistProductSnapshotsQueryVariables},
  "#graphql\n  query WishlistEmbedStatus {\n    themes(first: 1, roles: [MAIN]) {\n      nodes {\n        id\n        name\n        files(filenames: [\"config/settings_data.json\"], first: 1) {\n          nodes { body { ... on OnlineStoreThemeFileBodyText { content } } }\n        }\n      }\n    }\n  }": {return: WishlistEmbedStatusQuery, variables: WishlistEmbedStatusQueryVariables},
  "#graphql\n  query CustomersByEmail($query: String!, $first: Int!) {\n    customers(first: $first, query: $query) {\n      nodes { id defaultEmailAddress { emailAddress } }\n    }\n  }": {return: CustomersByEmailQuery, variables: CustomersByEmailQueryVariables},
  "#graphql\n  query CustomersById($ids: [ID!]!) {\n    nodes(ids: $ids) { ... on Customer { id } }\n  }": {return: CustomersByIdQuery, variables: CustomersByIdQueryVariables},
  "#graphql\n  query WishlistMarketingExport($ids: [ID!]!) {\n    shop { currencyCode }\n    nodes(ids: $ids) {\n      ... on Customer { id firstName lastName defaultEmailAddress { emailAddress } }\n      ... on Product { id title priceRangeV2 { minVariantPrice { amount } } }\n      ... on ProductVariant { id title price }\n    }\n  }": {return: WishlistMarketingExportQuery, variables: WishlistMarketingExportQueryVariables},
}

interface GeneratedMutationTypes {
  "#graphql\n  mutation WishlistFlowTrigger($handle: String, $payload: JSON) {\n    flowTriggerReceive(handle: $handle, payload: $payload) { userErrors { field message } }\n  }": {return: WishlistFlowTriggerMutation, variables: WishlistFlowTriggerMutationVariables},
  "#graphql\n  mutation WishlistMetafieldDefinition($definition: MetafieldDefinitionInput!) {\n    metafieldDefinitionCreate(definition: $definition) {\n      createdDefinition { id }\n      userErrors { field message code }\n    }\n  }": {return: WishlistMetafieldDefinitionMutation, variables: WishlistMetafieldDefinitionMutationVariables},
  "#graphql\n  mutation WishlistMetafieldsSet($metafields: [MetafieldsSetInput!]!) {\n    metafieldsSet(metafields: $metafields) {\n      metafields { id }\n      userErrors { field message code elementIndex }\n    }\n  }": {return: WishlistMetafieldsSetMutation, variables: WishlistMetafieldsSetMutationVariables},
  "#graphql\n  mutation WishlistMetafieldsDelete($metafields: [MetafieldIdentifierInput!]!) {\n    metafieldsDelete(metafields: $metafields) {\n      deletedMetafields { key }\n      userErrors { field message }\n    }\n  }": {return: WishlistMetafieldsDeleteMutation, variables: WishlistMetafieldsDeleteMutationVariables},
}
declare module '~/services/platform/admin-operations' {
  type InputMaybe<T> = AdminTypes.InputMaybe<T>;
  interface AdminQueries extends GeneratedQueryTypes {}
  interface AdminMutations extends GeneratedMutationTypes {}
}
