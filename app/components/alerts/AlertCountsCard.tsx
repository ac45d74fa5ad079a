import { DataTable, Text } from "@shopify/polaris";
import { LabelledCard } from "~/components/LabelledCard";
import { useI18n } from "~/i18n/i18n-context";

type Kind = "back_in_stock" | "price_dropped" | "low_stock" | "reminder";

export interface AlertCounts {
  days: readonly number[];
  made: Record<Kind, number[]>;
  sent: number[];
  clicks: number[];
  clickRate: Array<number | null>;
}

/**
 * The Alerts page's counts: alerts made by kind (reminders too), emails sent, clicks and the click rate, a column per window
 * (7, 30 and 90 days). Opens are not measured: the emails carry no tracking pixel.
 */
export function AlertCountsCard({ counts }: { counts: AlertCounts }) {
  const { t, plural, number, locale } = useI18n();
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
  const rows: Array<[string, string[]]> = [
    [t("alerts.counts.made.back_in_stock"), counts.made.back_in_stock.map(number)],
    [t("alerts.counts.made.price_dropped"), counts.made.price_dropped.map(number)],
    [t("alerts.counts.made.low_stock"), counts.made.low_stock.map(number)],
    [t("alerts.counts.made.reminder"), counts.made.reminder.map(number)],
    [t("alerts.counts.sent"), counts.sent.map(number)],
    [t("alerts.counts.clicks"), counts.clicks.map(number)],
    [t("alerts.counts.clickRate"), counts.clickRate.map((rate) => (rate === null ? "—" : percent.format(rate)))],
  ];
  return (
    <LabelledCard title={t("alerts.counts.title")}>
      <DataTable
        columnContentTypes={["text", ...counts.days.map(() => "numeric" as const)]}
        headings={[t("alerts.counts.measure"), ...counts.days.map((days) => plural("alerts.counts.window", days))]}
        rows={rows.map(([label, values]) => [label, ...values])}
      />
      <Text as="p" tone="subdued">
        {t("alerts.counts.help")}
      </Text>
    </LabelledCard>
  );
}
