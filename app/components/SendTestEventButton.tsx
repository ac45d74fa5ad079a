import { ActionButton } from "~/components/ActionButton";
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
  const { t } = useI18n();
  return (
    <ActionButton
      action="/app/webhooks?index"
      fields={{ intent: "test", endpointId: endpoint.id }}
      done={t("webhook.testQueued")}
      failed={t("webhook.testNotSent")}
      disabled={endpoint.disabledAt !== null}
      accessibilityLabel={t("webhook.sendTestLabel", { url: endpoint.url })}
    >
      {t("webhook.sendTest")}
    </ActionButton>
  );
}
