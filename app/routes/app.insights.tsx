import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  Collapsible,
  DataTable,
  EmptyState,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  Select,
  SkeletonBodyText,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useId, useState, type ReactNode } from "react";
// recharts is imported by the analytics pages only (this one and app.analytics.tsx): Remix splits the client
// code per route, so no other page downloads it (checked on the built assets by tests/e2e/analytics.test.ts).
import { Bar, BarChart, CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readInsightsRange } from "~/admin/insights-range.server";
import { PRESET_DAYS, RANGE_CHOICES, type FieldError, type RangeChoice } from "~/admin/insights-ranges";
import { HeadingWithHint } from "~/components/CardHeadings";
import { LabelledCard } from "~/components/LabelledCard";
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
import { currencyDigits, formatMoney } from "~/lib/money";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { hasFeature } from "~/services/plans/entitlements.server";
import {
  conversionReport,
  demandReport,
  MAX_RANGE_DAYS,
  type SOURCES,
} from "~/services/attribution/revenue-reports.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const asked = readInsightsRange(new URL(request.url).searchParams);
  // The demand insights are a plan's feature: on a plan without them the section says which plan has them,
  // and the rest of the page is as on any plan.
  const demandIncluded = await hasFeature(shopId, "demandInsights");
  const [report, demand] = await Promise.all([
    conversionReport(shopId, asked.range),
    demandIncluded ? demandReport(shopId, asked.range) : null,
  ]);
  const [topProducts, rarelyBought, restock] = await Promise.all([
    withProductTitles({ shopDomain, rows: report.topProducts }),
    demand ? withProductTitles({ shopDomain, rows: demand.rarelyBought }) : [],
    demand ? withProductTitles({ shopDomain, rows: demand.restock }) : [],
  ]);
  return {
    ...asked,
    maxDays: MAX_RANGE_DAYS,
    report: { ...report, topProducts },
    demand: demand ? { ...demand, rarelyBought, restock } : null,
  };
};

/** The report's sources: "none" (no link followed), then each alert kind and the reminder. */
type Source = "none" | (typeof SOURCES)[number];

const SOURCE_LABELS: Record<Source, MessageKey> = {
  none: "insights.source.none",
  back_in_stock: "insights.source.back_in_stock",
  price_dropped: "insights.source.price_dropped",
  low_stock: "insights.source.low_stock",
  reminder: "insights.source.reminder",
};
const sourceLabel = (source: string): MessageKey => SOURCE_LABELS[source as Source] ?? "insights.source.none";

/** Money in the admin's language, from minor units. */
function useMoney() {
  const { locale } = useI18n();
  return (minor: number, currency: string) => formatMoney(minor, currency, locale);
}

/** Charts measure the browser's layout: drawn once mounted, with the same empty box on the server. */
function useMounted() {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

/** A chart's axis reads major units (a float is fine for drawing); the tables and tooltips show the exact amount. */
const majorUnits = (minor: number, currency: string) => minor / 10 ** currencyDigits(currency);

export default function Insights() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const { t } = useI18n();
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/insights";
  const { report } = data;
  const empty = report.lines === 0 && report.orders.placed === 0;

  return (
    <Page>
      <TitleBar title={t("page.insights")} />
      <BlockStack gap="500">
        {data.unknownRange !== null ? (
          <Banner tone="warning" title={t("analytics.unknownRange.title")}>
            <p>{t("analytics.unknownRange.body", { range: data.unknownRange, days: PRESET_DAYS["30d"] })}</p>
          </Banner>
        ) : null}
        <RangePicker />
        {loading ? (
          <Card>
            <BlockStack gap="200">
              <Text as="p" tone="subdued">
                {t("analytics.loading")}
              </Text>
              <SkeletonBodyText lines={8} />
            </BlockStack>
          </Card>
        ) : (
          <Layout>
            {empty ? (
              <Layout.Section>
                <HowAttributionWorks />
              </Layout.Section>
            ) : (
              <>
                <Layout.Section>
                  <InlineGrid columns={{ xs: 1, md: 2 }} gap="400">
                    <RevenueCard />
                    <ConversionRateCard />
                    <OrdersCard />
                    <MedianCard />
                  </InlineGrid>
                </Layout.Section>
                <Layout.Section>
                  <DailyRevenue />
                </Layout.Section>
                <Layout.Section>
                  <RevenueBySource />
                </Layout.Section>
                <Layout.Section>
                  <TopConverting />
                </Layout.Section>
              </>
            )}
            <Layout.Section>
              <Text as="h2" variant="headingLg">
                {t("insights.demand.heading")}
              </Text>
            </Layout.Section>
            {data.demand ? (
              <>
                <Layout.Section>
                  <RarelyBought demand={data.demand} />
                </Layout.Section>
                <Layout.Section>
                  <Restock demand={data.demand} />
                </Layout.Section>
              </>
            ) : (
              <Layout.Section>
                <DemandLocked />
              </Layout.Section>
            )}
            {empty ? null : (
              <Layout.Section>
                <Downloads demandIncluded={data.demand !== null} />
              </Layout.Section>
            )}
          </Layout>
        )}
      </BlockStack>
    </Page>
  );
}

