import { useFetcher } from "@remix-run/react";
import { useAppBridge } from "@shopify/app-bridge-react";
import { Button } from "@shopify/polaris";
import { useEffect } from "react";
import { useI18n } from "~/i18n/i18n-context";

/**
 * Sends the endpoint a `ping` through the whole delivery pipeline (the Webhooks page's action,
 * `intent=test`), on the list and on an endpoint's page. A disabled endpoint is sent nothing, tests
 * included, so the button waits for re-enabling.
 */
export function SendTestEventButton({
  endpoint,
}: {
  endpoint: { id: string; url: string; disabledAt: string | null };
}) {
  const fetcher = useFetcher<{ ok: boolean; formError?: string }>();
  const shopify = useAppBridge();
  const { t } = useI18n();
  useEffect(() => {
    if (!fetcher.data) return;
    if (fetcher.data.ok) shopify.toast.show(t("webhook.testQueued"));
    else shopify.toast.show(fetcher.data.formError ?? t("webhook.testNotSent"), { isError: true });
  }, [fetcher.data, shopify, t]);
  return (
    <fetcher.Form method="post" action="/app/webhooks?index">
      <input type="hidden" name="intent" value="test" />
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <Button
        submit
        loading={fetcher.state !== "idle"}
        disabled={endpoint.disabledAt !== null}
        accessibilityLabel={t("webhook.sendTestLabel", { url: endpoint.url })}
      >
        {t("webhook.sendTest")}
      </Button>
    </fetcher.Form>
  );
}
