import { Badge, BlockStack, Box, Card, EmptyState, IndexTable, InlineStack, Select, Text } from "@shopify/polaris";
import { useId } from "react";
import { useI18n } from "~/i18n/i18n-context";
import type { Translator } from "~/i18n/translate";

type Kind = "back_in_stock" | "price_dropped" | "low_stock" | "reminder";
const KINDS: Kind[] = ["back_in_stock", "price_dropped", "low_stock", "reminder"];
const STATES = ["pending", "sending", "sent", "skipped", "failed", "none"] as const;

export interface AlertLogEntryView {
  id: string;
  at: string;
  customerId: string;
  customerName: string | null;
  productId: string;
  productTitle: string | null;
  kind: Kind;
  channels: Array<"email" | "webhook" | "flow">;
  emailState: string | null;
  emailError: string | null;
  clickedAt: string | null;
}

export interface LogFilters {
  kind: string;
  state: string;
}

const STATE_TONES: Record<string, "success" | "critical" | "warning" | "info" | undefined> = {
  sent: "success",
  failed: "critical",
  skipped: "warning",
  sending: "info",
};

/** The email's state as the log names it; pending with an error is a message waiting to be tried again. */
function EmailState({ entry }: { entry: AlertLogEntryView }) {
  const { t } = useI18n();
  if (entry.emailState === null) return <Text as="span">{t("alerts.state.none")}</Text>;
  const known = (STATES as readonly string[]).includes(entry.emailState);
  return (
    <BlockStack gap="050">
      <span>
        <Badge tone={STATE_TONES[entry.emailState]}>
          {known ? t(`alerts.state.${entry.emailState as (typeof STATES)[number]}`) : entry.emailState}
        </Badge>
      </span>
      {entry.emailError && entry.emailState !== "sent" ? (
        <Text as="span" variant="bodySm" tone="subdued" breakWord>
          {entry.emailState === "pending" || entry.emailState === "sending"
            ? t("alerts.log.lastError", { error: entry.emailError })
            : entry.emailError}
        </Text>
      ) : null}
    </BlockStack>
  );
}

export const customerLabel = (
  entry: { customerId: string; customerName: string | null },
  { t }: Pick<Translator, "t">,
) => entry.customerName ?? t("lists.customer", { id: entry.customerId });

/** Index table cells keep their text on one line (Polaris): reasons and titles wrap instead. */
const WRAPPING_CELL = { whiteSpace: "normal", overflowWrap: "anywhere", minWidth: "8rem" } as const;

/**
 * The log of the shop's alerts, newest first, a page at a time: when, for whom, which product, which kind,
 * on which channels, what became of the email, and when it was clicked. Filtered by kind and email state.
 */
export function AlertLogCard({
  entries,
  filters,
  first,
  previousCursor,
  nextCursor,
  onNavigate,
}: {
  entries: AlertLogEntryView[];
  filters: LogFilters;
  first: boolean;
  previousCursor: string | null;
  nextCursor: string | null;
  onNavigate: (changes: Record<string, string | null>) => void;
}) {
  const i18n = useI18n();
  const { t, dateTime } = i18n;
  const headingId = useId();
  const filtered = filters.kind !== "" || filters.state !== "";
  return (
    <Card padding="0">
      <section aria-labelledby={headingId}>
        <Box padding="400">
          <BlockStack gap="300">
            <Text as="h2" variant="headingMd" id={headingId}>
              {t("alerts.log.title")}
            </Text>
            <InlineStack gap="400" wrap>
              <Select
                label={t("alerts.filter.kind")}
                options={[
                  { label: t("alerts.filter.all"), value: "" },
                  ...KINDS.map((kind) => ({ label: t(`alerts.kind.${kind}`), value: kind })),
                ]}
                value={filters.kind}
                onChange={(kind) => onNavigate({ kind, cursor: null })}
              />
              <Select
                label={t("alerts.filter.state")}
                options={[
                  { label: t("alerts.filter.all"), value: "" },
                  ...STATES.map((state) => ({ label: t(`alerts.state.${state}`), value: state })),
                ]}
                value={filters.state}
                onChange={(state) => onNavigate({ state, cursor: null })}
              />
            </InlineStack>
          </BlockStack>
        </Box>
        <IndexTable
          resourceName={{ singular: t("alerts.log.singular"), plural: t("alerts.log.plural") }}
          itemCount={entries.length}
          selectable={false}
          headings={[
            { title: t("alerts.log.column.time") },
            { title: t("alerts.log.column.customer") },
            { title: t("alerts.log.column.product") },
            { title: t("alerts.log.column.kind") },
            { title: t("alerts.log.column.channel") },
            { title: t("alerts.log.column.email") },
            { title: t("alerts.log.column.clicked") },
          ]}
          emptyState={
            <EmptyState
              heading={
                filtered ? t("alerts.log.filteredEmpty") : first ? t("alerts.log.empty") : t("alerts.log.noMore")
              }
              image="/favicon.svg"
            >
              <p>{t("alerts.log.emptyBody")}</p>
            </EmptyState>
          }
          pagination={
            previousCursor || nextCursor
              ? {
                  hasPrevious: previousCursor !== null,
                  onPrevious: () => previousCursor && onNavigate({ cursor: previousCursor }),
                  hasNext: nextCursor !== null,
                  onNext: () => nextCursor && onNavigate({ cursor: nextCursor }),
                  accessibilityLabels: { previous: t("alerts.log.previousPage"), next: t("alerts.log.nextPage") },
                }
              : undefined
          }
        >
          {entries.map((entry, index) => (
            <IndexTable.Row id={entry.id} key={entry.id} position={index}>
              <IndexTable.Cell>{dateTime(entry.at)}</IndexTable.Cell>
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
                <div style={WRAPPING_CELL}>
                  {entry.productTitle ?? t("alerts.log.product", { id: entry.productId })}
                </div>
              </IndexTable.Cell>
              <IndexTable.Cell>{t(`alerts.kind.${entry.kind}`)}</IndexTable.Cell>
              <IndexTable.Cell>
                {entry.channels.length === 0
                  ? t("alerts.channel.none")
                  : entry.channels.map((channel) => t(`alerts.channel.${channel}`)).join(", ")}
              </IndexTable.Cell>
              <IndexTable.Cell>
                <div style={WRAPPING_CELL}>
                  <EmailState entry={entry} />
                </div>
              </IndexTable.Cell>
              <IndexTable.Cell>{entry.clickedAt ? dateTime(entry.clickedAt) : "—"}</IndexTable.Cell>
            </IndexTable.Row>
          ))}
        </IndexTable>
      </section>
    </Card>
  );
}
