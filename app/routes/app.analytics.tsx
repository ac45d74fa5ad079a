import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  Collapsible,
  DataTable,
  EmptyState,
  InlineStack,
  Layout,
  Page,
  Select,
  SkeletonBodyText,
  Text,
} from "@shopify/polaris";
import { useEffect, useId, useState } from "react";
// recharts is imported by the pages of charts only (this one and app.insights.tsx): Remix splits the client code
// per route, so no other page downloads it (checked on the built assets by tests/e2e/analytics.test.ts).
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { HeadingWithHint } from "~/components/CardHeadings";
import { FigureGrid } from "~/components/FigureGrid";
import { LabelledCard } from "~/components/LabelledCard";
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { activity, rangeSchema, topProducts } from "~/services/analytics/reports.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const asked = new URL(request.url).searchParams.get("range");
  const parsed = rangeSchema.safeParse(asked ?? "30d");
  const range = parsed.success ? parsed.data : "30d";
  const [report, top] = await Promise.all([activity({ shopId, range }), topProducts({ shopId, range })]);
  return {
    range,
    unknownRange: parsed.success ? null : asked,
    ...report,
    products: await withProductTitles({ shopDomain, rows: top.products }),
  };
};

const RANGES = ["7d", "30d", "90d"] as const;
/** The number of days a range ("30d") covers, for the page's sentences about it. */
const daysOf = (range: string) => Number.parseInt(range, 10);

type Day = ReturnType<typeof useLoaderData<typeof loader>>["days"][number];

const SERIES: ReadonlyArray<{
  key: "adds" | "removes" | "activeShoppers";
  title: MessageKey;
  column: MessageKey;
  colour: string;
}> = [
  { key: "adds", title: "analytics.series.saves", column: "analytics.saves", colour: "#2c6ecb" },
  { key: "removes", title: "analytics.series.removals", column: "analytics.removals", colour: "#c05717" },
  {
    key: "activeShoppers",
    title: "analytics.series.activeShoppers",
    column: "analytics.activeShoppers",
    colour: "#1f8a65",
  },
];

export default function Analytics() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [, setSearchParams] = useSearchParams();
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/analytics";
  const empty = data.totals.adds === 0 && data.totals.removes === 0 && data.products.length === 0;
  const { t } = useI18n();
  const days = daysOf(data.range);

  return (
    <Page>
      <TitleBar title={t("page.analytics")} />
      <BlockStack gap="500">
        {data.unknownRange !== null ? (
          <Banner tone="warning" title={t("analytics.unknownRange.title")}>
            <p>{t("analytics.unknownRange.body", { range: data.unknownRange, days: daysOf("30d") })}</p>
          </Banner>
        ) : null}
        <Card>
          <InlineStack align="space-between" blockAlign="end" gap="400">
            <HeadingWithHint title={t("analytics.activity")}>
              {t("analytics.period", { from: data.from, to: data.to })}
            </HeadingWithHint>
            <Select
              label={t("analytics.dateRange")}
              options={RANGES.map((range) => ({ label: t("analytics.range", { days: daysOf(range) }), value: range }))}
              value={data.range}
              onChange={(value) =>
                setSearchParams((params) => {
                  params.set("range", value);
                  return params;
                })
              }
            />
          </InlineStack>
        </Card>
        {loading ? (
          <Card>
            <BlockStack gap="200">
              <Text as="p" tone="subdued">
                {t("analytics.loading")}
              </Text>
              <SkeletonBodyText lines={8} />
            </BlockStack>
          </Card>
        ) : empty ? (
          <Card>
            <EmptyState heading={t("analytics.empty.heading", { days })} image="/favicon.svg">
              <p>{t("analytics.empty.body")}</p>
            </EmptyState>
          </Card>
        ) : (
          <Layout>
            <Layout.Section>
              <Totals />
            </Layout.Section>
            {SERIES.map((series, index) => (
              <Layout.Section key={series.key} variant={index === 0 ? "fullWidth" : "oneHalf"}>
                <DailyChart series={series} days={data.days} />
              </Layout.Section>
            ))}
            <Layout.Section>
              <TopProducts />
            </Layout.Section>
            <Layout.Section>
              <Downloads />
            </Layout.Section>
          </Layout>
        )}
      </BlockStack>
    </Page>
  );
}

function Totals() {
  const { totals } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  return (
    <LabelledCard title={t("analytics.totals")}>
      <FigureGrid
        figures={[
          { label: t("analytics.saves"), value: totals.adds },
          { label: t("analytics.removals"), value: totals.removes },
          { label: t("analytics.activeShoppers"), value: totals.activeShoppers },
        ]}
      />
    </LabelledCard>
  );
}

