import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  DataTable,
  EmptyState,
  InlineStack,
  Layout,
  Page,
  SkeletonBodyText,
  SkeletonDisplayText,
  SkeletonPage,
  Text,
} from "@shopify/polaris";
import type { ReactNode } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { formFailure, readForm, runForm } from "~/admin/forms.server";
import { HeadingWithHint } from "~/components/CardHeadings";
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { FigureGrid } from "~/components/FigureGrid";
import { LabelledCard } from "~/components/LabelledCard";
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
import { monthToDate } from "~/admin/insights-range.server";
import { DomainError } from "~/lib/domain-error";
import { formatMoney } from "~/lib/money";
import { toTimestamp } from "~/lib/time";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { activity, topProducts } from "~/services/analytics/reports.server";
import { conversionReport } from "~/services/attribution/revenue-reports.server";
import {
  embedActivationAdminLink,
  getEmbedStatusOrReason,
  type EmbedState,
} from "~/services/shops/embed-status.server";
import { confirmSharePage, getSetupGuide } from "~/services/shops/setup-guide.server";
import { getShopOverview } from "~/services/shops/shops.server";
import { listEndpoints } from "~/services/webhooks/endpoints.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const month = monthToDate();
  const [guide, embed, overview, recent, top, endpoints, sales] = await Promise.all([
    getSetupGuide({ shopId }),
    getEmbedStatusOrReason({ shopDomain }),
    getShopOverview({ shopId }),
    activity({ shopId, range: "30d" }),
    topProducts({ shopId, range: "30d", limit: 5 }),
    listEndpoints({ shopId }),
    // The month's influenced revenue, from the Insights page's own report: the two pages always agree.
    conversionReport(shopId, month),
  ]);
  return {
    shopDomain,
    guide,
    embed: { state: embed.status?.state ?? null, unavailable: embed.unavailable, link: embedActivationAdminLink() },
    usage: { lists: overview.usage.lists, items: overview.usage.items, saves: recent.totals.adds },
    /** Net, per currency (the main one first), for this month so far (UTC days). */
    monthRevenue: {
      from: month.from,
      to: month.to,
      revenue: sales.revenue.map(({ currency, netMinor }) => ({ currency, netMinor })),
    },
    topProducts: await withProductTitles({ shopDomain, rows: top.products }),
    disabledEndpoints: endpoints
      .filter((endpoint) => endpoint.disabledAt !== null)
      .map((endpoint) => ({ id: endpoint.id, url: endpoint.url, disabledAt: toTimestamp(endpoint.disabledAt!) })),
  };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const form = await readForm(request);
  if (form.get("intent") !== "confirm-share-page") return formFailure(new DomainError("invalid", "Unknown action."));
  return runForm(async () => {
    await confirmSharePage({ shopId });
    return { ok: true as const };
  });
};

const EMBED_BADGES: Record<EmbedState, { label: MessageKey; tone: "success" | "warning" | "attention" | "critical" }> =
  {
    enabled: { label: "home.embed.enabled", tone: "success" },
    disabled: { label: "home.embed.disabled", tone: "warning" },
    not_added: { label: "home.embed.notAdded", tone: "attention" },
    no_main_theme: { label: "home.embed.noMainTheme", tone: "critical" },
  };

export default function Home() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const { t } = useI18n();
  if (navigation.state === "loading" && navigation.location.pathname === "/app") return <HomeSkeleton />;
  return (
    <Page>
      <TitleBar title={t("page.home")} />
      <BlockStack gap="500">
        <DisabledEndpointsBanner endpoints={data.disabledEndpoints} />
        <Layout>
          <Layout.Section>
            <SetupGuide />
          </Layout.Section>
          <Layout.Section>
            <Usage />
          </Layout.Section>
          <Layout.Section>
            <TopProducts />
          </Layout.Section>
        </Layout>
      </BlockStack>
    </Page>
  );
}