function fieldError(error: FieldError | undefined, t: (key: MessageKey, values?: FieldError["values"]) => string) {
  return error ? t(error.key, error.values) : undefined;
}

/** 7, 30 or 90 days, or two dates; the choice is in the address, so a reload or a shared link keeps it. */
function RangePicker() {
  const data = useLoaderData<typeof loader>();
  const [, setSearchParams] = useSearchParams();
  const { t } = useI18n();
  const [choice, setChoice] = useState<RangeChoice>(data.choice);
  const [from, setFrom] = useState(data.from);
  const [to, setTo] = useState(data.to);
  // A new answer (another range applied, or the browser's back button) resets the fields to what it shows.
  useEffect(() => {
    setChoice(data.choice);
    setFrom(data.from);
    setTo(data.to);
  }, [data.choice, data.from, data.to]);

  const choose = (value: string) => {
    const next = value as RangeChoice;
    setChoice(next);
    if (next === "custom") return;
    setSearchParams((params) => {
      params.set("range", next);
      params.delete("from");
      params.delete("to");
      return params;
    });
  };
  const apply = () =>
    setSearchParams((params) => {
      params.set("range", "custom");
      params.set("from", from);
      params.set("to", to);
      return params;
    });
  const refused = data.choice === "custom" && (data.errors.from || data.errors.to);

  return (
    <Card>
      <BlockStack gap="400">
        <InlineStack align="space-between" blockAlign="end" gap="400">
          <HeadingWithHint title={t("insights.heading")}>
            {t("analytics.period", { from: data.range.from, to: data.range.to })}
          </HeadingWithHint>
          <Select
            label={t("analytics.dateRange")}
            options={RANGE_CHOICES.map((value) => ({
              label:
                value === "custom" ? t("insights.range.custom") : t("analytics.range", { days: PRESET_DAYS[value] }),
              value,
            }))}
            value={choice}
            onChange={choose}
          />
        </InlineStack>
        {choice === "custom" ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              apply();
            }}
          >
            <InlineStack gap="400" blockAlign="end">
              <TextField
                label={t("insights.custom.from")}
                type="date"
                autoComplete="off"
                value={from}
                onChange={setFrom}
                error={fieldError(data.errors.from, t)}
              />
              <TextField
                label={t("insights.custom.to")}
                type="date"
                autoComplete="off"
                value={to}
                onChange={setTo}
                error={fieldError(data.errors.to, t)}
              />
              <Button submit>{t("insights.custom.apply")}</Button>
            </InlineStack>
            <Box paddingBlockStart="200">
              <Text as="p" tone="subdued">
                {t("insights.custom.help", { days: data.maxDays })}
              </Text>
            </Box>
          </form>
        ) : null}
        {refused ? (
          <Banner tone="warning" title={t("insights.custom.refusedTitle")}>
            <p>{t("insights.custom.refusedBody", { days: PRESET_DAYS["30d"] })}</p>
          </Banner>
        ) : null}
      </BlockStack>
    </Card>
  );
}

