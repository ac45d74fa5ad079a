import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { Modal, TitleBar } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  DataTable,
  EmptyState,
  Form,
  InlineStack,
  Layout,
  Page,
  Text,
  TextField,
} from "@shopify/polaris";
import { useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { CopyButton } from "~/components/CopyButton";
import { pageErrorBoundary } from "~/components/PageError";
import { HeadedCard, HeadingWithHint } from "~/components/CardHeadings";
import { useAnswerToast } from "~/components/useAnswerToast";
import { useI18n } from "~/i18n/i18n-context";
import type { ApiKeyRow } from "~/data/api-key-rows.server";
import { DomainError } from "~/lib/domain-error";
import { isId } from "~/lib/ids";
import { toTimestamp } from "~/lib/time";
import { apiKeyCreateSchema, createApiKey, listApiKeys, revokeApiKey } from "~/services/keys/api-keys.server";
import { readKeyUsage, type KeyUsage } from "~/services/keys/key-usage.server";
import { getShopOverview } from "~/services/shops/shops.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const [{ shop }, keys] = await Promise.all([getShopOverview({ shopId }), listApiKeys({ shopId })]);
  // The public key's calls are counted under the credential id `public` (app/api/v1/context.ts). The use of the
  // active keys only, at most MAX_ACTIVE_KEYS_PER_SHOP: a revoked key makes no more calls, and revoked keys have no
  // bound, so reading theirs would let the number of names read in Redis grow with every key ever revoked.
  const active = keys.filter((key) => key.revokedAt === null).map((key) => key.id);
  const usage = await readKeyUsage({ shopId, credentialIds: [PUBLIC_CREDENTIAL, ...active] });
  // Never a secret here: only the key's hash is stored, and the page shows a new secret from the action once.
  return {
    publicKey: shop.publicKey,
    publicUsage: usage?.get(PUBLIC_CREDENTIAL) ?? null,
    keys: keys.map((key) => ({ ...keyView(key), usage: key.revokedAt ? null : (usage?.get(key.id) ?? null) })),
  };
};

const PUBLIC_CREDENTIAL = "public";

/** Two forms: `intent=create` (label, as POST /v1/keys) and `intent=revoke` (keyId, as DELETE /v1/keys/{id}). */
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const form = await readForm(request);
  return runForm(async () => {
    if (form.get("intent") === "revoke") {
      const keyId = String(form.get("keyId"));
      // Not a key id at all: no key of this shop, as for an unknown one (parseId's AppError would be a 500 here).
      if (!isId("apiKey", keyId)) throw new DomainError("not_found", "No such API key in this shop.");
      await revokeApiKey({ shopId, keyId });
      return { ok: true as const, intent: "revoke" as const };
    }
    const { label } = apiKeyCreateSchema.parse({ label: form.get("label") });
    const { key, secret } = await createApiKey({ shopId, label });
    return { ok: true as const, intent: "create" as const, key: keyView(key), secret };
  });
};

function keyView(key: ApiKeyRow) {
  return {
    id: key.id,
    label: key.label,
    createdAt: toTimestamp(key.createdAt),
    lastUsedAt: toTimestamp(key.lastUsedAt),
    revokedAt: toTimestamp(key.revokedAt),
  };
}

type KeyView = ReturnType<typeof keyView> & { usage: KeyUsage | null };

const CREATE_MODAL = "create-key-modal";
const REVOKE_MODAL = "revoke-key-modal";

