import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";

export interface DisabledEndpoint {
  id: string;
  url: string;
  disabledAt: string;
}

/**
 * The critical banner of the Home and Webhooks pages while any webhook endpoint is disabled (20
 * consecutive failed deliveries): it names each one and re-enables it in place, through the Webhooks
 * page's action (`intent=enable`, `endpointId`).
 */
export function DisabledEndpointsBanner({ endpoints }: { endpoints: DisabledEndpoint[] }) {
  if (endpoints.length === 0) return null;
  return (
    <Banner
      tone="critical"
      title={
        endpoints.length === 1
          ? "A webhook endpoint is disabled and receives no events"
          : `${endpoints.length} webhook endpoints are disabled and receive no events`
      }
    >
      <BlockStack gap="200">
        <Text as="p">
          After 20 failed deliveries in a row an endpoint is switched off. Fix the receiver, then re-enable it: new
          events are delivered again from then on.
        </Text>
        {endpoints.map((endpoint) => (
          <ReEnable key={endpoint.id} endpoint={endpoint} />
        ))}
      </BlockStack>
    </Banner>
  );
}

function ReEnable({ endpoint }: { endpoint: DisabledEndpoint }) {
  const fetcher = useFetcher();
  return (
    <fetcher.Form method="post" action="/app/webhooks?index">
      <input type="hidden" name="intent" value="enable" />
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <Text as="span" fontWeight="semibold" breakWord>
          {endpoint.url}
        </Text>
        <Button submit loading={fetcher.state !== "idle"} accessibilityLabel={`Re-enable ${endpoint.url}`}>
          Re-enable
        </Button>
      </InlineStack>
    </fetcher.Form>
  );
}
