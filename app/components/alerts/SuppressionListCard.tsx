import { useFetcher } from "@remix-run/react";
import { Modal, TitleBar } from "@shopify/app-bridge-react";
import { BlockStack, Box, Button, Card, EmptyState, IndexTable, Text } from "@shopify/polaris";
import { useId, useState } from "react";
import { useAnswerToast, type ActionAnswer } from "~/components/useAnswerToast";
import { useI18n } from "~/i18n/i18n-context";
import { customerLabel } from "./AlertLogCard";

export interface SuppressionEntryView {
  customerId: string;
  customerName: string | null;
  reason: "unsubscribed" | "bounced";
  detail: string | null;
  since: string;
}

const RESUBSCRIBE_MODAL = "resubscribe-customer";

/**
 * The customers who get no alert email, newest first: they unsubscribed, or their mail server refused their
 * address. Each may be taken off the list, behind a confirmation that says it must be the customer's wish.
 */
export function SuppressionListCard({
  entries,
  first,
  previousCursor,
  nextCursor,
  onNavigate,
}: {
  entries: SuppressionEntryView[];
  first: boolean;
  previousCursor: string | null;
  nextCursor: string | null;
  onNavigate: (changes: Record<string, string | null>) => void;
}) {
  const i18n = useI18n();
  const { t, dateTime } = i18n;
  const headingId = useId();
  const [confirming, setConfirming] = useState<SuppressionEntryView | null>(null);
  return (
    <Card padding="0">
      <section aria-labelledby={headingId}>
        <Box padding="400">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd" id={headingId}>
              {t("alerts.suppressed.title")}
            </Text>
            <Text as="p" tone="subdued">
              {t("alerts.suppressed.description")}
            </Text>
          </BlockStack>
        </Box>
        <IndexTable
          resourceName={{ singular: t("alerts.suppressed.singular"), plural: t("alerts.suppressed.plural") }}
          itemCount={entries.length}
          selectable={false}
          headings={[
            { title: t("alerts.log.column.customer") },
            { title: t("alerts.suppressed.column.reason") },
            { title: t("alerts.suppressed.column.since") },
            { title: t("webhook.attempt.actions"), alignment: "end" },
          ]}
          emptyState={
            <EmptyState
              heading={first ? t("alerts.suppressed.empty") : t("alerts.suppressed.noMore")}
              image="/favicon.svg"
            />
          }
          pagination={
            previousCursor || nextCursor
              ? {
                  hasPrevious: previousCursor !== null,
                  onPrevious: () => previousCursor && onNavigate({ suppressed: previousCursor }),
                  hasNext: nextCursor !== null,
                  onNext: () => nextCursor && onNavigate({ suppressed: nextCursor }),
                  accessibilityLabels: {
                    previous: t("alerts.suppressed.previousPage"),
                    next: t("alerts.suppressed.nextPage"),
                  },
                }
              : undefined
          }
        >
          {entries.map((entry, index) => (
            <IndexTable.Row id={entry.customerId} key={entry.customerId} position={index}>
              <IndexTable.Cell>
                <BlockStack gap="050">
                  <Text as="span">{customerLabel(entry, i18n)}</Text>
                  {entry.customerName ? (
                    <Text as="span" variant="bodySm" tone="subdued">
                      {t("lists.ownerId", { id: entry.customerId })}
                    </Text>
                  ) : null}
                </BlockStack>
              </IndexTable.Cell>
              <IndexTable.Cell>
                <div style={{ whiteSpace: "normal", overflowWrap: "anywhere", minWidth: "10rem" }}>
                  <BlockStack gap="050">
                    <Text as="span">{t(`alerts.suppressed.reason.${entry.reason}`)}</Text>
                    {entry.detail ? (
                      <Text as="span" variant="bodySm" tone="subdued">
                        {entry.detail}
                      </Text>
                    ) : null}
                  </BlockStack>
                </div>
              </IndexTable.Cell>
              <IndexTable.Cell>{dateTime(entry.since)}</IndexTable.Cell>
              <IndexTable.Cell>
                <Box>
                  <div style={{ display: "flex", justifyContent: "flex-end" }}>
                    <Button
                      variant="tertiary"
                      onClick={() => setConfirming(entry)}
                      accessibilityLabel={t("alerts.suppressed.resubscribeLabel", {
                        customer: customerLabel(entry, i18n),
                      })}
                    >
                      {t("alerts.suppressed.resubscribe")}
                    </Button>
                  </div>
                </Box>
              </IndexTable.Cell>
            </IndexTable.Row>
          ))}
        </IndexTable>
      </section>
      {/* Mounted only while open, as the Webhooks page's modals: a fresh fetcher for each customer. */}
      {confirming && <ResubscribeModal entry={confirming} onClose={() => setConfirming(null)} />}
    </Card>
  );
}

function ResubscribeModal({ entry, onClose }: { entry: SuppressionEntryView; onClose: () => void }) {
  const fetcher = useFetcher<ActionAnswer>();
  const i18n = useI18n();
  const { t } = i18n;
  useAnswerToast(fetcher, {
    done: t("alerts.suppressed.done"),
    failed: t("alerts.suppressed.failed"),
    onAnswer: (answer) => answer.ok && onClose(),
  });
  const confirm = () =>
    fetcher.submit({ intent: "resubscribe", customerId: entry.customerId }, { method: "post", action: "/app/alerts" });
  return (
    <Modal id={RESUBSCRIBE_MODAL} variant="small" open onHide={onClose}>
      <Box padding="400">
        <BlockStack gap="200">
          <Text as="p">{t("alerts.suppressed.confirmBody", { customer: customerLabel(entry, i18n) })}</Text>
          <Text as="p" fontWeight="semibold">
            {t("alerts.suppressed.confirmWord")}
          </Text>
        </BlockStack>
      </Box>
      <TitleBar title={t("alerts.suppressed.confirmTitle")}>
        <button variant="primary" onClick={confirm} disabled={fetcher.state !== "idle"}>
          {t("alerts.suppressed.confirm")}
        </button>
        <button onClick={onClose}>{t("webhooks.cancel")}</button>
      </TitleBar>
    </Modal>
  );
}