export default function ApiKeysPage() {
  const { publicKey, publicUsage, keys } = useLoaderData<typeof loader>();
  const [creating, setCreating] = useState(false);
  // A new fetcher for each opening of the create modal: closing it drops the last answer, and the secret with it.
  const [createRound, setCreateRound] = useState(0);
  const [keyToRevoke, setKeyToRevoke] = useState<KeyView | null>(null);
  const { t } = useI18n();

  return (
    <Page>
      <TitleBar title={t("page.keys")}>
        <button variant="primary" onClick={() => setCreating(true)}>
          {t("keys.create")}
        </button>
      </TitleBar>
      <Layout>
        <Layout.Section>
          <HeadedCard title={t("keys.public.heading")}>
            <Text as="p" tone="subdued">
              {t("keys.public.body")}
            </Text>
            <InlineStack gap="300" blockAlign="center" wrap={false}>
              <Text as="p" fontWeight="semibold" breakWord>
                <code>{publicKey}</code>
              </Text>
              <CopyButton value={publicKey} accessibilityLabel={t("keys.public.copy")} />
            </InlineStack>
            <PublicKeyUsage usage={publicUsage} />
          </HeadedCard>
        </Layout.Section>
        <Layout.Section>
          <PrivateKeys keys={keys} onCreate={() => setCreating(true)} onRevoke={setKeyToRevoke} />
        </Layout.Section>
      </Layout>
      <CreateKeyModal
        key={createRound}
        round={createRound}
        open={creating}
        onClose={() => {
          setCreating(false);
          setCreateRound(createRound + 1);
        }}
      />
      <RevokeKeyModal apiKey={keyToRevoke} onClose={() => setKeyToRevoke(null)} />
    </Page>
  );
}

function PrivateKeys({
  keys,
  onCreate,
  onRevoke,
}: {
  keys: KeyView[];
  onCreate: () => void;
  onRevoke: (key: KeyView) => void;
}) {
  const { t, dateTime, locale } = useI18n();
  const number = (value: number) => value.toLocaleString(locale);
  if (keys.length === 0) {
    return (
      <Card>
        <EmptyState
          heading={t("keys.emptyHeading")}
          action={{ content: t("keys.create"), onAction: onCreate }}
          image={EMPTY_KEYS_IMAGE}
        >
          <p>{t("keys.emptyBody")}</p>
        </EmptyState>
      </Card>
    );
  }
  return (
    <Card padding="0">
      <BlockStack>
        <div style={{ padding: "var(--p-space-400)" }}>
          <HeadingWithHint title={t("keys.private.heading")} gap="200">
            {t("keys.private.body")}
          </HeadingWithHint>
        </div>
        <DataTable
          verticalAlign="middle"
          columnContentTypes={["text", "text", "text", "numeric", "text", "text", "text"]}
          headings={[
            t("keys.column.label"),
            t("keys.column.created"),
            t("keys.column.lastUsed"),
            t("keys.column.requests24h"),
            t("keys.column.lastLimited"),
            t("keys.column.status"),
            t("keys.column.actions"),
          ]}
          rows={keys.map((key) => [
            key.label,
            key.createdAt ? dateTime(key.createdAt) : "",
            key.lastUsedAt ? dateTime(key.lastUsedAt) : t("keys.never"),
            key.revokedAt ? "" : key.usage ? number(key.usage.requests24h) : t("keys.usageUnavailable"),
            key.usage ? (key.usage.lastRateLimitedAt ? dateTime(key.usage.lastRateLimitedAt) : t("keys.never")) : "",
            key.revokedAt ? (
              <InlineStack gap="200" blockAlign="center">
                <Badge>{t("keys.revoked")}</Badge>
                <Text as="span" tone="subdued">
                  {dateTime(key.revokedAt)}
                </Text>
              </InlineStack>
            ) : (
              <Badge tone="success">{t("keys.active")}</Badge>
            ),
            key.revokedAt ? (
              ""
            ) : (
              <Button
                tone="critical"
                accessibilityLabel={t("keys.revokeLabel", { label: key.label })}
                onClick={() => onRevoke(key)}
              >
                {t("keys.revoke")}
              </Button>
            ),
          ])}
        />
      </BlockStack>
    </Card>
  );
}

/** The public key's use: the storefront calls of headless storefronts in the last 24 hours, and its last 429. */
function PublicKeyUsage({ usage }: { usage: KeyUsage | null }) {
  const { t, dateTime, locale } = useI18n();
  const number = (value: number) => value.toLocaleString(locale);
  if (!usage) {
    return (
      <Text as="p" tone="subdued">
        {t("keys.usageUnavailable")}
      </Text>
    );
  }
  return (
    <Text as="p" tone="subdued">
      {t("keys.public.usage", {
        requests: number(usage.requests24h),
        limited: usage.lastRateLimitedAt ? dateTime(usage.lastRateLimitedAt) : t("keys.neverLimited"),
      })}
    </Text>
  );
}