/** Charts measure the browser's layout: drawn once mounted, with the same empty box on the server. */
function useMounted() {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

function DailyChart({ series, days }: { series: (typeof SERIES)[number]; days: Day[] }) {
  const { t, number } = useI18n();
  const mounted = useMounted();
  const [tableOpen, setTableOpen] = useState(false);
  const tableId = useId();
  const total = days.reduce((sum, day) => sum + day[series.key], 0);
  const peak = Math.max(...days.map((day) => day[series.key]));
  return (
    <LabelledCard title={t(series.title)}>
      <div style={{ height: 240 }} data-chart={series.key}>
        {mounted ? (
          <LineChart
            responsive
            style={{ width: "100%", height: 240 }}
            data={days}
            margin={{ top: 8, right: 16, bottom: 8, left: 0 }}
            accessibilityLayer={false}
            role="img"
            title={t("analytics.chart.title", { series: t(series.title), count: days.length })}
            desc={t("analytics.chart.description", { column: t(series.column), total, peak })}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} minTickGap={24} />
            {/* Whole numbers up to the peak: a peak of 1 draws 0 and 1, not 0 to 4. */}
            <YAxis
              allowDecimals={false}
              width={40}
              domain={[0, Math.max(peak, 1)]}
              tickCount={Math.max(1, Math.min(peak, 4)) + 1}
            />
            <Tooltip />
            <Line
              type="linear"
              dataKey={series.key}
              name={t(series.column)}
              stroke={series.colour}
              strokeWidth={2}
              dot={{ r: 2 }}
              isAnimationActive={false}
            />
          </LineChart>
        ) : null}
      </div>
      <InlineStack>
        <Button
          variant="plain"
          disclosure={tableOpen ? "up" : "down"}
          ariaExpanded={tableOpen}
          ariaControls={tableId}
          onClick={() => setTableOpen((open) => !open)}
        >
          {tableOpen ? t("analytics.table.hide") : t("analytics.table.show")}
        </Button>
      </InlineStack>
      <Collapsible id={tableId} open={tableOpen}>
        <DataTable
          columnContentTypes={["text", "numeric"]}
          headings={[t("analytics.table.date"), t(series.column)]}
          rows={days.map((day) => [day.date, number(day[series.key])])}
        />
      </Collapsible>
    </LabelledCard>
  );
}

function TopProducts() {
  const { products } = useLoaderData<typeof loader>();
  const { t, number } = useI18n();
  return (
    <LabelledCard title={t("analytics.top.heading")}>
      {products.length === 0 ? (
        <Text as="p" tone="subdued">
          {t("analytics.top.none")}
        </Text>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric", "numeric", "numeric"]}
          headings={[
            t("analytics.top.product"),
            t("analytics.top.handle"),
            t("analytics.saves"),
            t("analytics.removals"),
            t("analytics.top.savers"),
          ]}
          rows={products.map((product) => [
            product.title,
            product.handle ?? "",
            number(product.saves),
            number(product.removes),
            number(product.savers),
          ])}
        />
      )}
    </LabelledCard>
  );
}

function Downloads() {
  const { range, from, to } = useLoaderData<typeof loader>();
  const shopify = useAppBridge();
  const { t } = useI18n();
  const [busy, setBusy] = useState<string | null>(null);
  const download = async (report: "activity" | "products") => {
    setBusy(report);
    try {
      // A fetch, not a link: App Bridge adds the session token to the app's own fetches only.
      const response = await fetch(`/app/analytics/csv?range=${range}&report=${report}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement("a");
      link.href = url;
      link.download = `wishlist-${report === "activity" ? "activity" : "top-products"}-${from}-to-${to}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch {
      shopify.toast.show(t("analytics.download.failed"), { isError: true });
    } finally {
      setBusy(null);
    }
  };
  return (
    <LabelledCard title={t("analytics.download.heading")}>
      <Text as="p">{t("analytics.download.body", { days: daysOf(range) })}</Text>
      <InlineStack gap="200">
        <Button onClick={() => download("activity")} loading={busy === "activity"}>
          {t("analytics.download.activity")}
        </Button>
        <Button onClick={() => download("products")} loading={busy === "products"}>
          {t("analytics.download.products")}
        </Button>
      </InlineStack>
    </LabelledCard>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.analytics", "analytics.error");