/** The empty state: no order matched a save in these days, and how orders come to be matched. */
function HowAttributionWorks() {
  const { t } = useI18n();
  return (
    <Card>
      <EmptyState heading={t("insights.empty.heading")} image="/favicon.svg">
        <BlockStack gap="200">
          <p>{t("insights.empty.matching")}</p>
          <p>{t("insights.empty.guests")}</p>
          <p>{t("insights.empty.refunds")}</p>
        </BlockStack>
      </EmptyState>
    </Card>
  );
}

/** A headline figure with what it means under it. */
function Figure({ title, value, children }: { title: string; value: ReactNode; children: ReactNode }) {
  return (
    <LabelledCard title={title}>
      <BlockStack gap="200">
        <Text as="p" variant="headingXl">
          {value}
        </Text>
        <Text as="p" tone="subdued">
          {children}
        </Text>
      </BlockStack>
    </LabelledCard>
  );
}

function RevenueCard() {
  const { report } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  const money = useMoney();
  const [main, ...others] = report.revenue;
  return (
    <LabelledCard title={t("insights.revenue.heading")}>
      <BlockStack gap="200">
        <Text as="p" variant="headingXl">
          {main ? money(main.netMinor, main.currency) : "—"}
        </Text>
        {others.map((entry) => (
          <Text as="p" variant="headingMd" key={entry.currency}>
            {money(entry.netMinor, entry.currency)}
          </Text>
        ))}
        <Text as="p" tone="subdued">
          {report.revenue
            .map((entry) =>
              t("insights.revenue.detail", {
                gross: money(entry.grossMinor, entry.currency),
                refunded: money(entry.refundedMinor, entry.currency),
              }),
            )
            .join(" ")}
        </Text>
        <Text as="p" tone="subdued">
          {t("insights.revenue.help")}
        </Text>
      </BlockStack>
    </LabelledCard>
  );
}

function OrdersCard() {
  const { report } = useLoaderData<typeof loader>();
  const { t, number } = useI18n();
  return (
    <Figure title={t("insights.orders.heading")} value={number(report.orders.net)}>
      {t("insights.orders.help", {
        placed: report.orders.placed,
        cancelled: report.orders.cancelled,
        items: report.lines,
      })}
    </Figure>
  );
}

function ConversionRateCard() {
  const { report } = useLoaderData<typeof loader>();
  const { t, locale } = useI18n();
  const rate =
    report.conversionRate === null
      ? "—"
      : new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(report.conversionRate);
  return (
    <Figure title={t("insights.rate.heading")} value={rate}>
      {t("insights.rate.help", { buyers: report.buyers, savers: report.savers })}
    </Figure>
  );
}

function MedianCard() {
  const { report } = useLoaderData<typeof loader>();
  const { t, plural } = useI18n();
  const median = report.medianDaysToPurchase;
  return (
    <Figure
      title={t("insights.median.heading")}
      value={median === null ? "—" : plural("insights.median.value", median)}
    >
      {t("insights.median.help")}
    </Figure>
  );
}

/** A chart's data table, opened by its disclosure button (the table is the chart's figures, every one). */
function ChartTable({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <InlineStack>
        <Button
          variant="plain"
          disclosure={open ? "up" : "down"}
          ariaExpanded={open}
          ariaControls={id}
          onClick={() => setOpen((value) => !value)}
        >
          {open ? t("analytics.table.hide") : t("analytics.table.show")}
        </Button>
      </InlineStack>
      <Collapsible id={id} open={open}>
        {children}
      </Collapsible>
    </>
  );
}