function CreateKeyModal({ round, open, onClose }: { round: number; open: boolean; onClose: () => void }) {
  const fetcher = useFetcher<typeof action>({ key: `create-key-${round}` });
  const [label, setLabel] = useState("");
  const { t } = useI18n();
  const created = fetcher.data?.ok && fetcher.data.intent === "create" ? fetcher.data : null;
  const labelError =
    fetcher.data && !fetcher.data.ok ? (fetcher.data.fieldErrors.label ?? fetcher.data.formError) : undefined;
  const submitting = fetcher.state !== "idle";

  function create() {
    fetcher.submit({ intent: "create", label }, { method: "post" });
  }

  return (
    <Modal id={CREATE_MODAL} open={open} onHide={onClose}>
      {created ? (
        <BlockStack gap="400">
          <Banner tone="warning" title={t("keys.secretNow")}>
            <Text as="p">{t("keys.secretNowBody")}</Text>
          </Banner>
          <TextField
            label={t("keys.secretOf", { label: created.key.label })}
            value={created.secret}
            readOnly
            autoComplete="off"
            monospaced
            connectedRight={<CopyButton value={created.secret} accessibilityLabel={t("keys.copySecret")} />}
          />
        </BlockStack>
      ) : (
        <Form onSubmit={create}>
          <TextField
            label={t("keys.column.label")}
            helpText={t("keys.labelHelp")}
            autoComplete="off"
            value={label}
            onChange={setLabel}
            error={labelError}
            disabled={submitting}
          />
        </Form>
      )}
      {created ? (
        <TitleBar title={t("keys.created")}>
          <button variant="primary" onClick={onClose}>
            {t("webhooks.done")}
          </button>
        </TitleBar>
      ) : (
        <TitleBar title={t("keys.createTitle")}>
          <button variant="primary" onClick={create} loading={submitting ? "" : undefined}>
            {t("keys.create")}
          </button>
          <button onClick={onClose}>{t("webhooks.cancel")}</button>
        </TitleBar>
      )}
    </Modal>
  );
}

function RevokeKeyModal({ apiKey, onClose }: { apiKey: KeyView | null; onClose: () => void }) {
  const fetcher = useFetcher<typeof action>();
  const { t } = useI18n();
  const submitting = fetcher.state !== "idle";
  // Idle again after the revoke (the list shows the key as revoked): say so, and close.
  useAnswerToast(fetcher, {
    done: t("keys.keyRevoked"),
    failed: t("keys.notRevoked"),
    settled: true,
    onAnswer: onClose,
  });

  function revoke() {
    if (apiKey) fetcher.submit({ intent: "revoke", keyId: apiKey.id }, { method: "post" });
  }

  return (
    <Modal id={REVOKE_MODAL} open={apiKey !== null} onHide={onClose}>
      <Text as="p">{t("keys.revokeQuestion", { label: apiKey?.label ?? "" })}</Text>
      <TitleBar title={t("keys.revokeTitle")}>
        <button variant="primary" tone="critical" onClick={revoke} loading={submitting ? "" : undefined}>
          {t("keys.revokeConfirm")}
        </button>
        <button onClick={onClose}>{t("webhooks.cancel")}</button>
      </TitleBar>
    </Modal>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.keys", "keys.error");

/** A key drawn inline, so the empty state needs no image from elsewhere. */
const EMPTY_KEYS_IMAGE = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="226" height="226" viewBox="0 0 226 226"><circle cx="113" cy="113" r="100" fill="#f1f1f1"/><circle cx="85" cy="113" r="28" fill="none" stroke="#8a8a8a" stroke-width="12"/><path d="M113 113h60m-20 0v22m20-22v16" stroke="#8a8a8a" stroke-width="12" stroke-linecap="round" fill="none"/></svg>',
)}`;
