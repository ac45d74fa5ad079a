import { Badge, BlockStack, Text } from "@shopify/polaris";
import { useI18n } from "~/i18n/i18n-context";

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
  const { t, plural, dateTime } = useI18n();
  if (endpoint.disabledAt) {
    return (
      <BlockStack gap="100" inlineAlign="start">
        <Badge tone="critical">{t("webhook.status.disabled")}</Badge>
        <Text as="span" variant="bodySm" tone="subdued">
          {t("webhook.status.since", { time: dateTime(endpoint.disabledAt) })}
        </Text>
      </BlockStack>
    );
  }
  if (endpoint.failCount > 0) {
    return (
      <BlockStack gap="100" inlineAlign="start">
        <Badge tone="warning">{t("webhook.status.failingBadge")}</Badge>
        <Text as="span" variant="bodySm" tone="subdued">
          {plural("webhook.status.failing", endpoint.failCount)}
        </Text>
      </BlockStack>
    );
  }
  return <Badge tone="success">{t("webhook.status.active")}</Badge>;
}