function DailyRevenue() {
  const { report } = useLoaderData<typeof loader>();
  const { t, number } = useI18n();
  const money = useMoney();
  const mounted = useMounted();
  const currency = report.currency!;
  const total = report.days.reduce((sum, day) => sum + day.netMinor, 0);
  const peak = Math.max(...report.days.map((day) => day.netMinor));
  const points = report.days.map((day) => ({ ...day, net: majorUnits(day.netMinor, currency) }));
  const title = t("insights.daily.heading", { currency });
  return (
    <LabelledCard title={title}>
      <div style={{ height: 240 }} data-chart="daily-revenue">
        {mounted ? (
          <LineChart
            responsive
            style={{ width: "100%", height: 240 }}
            data={points}
            margin={{ top: 8, right: 16, bottom: 8, left: 8 }}
            accessibilityLayer={false}
            role="img"
            title={t("analytics.chart.title", { series: title, count: report.days.length })}
            desc={t("insights.daily.description", { total: money(total, currency), peak: money(peak, currency) })}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} minTickGap={24} />
            <YAxis width={64} />
            <Tooltip
              formatter={(_value, _name, item) => money((item.payload as { netMinor: number }).netMinor, currency)}
            />
            <Line
              type="linear"
              dataKey="net"
              name={t("insights.daily.net")}
              stroke="#1f8a65"
              strokeWidth={2}
              dot={{ r: 2 }}
              isAnimationActive={false}
            />
          </LineChart>
        ) : null}
      </div>
      <ChartTable>
        <DataTable
          columnContentTypes={["text", "numeric", "numeric"]}
          headings={[t("analytics.table.date"), t("insights.daily.net"), t("insights.daily.orders")]}
          rows={report.days.map((day) => [day.date, money(day.netMinor, currency), number(day.orders)])}
        />
      </ChartTable>
    </LabelledCard>
  );
}

function RevenueBySource() {
  const { report } = useLoaderData<typeof loader>();
  const { t, number } = useI18n();
  const money = useMoney();
  const mounted = useMounted();
  const currency = report.currency!;
  const main = report.bySource.filter((row) => row.currency === currency);
  const rows = report.bySource.filter((row) => row.currency === currency || row.lines > 0);
  const bars = main.map((row) => ({
    ...row,
    label: t(sourceLabel(row.source)),
    net: majorUnits(row.netMinor, currency),
  }));
  const title = t("insights.sources.heading");
  return (
    <LabelledCard title={title}>
      <Text as="p" tone="subdued">
        {t("insights.sources.help")}
      </Text>
      <InlineGrid columns={{ xs: 1, lg: 2 }} gap="400">
        <div style={{ height: 260 }} data-chart="revenue-by-source">
          {mounted ? (
            <BarChart
              responsive
              style={{ width: "100%", height: 260 }}
              data={bars}
              layout="vertical"
              margin={{ top: 8, right: 16, bottom: 8, left: 8 }}
              accessibilityLayer={false}
              role="img"
              title={t("insights.sources.chartTitle", { currency })}
              desc={t("insights.sources.description")}
            >
              <CartesianGrid strokeDasharray="3 3" horizontal={false} />
              <XAxis type="number" />
              <YAxis type="category" dataKey="label" width={150} />
              <Tooltip
                formatter={(_value, _name, item) => money((item.payload as { netMinor: number }).netMinor, currency)}
              />
              <Bar dataKey="net" name={t("insights.daily.net")} fill="#2c6ecb" isAnimationActive={false} />
            </BarChart>
          ) : null}
        </div>
        <DataTable
          columnContentTypes={["text", "numeric", "numeric"]}
          headings={[t("insights.sources.kind"), t("insights.daily.net"), t("insights.sources.items")]}
          rows={rows.map((row) => [t(sourceLabel(row.source)), money(row.netMinor, row.currency), number(row.lines)])}
        />
      </InlineGrid>
    </LabelledCard>
  );
}

function TopConverting() {
  const { report } = useLoaderData<typeof loader>();
  const { t, number } = useI18n();
  const money = useMoney();
  return (
    <LabelledCard title={t("insights.top.heading")}>
      <DataTable
        columnContentTypes={["text", "text", "numeric", "numeric", "numeric"]}
        headings={[
          t("analytics.top.product"),
          t("analytics.top.handle"),
          t("insights.sources.items"),
          t("insights.top.quantity"),
          t("insights.daily.net"),
        ]}
        rows={report.topProducts.map((product) => [
          product.title,
          product.handle ?? "",
          number(product.lines),
          number(product.quantity),
          money(product.netMinor, product.currency),
        ])}
      />
    </LabelledCard>
  );
}

type Demand = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["demand"]>;

