import { useFetcher } from "@remix-run/react";
import { useAppBridge } from "@shopify/app-bridge-react";
import { Button } from "@shopify/polaris";
import { useEffect } from "react";

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
  useEffect(() => {
    if (!fetcher.data) return;
    if (fetcher.data.ok) shopify.toast.show("Test event queued: its attempts show in the delivery log");
    else shopify.toast.show(fetcher.data.formError ?? "The test event was not sent", { isError: true });
  }, [fetcher.data, shopify]);
  return (
    <fetcher.Form method="post" action="/app/webhooks?index">
      <input type="hidden" name="intent" value="test" />
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <Button
        submit
        loading={fetcher.state !== "idle"}
        disabled={endpoint.disabledAt !== null}
        accessibilityLabel={`Send test to ${endpoint.url}`}
      >
        Send test
      </Button>
    </fetcher.Form>
  );
}
