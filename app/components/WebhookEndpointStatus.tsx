import { Badge, BlockStack, Text } from "@shopify/polaris";

/**
 * Admin timestamps: one fixed locale and zone, so every merchant (and every screenshot) reads the same text;
 * with seconds where events often fall within one minute (the delivery log).
 */
export function formatAdminTime(iso: string, { seconds = false }: { seconds?: boolean } = {}): string {
  const timeStyle = seconds ? "medium" : "short";
  return `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle, timeZone: "UTC" })} UTC`;
}

export interface EndpointHealth {
  failCount: number;
  disabledAt: string | null;
}

/**
 * Active, Failing (deliveries that failed on their last retry, in a row, not yet switched off) or Disabled (20 in
 * a row, docs/webhooks.md),
 * with what the merchant needs to judge it: how many failures, since when it is off.
 */
export function WebhookEndpointStatus({ endpoint }: { endpoint: EndpointHealth }) {
  if (endpoint.disabledAt) {
    return (
      <BlockStack gap="100" inlineAlign="start">
        <Badge tone="critical">Disabled</Badge>
        <Text as="span" variant="bodySm" tone="subdued">
          since {formatAdminTime(endpoint.disabledAt)}
        </Text>
      </BlockStack>
    );
  }
  if (endpoint.failCount > 0) {
    return (
      <BlockStack gap="100" inlineAlign="start">
        <Badge tone="warning">Failing</Badge>
        <Text as="span" variant="bodySm" tone="subdued">
          {endpoint.failCount === 1 ? "1 failed delivery" : `${endpoint.failCount} failed deliveries in a row`}
        </Text>
      </BlockStack>
    );
  }
  return <Badge tone="success">Active</Badge>;
}
