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
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  Select,
  SkeletonBodyText,
  Text,
} from "@shopify/polaris";
import { useEffect, useId, useState } from "react";
// recharts is imported here and nowhere else: Remix splits the client code per route, so no other page
// downloads it (checked on the built assets by tests/e2e/analytics.test.ts).
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { LabelledCard } from "~/components/LabelledCard";
import { PageError } from "~/components/PageError";
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

const RANGE_OPTIONS = [
  { label: "Last 7 days", value: "7d" },
  { label: "Last 30 days", value: "30d" },
  { label: "Last 90 days", value: "90d" },
];

type Day = ReturnType<typeof useLoaderData<typeof loader>>["days"][number];

const SERIES = [
  { key: "adds", title: "Saves per day", column: "Saves", colour: "#2c6ecb" },
  { key: "removes", title: "Removals per day", column: "Removals", colour: "#c05717" },
  { key: "activeShoppers", title: "Active shoppers per day", column: "Active shoppers", colour: "#1f8a65" },
] as const;

export default function Analytics() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [, setSearchParams] = useSearchParams();
  const loading = navigation.state === "loading" && navigation.location.pathname === "/app/analytics";
  const empty = data.totals.adds === 0 && data.totals.removes === 0 && data.products.length === 0;
  const rangeLabel = RANGE_OPTIONS.find((option) => option.value === data.range)!.label.toLowerCase();

  return (
    <Page>
      <TitleBar title="Analytics" />
      <BlockStack gap="500">
        {data.unknownRange !== null ? (
          <Banner tone="warning" title="Unknown date range">
            <p>{`"${data.unknownRange}" is not a range this page offers; it shows the last 30 days.`}</p>
          </Banner>
        ) : null}
        <Card>
          <InlineStack align="space-between" blockAlign="end" gap="400">
            <BlockStack gap="100">
              <Text as="h2" variant="headingMd">
                Wishlist activity
              </Text>
              <Text as="p" tone="subdued">
                {`${data.from} to ${data.to} (UTC days)`}
              </Text>
            </BlockStack>
            <Select
              label="Date range"
              options={RANGE_OPTIONS}
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
                Loading…
              </Text>
              <SkeletonBodyText lines={8} />
            </BlockStack>
          </Card>
        ) : empty ? (
          <Card>
            <EmptyState heading={`No wishlist activity in the ${rangeLabel}`} image="/favicon.svg">
              <p>Saves and removals show here by day once shoppers use their wishlists.</p>
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
  const figures = [
    { label: "Saves", value: totals.adds },
    { label: "Removals", value: totals.removes },
    { label: "Active shoppers", value: totals.activeShoppers },
  ];
  return (
    <LabelledCard title="Totals">
      <InlineGrid columns={{ xs: 1, sm: 3 }} gap="400">
        {figures.map((figure) => (
          <BlockStack key={figure.label} gap="100">
            <Text as="p" tone="subdued">
              {figure.label}
            </Text>
            <Text as="p" variant="headingXl">
              {figure.value.toLocaleString("en-US")}
            </Text>
          </BlockStack>
        ))}
      </InlineGrid>
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
  const mounted = useMounted();
  const [tableOpen, setTableOpen] = useState(false);
  const tableId = useId();
  const total = days.reduce((sum, day) => sum + day[series.key], 0);
  const peak = Math.max(...days.map((day) => day[series.key]));
  return (
    <LabelledCard title={series.title}>
      <div style={{ height: 240 }} data-chart={series.key}>
        {mounted ? (
          <LineChart
            responsive
            style={{ width: "100%", height: 240 }}
            data={days}
            margin={{ top: 8, right: 16, bottom: 8, left: 0 }}
            accessibilityLayer={false}
            role="img"
            title={`${series.title}, ${days.length} days`}
            desc={`${series.column}: ${total} in all, at most ${peak} on one day. The data table below lists every day.`}
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
              name={series.column}
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
          {tableOpen ? "Hide data table" : "Show data table"}
        </Button>
      </InlineStack>
      <Collapsible id={tableId} open={tableOpen}>
        <DataTable
          columnContentTypes={["text", "numeric"]}
          headings={["Date", series.column]}
          rows={days.map((day) => [day.date, day[series.key]])}
        />
      </Collapsible>
    </LabelledCard>
  );
}

function TopProducts() {
  const { products } = useLoaderData<typeof loader>();
  return (
    <LabelledCard title="Most saved products">
      {products.length === 0 ? (
        <Text as="p" tone="subdued">
          No product was saved in this range.
        </Text>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric", "numeric", "numeric"]}
          headings={["Product", "Handle", "Saves", "Removals", "Current savers"]}
          rows={products.map((product) => [
            product.title,
            product.handle ?? "",
            product.saves,
            product.removes,
            product.savers,
          ])}
        />
      )}
    </LabelledCard>
  );
}

function Downloads() {
  const { range, from, to } = useLoaderData<typeof loader>();
  const shopify = useAppBridge();
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
      shopify.toast.show("The download failed. Try again.", { isError: true });
    } finally {
      setBusy(null);
    }
  };
  return (
    <LabelledCard title="Download">
      <Text as="p">
        The figures of this page for the {range === "7d" ? "7" : range === "30d" ? "30" : "90"} days shown, as CSV
        files.
      </Text>
      <InlineStack gap="200">
        <Button onClick={() => download("activity")} loading={busy === "activity"}>
          Daily activity (CSV)
        </Button>
        <Button onClick={() => download("products")} loading={busy === "products"}>
          Most saved products (CSV)
        </Button>
      </InlineStack>
    </LabelledCard>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Analytics" title="The analytics could not be shown" />;
}
