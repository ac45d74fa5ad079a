import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useAnswerToast, type ActionAnswer } from "~/components/useAnswerToast";
import { useI18n } from "~/i18n/i18n-context";

export interface DisabledEndpoint {
  id: string;
  url: string;
  disabledAt: string;
}

/**
 * The critical banner of the Home and Webhooks pages while any webhook endpoint is disabled (20
 * consecutive failed deliveries): it names each one and re-enables it in place, through the Webhooks
 * page's action (`intent=enable`, `endpointId`), and confirms it with a toast. Keep it mounted while the
 * page is (it renders nothing when no endpoint is disabled), so the confirmation outlives the last row.
 */
export function DisabledEndpointsBanner({ endpoints }: { endpoints: DisabledEndpoint[] }) {
  // One fetcher for every row, held here rather than in the row: a re-enabled endpoint leaves the list (and
  // the banner may go) in the same render that brings the answer, so only this component sees it and says so.
  const fetcher = useFetcher<ActionAnswer>();
  const { t } = useI18n();
  useAnswerToast(fetcher, { done: t("webhook.reEnabled"), failed: t("webhook.notReEnabled") });
  if (endpoints.length === 0) return null;
  return (
    <Banner
      tone="critical"
      title={
        endpoints.length === 1
          ? t("webhook.disabledBanner.one")
          : t("webhook.disabledBanner.many", { count: endpoints.length })
      }
    >
      <BlockStack gap="200">
        <Text as="p">{t("webhook.disabledBanner.body")}</Text>
        {endpoints.map((endpoint) => (
          <ReEnable key={endpoint.id} endpoint={endpoint} fetcher={fetcher} />
        ))}
      </BlockStack>
    </Banner>
  );
}

function ReEnable({
  endpoint,
  fetcher,
}: {
  endpoint: DisabledEndpoint;
  fetcher: ReturnType<typeof useFetcher<ActionAnswer>>;
}) {
  const { t } = useI18n();
  const sending = fetcher.state !== "idle" && fetcher.formData?.get("endpointId") === endpoint.id;
  return (
    <fetcher.Form method="post" action="/app/webhooks?index">
      <input type="hidden" name="intent" value="enable" />
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <Text as="span" fontWeight="semibold" breakWord>
          {endpoint.url}
        </Text>
        <Button submit loading={sending} accessibilityLabel={t("webhook.reEnableLabel", { url: endpoint.url })}>
          {t("webhook.reEnable")}
        </Button>
      </InlineStack>
    </fetcher.Form>
  );
}