/** Where the demand insights would be, on a plan without them: what they show and where to get them. */
function DemandLocked() {
  const { t } = useI18n();
  return (
    <Banner
      tone="info"
      title={t("insights.demandLocked.title")}
      action={{ content: t("insights.demandLocked.action"), url: "/app/plan" }}
    >
      <Text as="p">{t("insights.demandLocked.body")}</Text>
    </Banner>
  );
}

function RarelyBought({ demand }: { demand: Demand }) {
  const { t, number, locale } = useI18n();
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
  return (
    <LabelledCard title={t("insights.rarely.heading")}>
      <Text as="p" tone="subdued">
        {t("insights.rarely.help", { rate: percent.format(0.1) })}
      </Text>
      {demand.rarelyBought.length === 0 ? (
        <Text as="p">{t("insights.rarely.none")}</Text>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric", "numeric", "numeric", "numeric"]}
          headings={[
            t("analytics.top.product"),
            t("analytics.top.handle"),
            t("analytics.saves"),
            t("insights.rarely.purchases"),
            t("insights.rarely.rate"),
            t("analytics.top.savers"),
          ]}
          rows={demand.rarelyBought.map((product) => [
            product.title,
            product.handle ?? "",
            number(product.saves),
            number(product.purchases),
            percent.format(product.purchaseRate),
            number(product.savers),
          ])}
        />
      )}
    </LabelledCard>
  );
}

function Restock({ demand }: { demand: Demand }) {
  const { t, number } = useI18n();
  return (
    <LabelledCard
      title={t("insights.restock.heading")}
      action={
        demand.restock.length > 0 ? (
          <DownloadButton report="restock">{t("insights.download.restock")}</DownloadButton>
        ) : null
      }
    >
      <Text as="p" tone="subdued">
        {t("insights.restock.help")}
      </Text>
      {demand.restock.length === 0 ? (
        <Text as="p">{t("insights.restock.none")}</Text>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric", "numeric"]}
          headings={[
            t("analytics.top.product"),
            t("insights.restock.variant"),
            t("insights.restock.stock"),
            t("insights.restock.waiting"),
          ]}
          rows={demand.restock.map((row) => [
            row.title,
            row.variantTitle ?? "",
            row.inventoryQuantity === null ? t("insights.restock.untracked") : number(row.inventoryQuantity),
            number(row.waiting),
          ])}
        />
      )}
    </LabelledCard>
  );
}

const DOWNLOADS = ["revenue", "sources", "products", "rarely-bought"] as const;
type Report = (typeof DOWNLOADS)[number] | "restock";
const DOWNLOAD_LABELS: Record<(typeof DOWNLOADS)[number], MessageKey> = {
  revenue: "insights.download.revenue",
  sources: "insights.download.sources",
  products: "insights.download.products",
  "rarely-bought": "insights.download.rarelyBought",
};

/** A download of one of the page's tables, for the days shown. */
function DownloadButton({ report, children }: { report: Report; children: string }) {
  const { range } = useLoaderData<typeof loader>();
  const shopify = useAppBridge();
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      // The days shown, named as days: the file holds what the page shows, even past midnight (UTC) or when a
      // refused custom range left the page on the last 30 days.
      const query = new URLSearchParams({ range: "custom", from: range.from, to: range.to, report });
      // A fetch, not a link: App Bridge adds the session token to the app's own fetches only.
      const response = await fetch(`/app/insights/csv?${query}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1];
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement("a");
      link.href = url;
      link.download = name ?? `wishlist-${report}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch {
      shopify.toast.show(t("analytics.download.failed"), { isError: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button onClick={download} loading={busy}>
      {children}
    </Button>
  );
}

function Downloads({ demandIncluded }: { demandIncluded: boolean }) {
  const { t } = useI18n();
  return (
    <LabelledCard title={t("analytics.download.heading")}>
      <Text as="p">{t("insights.download.body")}</Text>
      <InlineStack gap="200">
        {DOWNLOADS.filter((report) => demandIncluded || report !== "rarely-bought").map((report) => (
          <DownloadButton key={report} report={report}>
            {t(DOWNLOAD_LABELS[report])}
          </DownloadButton>
        ))}
      </InlineStack>
    </LabelledCard>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.insights", "insights.error");
