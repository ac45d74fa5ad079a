import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { Modal, TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  DataTable,
  InlineStack,
  Layout,
  Page,
  ProgressBar,
  Text,
} from "@shopify/polaris";
import { BillingError, HttpRequestError, HttpResponseError } from "@shopify/shopify-api";
import { boundary } from "@shopify/shopify-app-remix/server";
import { useId, useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { formFailure, readForm } from "~/admin/forms.server";
import { pageErrorBoundary } from "~/components/PageError";
import { useAnswerToast } from "~/components/useAnswerToast";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
import { DomainError } from "~/lib/domain-error";
import { toTimestamp } from "~/lib/time";
import { applyPlatformAnswer } from "~/services/plans/billing.server";
import { allowanceUsage, countHeldAlertEmails, shopPlan, trialDaysLeft } from "~/services/plans/entitlements.server";
import { isUpgrade, PLAN_IDS, PLANS, type Allowance, type PlanId } from "~/services/plans/plans";
import { billingTestCharges } from "~/shopify.server";

/**
 * The shop's plan (docs/decisions/062-plans-and-billing.md): the plan in force, this month's use of its
 * allowances, the plans side by side, and the buttons that change plan. A paid plan is asked for through the
 * platform's confirmation page (the library's `billing.request`), which sends the merchant back here with
 * `charge_id`; a downgrade to Free cancels the subscription after the merchant confirms it in a modal.
 */

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, billing } = await authenticateShop(request);
  const url = new URL(request.url);
  const chargeId = url.searchParams.get("charge_id");
  if (chargeId !== null) {
    // Back from the confirmation page: what the platform now says is applied at once. If it cannot say now,
    // its webhook applies the same a moment later.
    try {
      const { appSubscriptions } = await billing.check({ isTest: billingTestCharges() });
      await applyPlatformAnswer(shopId, appSubscriptions);
    } catch (error) {
      if (error instanceof Response) throw error;
      logger.warn({ err: error, shopId }, "billing check on return failed; the subscription webhook will apply it");
    }
  }
  const [current, usage, held] = await Promise.all([
    shopPlan(shopId),
    allowanceUsage(shopId),
    countHeldAlertEmails(shopId),
  ]);
  // Back from the platform's page: approved when the charge is now the shop's subscription.
  const returned =
    chargeId === null
      ? null
      : current.subscriptionId === `gid://shopify/AppSubscription/${chargeId}`
        ? ("approved" as const)
        : ("notApproved" as const);
  return {
    returned,
    plan: current.plan.id,
    state: current.state,
    since: toTimestamp(current.updatedAt)!,
    graceEndsAt: toTimestamp(current.graceEndsAt),
    usage: usage.map((row) => ({
      allowance: row.allowance,
      used: row.used,
      limit: row.limit,
      // Used up under the plan in force (after an upgrade there is room again, whatever was reached before).
      reached: row.used >= row.limit,
      resetsAt: toTimestamp(row.resetsAt)!,
    })),
    held,
  };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId, shopDomain, billing } = await authenticateShop(request);
  const form = await readForm(request);
  try {
    const target = PLAN_IDS.find((id) => id === form.get("plan"));
    if (!target) throw new DomainError("invalid", "Choose one of the plans: FREE, GROWTH or PLUS.");
    const current = await shopPlan(shopId);
    if (target === current.plan.id)
      throw new DomainError("conflict", `The shop is on the ${current.plan.name} plan already.`);
    if (target === "FREE") {
      if (current.subscriptionId) {
        const cancelled = await billing.cancel({
          subscriptionId: current.subscriptionId,
          isTest: billingTestCharges(),
          prorate: true,
        });
        await applyPlatformAnswer(shopId, [cancelled]);
      }
      return { ok: true as const };
    }
    // Throws the platform's confirmation page, to be opened outside the admin's frame; the platform sends the
    // merchant back to this page in the admin.
    const store = shopDomain.replace(/\.myshopify\.com$/, "");
    await billing.request({
      plan: PLANS[target].name,
      isTest: billingTestCharges(),
      trialDays: await trialDaysLeft(shopId, PLANS[target]),
      returnUrl: `https://admin.shopify.com/store/${store}/apps/${getEnv().SHOPIFY_APP_HANDLE}/plan`,
    });
    return { ok: true as const };
  } catch (error) {
    // The platform refused the charge (its userErrors), or could not be reached: nothing changed.
    if (error instanceof BillingError || error instanceof HttpRequestError || error instanceof HttpResponseError) {
      logger.warn({ err: error, shopId }, "plan change refused by the platform");
      return {
        ok: false as const,
        fieldErrors: {},
        formError: "The platform did not take the plan change. Try again.",
      };
    }
    return formFailure(error);
  }
};