function SetupGuide() {
  const { guide, embed, shopDomain } = useLoaderData<typeof loader>();
  const confirm = useFetcher<typeof action>();
  const { t, rich } = useI18n();
  const embedDone = embed.state === "enabled";
  const done = [embedDone, guide.sharePage.done, guide.headlessKey.done].filter(Boolean).length;
  return (
    <Card>
      <BlockStack gap="400">
        <HeadingWithHint title={t("home.setup.heading")}>
          {t("home.setup.progress", { done, total: 3 })}
        </HeadingWithHint>
        <ol aria-label={t("home.setup.steps")} style={{ margin: 0, padding: 0, listStyle: "none" }}>
          <Step
            number={1}
            title={t("home.embed.title")}
            done={embedDone}
            status={
              embed.state ? (
                <Badge tone={EMBED_BADGES[embed.state].tone}>{t(EMBED_BADGES[embed.state].label)}</Badge>
              ) : null
            }
          >
            <Text as="p">{t("home.embed.body")}</Text>
            {embed.unavailable ? (
              <Banner tone="warning" title={t("home.embed.uncheckedTitle")}>
                <p>{t("home.embed.uncheckedBody", { reason: embed.unavailable })}</p>
              </Banner>
            ) : null}
            <InlineStack>
              <Button url={embed.link} variant={embedDone ? "secondary" : "primary"}>
                {embedDone ? t("home.embed.openEditor") : t("home.embed.turnOn")}
              </Button>
            </InlineStack>
          </Step>
          <Step number={2} title={t("home.share.title")} done={guide.sharePage.done}>
            <Text as="p">
              {rich("home.share.body", {
                url: (
                  <Text as="span" fontWeight="semibold" breakWord>
                    {`https://${shopDomain}${guide.sharePage.sharePath}`}
                  </Text>
                ),
              })}
            </Text>
            {confirm.data?.ok === false ? (
              <Banner tone="critical" title={t("home.share.failed")}>
                <p>{confirm.data.formError}</p>
              </Banner>
            ) : null}
            <InlineStack gap="200">
              <Button url="/app/settings">{t("home.share.openSettings")}</Button>
              {guide.sharePage.done ? null : (
                <confirm.Form method="post">
                  <input type="hidden" name="intent" value="confirm-share-page" />
                  <Button submit loading={confirm.state !== "idle"}>
                    {t("home.share.keep")}
                  </Button>
                </confirm.Form>
              )}
            </InlineStack>
          </Step>
          <Step number={3} title={t("home.key.title")} done={guide.headlessKey.done} last>
            <Text as="p">{t("home.key.body")}</Text>
            <InlineStack>
              <Button url="/app/keys">{t("home.key.open")}</Button>
            </InlineStack>
          </Step>
        </ol>
      </BlockStack>
    </Card>
  );
}

function Step({
  number,
  title,
  done,
  status,
  last = false,
  children,
}: {
  number: number;
  title: string;
  done: boolean;
  status?: ReactNode;
  last?: boolean;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <li>
      <Box paddingBlockEnd={last ? "0" : "400"}>
        <BlockStack gap="200">
          <InlineStack gap="200" blockAlign="center">
            <Text as="h3" variant="headingSm">
              {`${number}. ${title}`}
            </Text>
            <Badge tone={done ? "success" : undefined} progress={done ? "complete" : "incomplete"}>
              {done ? t("home.step.done") : t("home.step.todo")}
            </Badge>
            {status}
          </InlineStack>
          {children}
        </BlockStack>
      </Box>
    </li>
  );
}

function Usage() {
  const { usage, monthRevenue } = useLoaderData<typeof loader>();
  const { t, locale } = useI18n();
  const [main, ...others] = monthRevenue.revenue.map(({ netMinor, currency }) =>
    formatMoney(netMinor, currency, locale),
  );
  const period = t("home.revenue.period", { from: monthRevenue.from, to: monthRevenue.to });
  return (
    <LabelledCard
      title={t("home.usage.heading")}
      action={
        <Button url="/app/insights" variant="plain">
          {t("home.revenue.viewInsights")}
        </Button>
      }
    >
      <FigureGrid
        figures={[
          { label: t("home.usage.lists"), value: usage.lists },
          { label: t("home.usage.items"), value: usage.items },
          { label: t("home.usage.saves"), value: usage.saves },
          {
            label: t("home.revenue.label"),
            value: main ?? t("home.revenue.none"),
            hint: [...others, period].join(" · "),
          },
        ]}
      />
    </LabelledCard>
  );
}

function TopProducts() {
  const { topProducts } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  return (
    <LabelledCard
      title={t("home.top.heading")}
      action={
        <Button url="/app/analytics" variant="plain">
          {t("home.top.viewAnalytics")}
        </Button>
      }
    >
      {topProducts.length === 0 ? (
        <EmptyState heading={t("home.top.emptyHeading")} image="/favicon.svg">
          <p>{t("home.top.emptyBody")}</p>
        </EmptyState>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric"]}
          headings={[t("home.top.product"), t("home.top.handle"), t("home.top.saves")]}
          rows={topProducts.map((product) => [product.title, product.handle ?? "", product.saves])}
        />
      )}
    </LabelledCard>
  );
}

function HomeSkeleton() {
  return (
    <SkeletonPage>
      <Layout>
        <Layout.Section>
          <Card>
            <BlockStack gap="400">
              <SkeletonDisplayText size="small" />
              <SkeletonBodyText lines={6} />
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <Card>
            <SkeletonBodyText lines={3} />
          </Card>
        </Layout.Section>
      </Layout>
    </SkeletonPage>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.home", "home.error");
