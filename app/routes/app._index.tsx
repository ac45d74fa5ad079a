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
  InlineGrid,
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
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { LabelledCard } from "~/components/LabelledCard";
import { PageError } from "~/components/PageError";
import { DomainError } from "~/lib/domain-error";
import { toTimestamp } from "~/lib/time";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { activity, topProducts } from "~/services/analytics/reports.server";
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
  const [guide, embed, overview, recent, top, endpoints] = await Promise.all([
    getSetupGuide({ shopId }),
    getEmbedStatusOrReason({ shopDomain }),
    getShopOverview({ shopId }),
    activity({ shopId, range: "30d" }),
    topProducts({ shopId, range: "30d", limit: 5 }),
    listEndpoints({ shopId }),
  ]);
  return {
    shopDomain,
    guide,
    embed: { state: embed.status?.state ?? null, unavailable: embed.unavailable, link: embedActivationAdminLink() },
    usage: { lists: overview.usage.lists, items: overview.usage.items, saves: recent.totals.adds },
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

const EMBED_BADGES: Record<EmbedState, { label: string; tone: "success" | "warning" | "attention" | "critical" }> = {
  enabled: { label: "Enabled", tone: "success" },
  disabled: { label: "Disabled", tone: "warning" },
  not_added: { label: "Not added", tone: "attention" },
  no_main_theme: { label: "No main theme", tone: "critical" },
};

export default function Home() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  if (navigation.state === "loading" && navigation.location.pathname === "/app") return <HomeSkeleton />;
  return (
    <Page>
      <TitleBar title="Wishlist" />
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
  const embedDone = embed.state === "enabled";
  const done = [embedDone, guide.sharePage.done, guide.headlessKey.done].filter(Boolean).length;
  return (
    <Card>
      <BlockStack gap="400">
        <BlockStack gap="100">
          <Text as="h2" variant="headingMd">
            Setup guide
          </Text>
          <Text as="p" tone="subdued">
            {done} of 3 steps done
          </Text>
        </BlockStack>
        <ol aria-label="Setup steps" style={{ margin: 0, padding: 0, listStyle: "none" }}>
          <Step
            number={1}
            title="Turn on the app embed"
            done={embedDone}
            status={
              embed.state ? (
                <Badge tone={EMBED_BADGES[embed.state].tone}>{EMBED_BADGES[embed.state].label}</Badge>
              ) : null
            }
          >
            <Text as="p">
              The wishlist buttons appear in your online store once the Wishlist app embed is on in your published
              theme. The theme editor opens with the embed switched on: save there to publish it.
            </Text>
            {embed.unavailable ? (
              <Banner tone="warning" title="The app embed could not be checked">
                <p>{embed.unavailable} Reload this page to try again.</p>
              </Banner>
            ) : null}
            <InlineStack>
              <Button url={embed.link} variant={embedDone ? "secondary" : "primary"}>
                {embedDone ? "Open the theme editor" : "Turn on in the theme editor"}
              </Button>
            </InlineStack>
          </Step>
          <Step number={2} title="Set the share page" done={guide.sharePage.done}>
            <Text as="p">
              Shared wishlists open at{" "}
              <Text as="span" fontWeight="semibold" breakWord>
                {`https://${shopDomain}${guide.sharePage.sharePath}`}
              </Text>
              . Choose the page in Settings, or keep this one if your theme shows shared lists there.
            </Text>
            {confirm.data?.ok === false ? (
              <Banner tone="critical" title="The step could not be marked done">
                <p>{confirm.data.formError}</p>
              </Banner>
            ) : null}
            <InlineStack gap="200">
              <Button url="/app/settings">Open settings</Button>
              {guide.sharePage.done ? null : (
                <confirm.Form method="post">
                  <input type="hidden" name="intent" value="confirm-share-page" />
                  <Button submit loading={confirm.state !== "idle"}>
                    Keep this page
                  </Button>
                </confirm.Form>
              )}
            </InlineStack>
          </Step>
          <Step number={3} title="Create an API key for headless use (optional)" done={guide.headlessKey.done} last>
            <Text as="p">
              A private key lets your own servers call the Wishlist API, for a headless storefront or your back office.
            </Text>
            <InlineStack>
              <Button url="/app/keys">Open API keys</Button>
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
  return (
    <li>
      <Box paddingBlockEnd={last ? "0" : "400"}>
        <BlockStack gap="200">
          <InlineStack gap="200" blockAlign="center">
            <Text as="h3" variant="headingSm">
              {`${number}. ${title}`}
            </Text>
            <Badge tone={done ? "success" : undefined} progress={done ? "complete" : "incomplete"}>
              {done ? "Done" : "To do"}
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
  const { usage } = useLoaderData<typeof loader>();
  const figures = [
    { label: "Lists", value: usage.lists },
    { label: "Saved items", value: usage.items },
    { label: "Saves in the last 30 days", value: usage.saves },
  ];
  return (
    <LabelledCard title="Usage">
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

function TopProducts() {
  const { topProducts } = useLoaderData<typeof loader>();
  return (
    <LabelledCard
      title="Most saved products, last 30 days"
      action={
        <Button url="/app/analytics" variant="plain">
          View analytics
        </Button>
      }
    >
      {topProducts.length === 0 ? (
        <EmptyState heading="No saves yet" image="/favicon.svg">
          <p>When shoppers save products to their wishlists, the most saved ones show here.</p>
        </EmptyState>
      ) : (
        <DataTable
          columnContentTypes={["text", "text", "numeric"]}
          headings={["Product", "Handle", "Saves"]}
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

export function ErrorBoundary() {
  return <PageError pageTitle="Wishlist" title="The home page could not be shown" />;
}