const ALLOWANCE_LABEL: Record<Allowance, MessageKey> = { alert_emails: "plan.allowance.alertEmails" };

const money = (amount: number, locale: string) =>
  new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(amount);

export default function PlanPage() {
  const { returned, plan, state, since, graceEndsAt, usage, held } = useLoaderData<typeof loader>();
  const i18n = useI18n();
  const { t, locale } = i18n;
  const [downgrading, setDowngrading] = useState(false);
  const current = PLANS[plan];
  const reached = usage.find((row) => row.reached);

  return (
    <Page>
      <TitleBar title={t("page.plan")} />
      <Layout>
        {state === "grace" && graceEndsAt ? (
          <Layout.Section>
            <Banner tone="warning" title={t("plan.grace.title")}>
              <Text as="p">{t("plan.grace.body", { plan: current.name, date: i18n.dateTime(graceEndsAt) })}</Text>
            </Banner>
          </Layout.Section>
        ) : null}
        {reached ? (
          <Layout.Section>
            <Banner tone="warning" title={t("plan.reached.title")}>
              <Text as="p">
                {t("plan.reached.body", {
                  plan: current.name,
                  limit: reached.limit,
                  held,
                  date: i18n.dateTime(reached.resetsAt),
                })}
              </Text>
            </Banner>
          </Layout.Section>
        ) : null}
        {returned ? (
          <Layout.Section>
            <Banner
              tone={returned === "approved" ? "success" : "info"}
              title={t(returned === "approved" ? "plan.returned.approved" : "plan.returned.notApproved", {
                plan: current.name,
              })}
            />
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <Card>
            <BlockStack gap="200">
              <InlineStack gap="200" blockAlign="center">
                <Text as="h2" variant="headingMd">
                  {t("plan.current", { plan: current.name })}
                </Text>
                <Badge tone={state === "grace" ? "warning" : state === "active" ? "success" : undefined}>
                  {t(`plan.state.${state}`)}
                </Badge>
              </InlineStack>
              <Text as="p" tone="subdued">
                {current.monthlyPrice > 0
                  ? t("plan.priceLine", { price: money(current.monthlyPrice, locale) })
                  : t("plan.freeForever")}
              </Text>
              <Text as="p" tone="subdued">
                {t("plan.since", { date: i18n.dateTime(since) })}
              </Text>
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <Text as="h2" variant="headingMd">
                {t("plan.usage.heading")}
              </Text>
              {usage.map((row) => (
                <UsageBar key={row.allowance} {...row} />
              ))}
              <Text as="p" tone="subdued">
                {t("plan.usage.note")}
              </Text>
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <Card padding="0">
            <Comparison current={plan} onDowngradeToFree={() => setDowngrading(true)} />
          </Card>
        </Layout.Section>
      </Layout>
      <DowngradeModal open={downgrading} onClose={() => setDowngrading(false)} from={plan} />
    </Page>
  );
}

function UsageBar({
  allowance,
  used,
  limit,
  resetsAt,
}: {
  allowance: Allowance;
  used: number;
  limit: number;
  resetsAt: string;
}) {
  const { t, dateTime, locale } = useI18n();
  const id = useId();
  const progress = limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 100;
  return (
    <BlockStack gap="100">
      <InlineStack align="space-between">
        <Text as="span" id={id}>
          {t(ALLOWANCE_LABEL[allowance])}
        </Text>
        <Text as="span" tone={used >= limit ? "critical" : undefined}>
          {t("plan.usage.count", { used: used.toLocaleString(locale), limit: limit.toLocaleString(locale) })}
        </Text>
      </InlineStack>
      <ProgressBar progress={progress} size="small" tone={used >= limit ? "critical" : "primary"} ariaLabelledBy={id} />
      <Text as="p" tone="subdued" variant="bodySm">
        {t("plan.usage.resets", { date: dateTime(resetsAt) })}
      </Text>
    </BlockStack>
  );
}

function Comparison({ current, onDowngradeToFree }: { current: PlanId; onDowngradeToFree: () => void }) {
  const { t, locale } = useI18n();
  const yes = t("plan.compare.yes");
  const no = t("plan.compare.no");
  const plans = PLAN_IDS.map((id) => PLANS[id]);
  return (
    <DataTable
      columnContentTypes={["text", ...plans.map(() => "text" as const)]}
      headings={[t("plan.compare.heading"), ...plans.map((plan) => plan.name)]}
      rows={[
        [
          t("plan.compare.price"),
          ...plans.map((plan) =>
            plan.monthlyPrice > 0
              ? t("plan.price", { price: money(plan.monthlyPrice, locale) })
              : t("plan.compare.free"),
          ),
        ],
        [
          t("plan.compare.trial"),
          ...plans.map((plan) => (plan.trialDays > 0 ? t("plan.compare.trialDays", { days: plan.trialDays }) : "-")),
        ],
        [t("plan.allowance.alertEmails"), ...plans.map((plan) => plan.allowances.alert_emails.toLocaleString(locale))],
        [t("plan.feature.demandInsights"), ...plans.map((plan) => (plan.features.demandInsights ? yes : no))],
        [t("plan.compare.shopperFeatures"), ...plans.map(() => yes)],
        [t("plan.compare.api"), ...plans.map(() => yes)],
        [t("plan.compare.revenue"), ...plans.map(() => yes)],
        [
          "",
          ...plans.map((plan) =>
            plan.id === current ? (
              <Badge key={plan.id}>{t("plan.compare.yourPlan")}</Badge>
            ) : (
              <ChangePlanButton key={plan.id} from={current} to={plan.id} onDowngradeToFree={onDowngradeToFree} />
            ),
          ),
        ],
      ]}
    />
  );
}

function ChangePlanButton({
  from,
  to,
  onDowngradeToFree,
}: {
  from: PlanId;
  to: PlanId;
  onDowngradeToFree: () => void;
}) {
  const fetcher = useFetcher<typeof action>();
  const { t } = useI18n();
  useAnswerToast(fetcher, { done: t("plan.changed"), failed: t("plan.notChanged") });
  const upgrade = isUpgrade(from, to);
  const label = t(upgrade ? "plan.upgradeTo" : "plan.downgradeTo", { plan: PLANS[to].name });
  if (to === "FREE") return <Button onClick={onDowngradeToFree}>{label}</Button>;
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="plan" value={to} />
      <Button submit variant={upgrade ? "primary" : undefined} loading={fetcher.state !== "idle"}>
        {label}
      </Button>
    </fetcher.Form>
  );
}

const DOWNGRADE_MODAL = "downgrade-modal";

function DowngradeModal({ open, onClose, from }: { open: boolean; onClose: () => void; from: PlanId }) {
  const fetcher = useFetcher<typeof action>();
  const { t, locale } = useI18n();
  const submitting = fetcher.state !== "idle";
  useAnswerToast(fetcher, { done: t("plan.changed"), failed: t("plan.notChanged"), settled: true, onAnswer: onClose });
  return (
    <Modal id={DOWNGRADE_MODAL} open={open} onHide={onClose}>
      <Text as="p">
        {t("plan.downgrade.body", {
          plan: PLANS[from].name,
          limit: PLANS.FREE.allowances.alert_emails.toLocaleString(locale),
        })}
      </Text>
      <TitleBar title={t("plan.downgrade.title")}>
        <button
          variant="primary"
          tone="critical"
          onClick={() => fetcher.submit({ plan: "FREE" }, { method: "post" })}
          loading={submitting ? "" : undefined}
        >
          {t("plan.downgradeTo", { plan: PLANS.FREE.name })}
        </button>
        <button onClick={onClose}>{t("webhooks.cancel")}</button>
      </TitleBar>
    </Modal>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.plan", "plan.error");

// The library's billing request answers the page's fetch with 401 and the confirmation page's address in a
// header, for App Bridge to follow; a thrown response's headers reach the browser through this route's own
// headers function only.
export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
