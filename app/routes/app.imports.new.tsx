import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  BlockStack,
  Box,
  Button,
  Card,
  ChoiceList,
  DropZone,
  InlineError,
  InlineStack,
  Layout,
  Page,
  ProgressBar,
  SkeletonBodyText,
  Text,
} from "@shopify/polaris";
import { useCallback, useEffect, useRef, useState } from "react";
import { z } from "zod";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm, type FormFailure } from "~/admin/forms.server";
import { transferPageErrorBoundary } from "~/components/TransferJobs";
import { getEnv } from "~/env.server";
import { HeadingWithHint } from "~/components/CardHeadings";
import { useI18n } from "~/i18n/i18n-context";
import type { Translator } from "~/i18n/translate";
import { FORMATS, SOURCES, type Field, type Source } from "~/services/transfers/columns";
import { startImport } from "~/services/transfers/jobs.server";
import { createUpload } from "~/services/transfers/uploads.server";
import { IMPORT_MAX_BYTES, UPLOAD_CONTENT_TYPES } from "~/services/transfers/limits";
import { importRequestSchema, uploadRequestSchema } from "~/services/transfers/transfer-requests";

/**
 * The import wizard's first steps (docs/imports.md, "Importing"): choose the file's source, then upload the
 * file straight to its signed URL and start a dry run, whose page (app.imports.$jobId) shows the report and
 * confirms the real import. The chosen source is in the address (`?source=`), so each step can be reloaded.
 */

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticateShop(request);
  const query = new URL(request.url).searchParams;
  const chosen = z.enum(SOURCES).safeParse(query.get("source"));
  // Continue without a choice comes back to step 1, saying what is missing.
  return {
    source: chosen.success ? chosen.data : null,
    sourceMissing: !chosen.success && query.get("step") === "upload",
  };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const form = await readForm(request);
  if (form.get("intent") === "upload") {
    return runForm(async () => {
      const { filename, contentType } = uploadRequestSchema.parse({
        filename: form.get("filename"),
        contentType: form.get("contentType"),
      });
      const { target, fileUrl } = await createUpload({
        shopId,
        baseUrl: getEnv().SHOPIFY_APP_URL,
        filename,
        contentType,
      });
      return { ok: true as const, uploadUrl: target.url, headers: target.headers, fileUrl };
    });
  }
  const started = await runForm(async () => {
    const input = importRequestSchema.parse({ source: form.get("source"), fileUrl: form.get("fileUrl"), dryRun: true });
    return startImport({ shopId, ...input });
  });
  return "id" in started ? redirect(`/app/imports/${started.id}`) : started;
};

export default function NewImport() {
  const { source, sourceMissing } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const navigate = useNavigate();
  const { t } = useI18n();
  return (
    <Page>
      <TitleBar title={t("page.newImport")}>
        <button onClick={() => navigate("/app/imports")}>{t("importNew.allImports")}</button>
      </TitleBar>
      <Layout>
        <Layout.Section>
          {navigation.state === "loading" && navigation.location.pathname === "/app/imports/new" ? (
            <Card>
              <SkeletonBodyText lines={8} />
            </Card>
          ) : source ? (
            <UploadStep key={source} source={source} />
          ) : (
            <SourceStep missing={sourceMissing} />
          )}
        </Layout.Section>
      </Layout>
    </Page>
  );
}

/** What each source's files look like, straight from the column table the import reads them with. */
function SourceDescription({ source }: { source: Source }) {
  const format = FORMATS[source];
  const { t } = useI18n();
  return (
    <BlockStack gap="100">
      {format.variants.map((variant) => (
        <BlockStack key={variant.name} gap="050">
          {format.variants.length > 1 ? (
            <Text as="span" variant="bodySm" tone="subdued">
              {variant.name}:
            </Text>
          ) : null}
          <Box background="bg-surface-secondary" padding="100" borderRadius="100">
            <code style={{ fontSize: 12, whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
              {Object.values(variant.headers).join(",")}
            </code>
          </Box>
        </BlockStack>
      ))}
      <Text as="span" variant="bodySm" tone="subdued">
        {format.required.length > 0
          ? t("importNew.requiredColumns", {
              required: format.required.map((field) => format.variants[0]!.headers[field]).join(", "),
              optional: Object.entries(format.variants[0]!.headers)
                .filter(([field]) => !format.required.includes(field as Field))
                .map(([, header]) => header)
                .join(", "),
            })
          : t("importNew.anyHeaders", {
              order: t(format.dateOrder === "day-first" ? "importNew.dayFirst" : "importNew.monthFirst"),
            })}
      </Text>
    </BlockStack>
  );
}

function SourceStep({ missing }: { missing: boolean }) {
  const [selected, setSelected] = useState<Source[]>([]);
  const { t } = useI18n();
  return (
    <Form method="get">
      <input type="hidden" name="step" value="upload" />
      <Card>
        <BlockStack gap="400">
          <HeadingWithHint title={t("importNew.step1")}>{t("importNew.headersMatched")}</HeadingWithHint>
          <ChoiceList
            title={t("importNew.sourceField")}
            name="source"
            selected={selected}
            onChange={(values) => setSelected(values as Source[])}
            error={missing && selected.length === 0 ? t("importNew.sourceMissing") : undefined}
            choices={SOURCES.map((source) => ({
              value: source,
              label: FORMATS[source].label,
              helpText: <SourceDescription source={source} />,
            }))}
          />
          <InlineStack align="end">
            <Button submit variant="primary">
              {t("importNew.continue")}
            </Button>
          </InlineStack>
        </BlockStack>
      </Card>
    </Form>
  );
}

type UploadTarget = { ok: true; uploadUrl: string; headers: Record<string, string>; fileUrl: string };

const isFailure = (answer: unknown): answer is FormFailure =>
  typeof answer === "object" && answer !== null && (answer as FormFailure).ok === false;

type Words = Pick<Translator, "t" | "locale">;

const failureMessage = (failure: FormFailure, { t }: Words) =>
  Object.values(failure.fieldErrors)[0] ?? failure.formError ?? t("importNew.notUploaded");

/** A file size in the admin's language: one decimal, no digit grouping ("1023.9 KB", "1023,9 KB"). */
function formatBytes(bytes: number, { t, locale }: Words) {
  if (bytes < 1024) return t("importNew.bytes", { size: String(bytes) });
  const oneDecimal = new Intl.NumberFormat(locale, {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
    useGrouping: false,
  });
  if (bytes < 1024 * 1024) return t("importNew.kilobytes", { size: oneDecimal.format(bytes / 1024) });
  return t("importNew.megabytes", { size: oneDecimal.format(bytes / 1024 / 1024) });
}

/** Why a file cannot be imported, checked before anything is sent (docs/imports.md: CSV, at most 50 MB). */
function fileProblem(file: File, words: Words): string | null {
  const { t } = words;
  const isCsv = /\.csv$/i.test(file.name) || file.type === "text/csv";
  if (!isCsv) return t("importNew.notCsv", { name: file.name });
  if (file.size > IMPORT_MAX_BYTES) {
    return t("importNew.tooLarge", {
      name: file.name,
      size: formatBytes(file.size, words),
      max: formatBytes(IMPORT_MAX_BYTES, words),
    });
  }
  if (file.size === 0) return t("importNew.emptyFile", { name: file.name });
  return null;
}

/** The content type the upload is declared with: the browser's, if it is one the import takes. */
function uploadContentType(file: File) {
  return (UPLOAD_CONTENT_TYPES as readonly string[]).includes(file.type) ? file.type : "text/csv";
}

function problemDetail(body: string) {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    return typeof detail === "string" ? detail : null;
  } catch {
    return null;
  }
}

type Phase = "choosing" | "preparing" | "uploading" | "starting";

function UploadStep({ source }: { source: Source }) {
  const navigate = useNavigate();
  const prepare = useFetcher<typeof action>();
  const start = useFetcher<typeof action>();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>("choosing");
  const [sent, setSent] = useState({ loaded: 0, total: 0 });
  const request = useRef<XMLHttpRequest | null>(null);
  const handled = useRef<unknown>(null);
  const words = useI18n();
  const { t } = words;

  const onDrop = useCallback(
    (files: File[]) => {
      setUploadError(null);
      const [dropped] = files;
      const problem = files.length > 1 ? t("importNew.oneFile") : dropped ? fileProblem(dropped, words) : null;
      setFileError(problem);
      setFile(problem ? null : (dropped ?? null));
    },
    [t, words],
  );

  const beginUpload = () => {
    if (!file) return;
    setUploadError(null);
    setPhase("preparing");
    prepare.submit({ intent: "upload", filename: file.name, contentType: uploadContentType(file) }, { method: "post" });
  };

  // Once the upload URL is there, the file goes straight to it (never through the app's pages or /v1).
  useEffect(() => {
    const answer = prepare.data;
    if (phase !== "preparing" || prepare.state !== "idle" || !answer || handled.current === answer) return;
    handled.current = answer;
    if (isFailure(answer) || !file) {
      setPhase("choosing");
      if (isFailure(answer)) setUploadError(failureMessage(answer, words));
      return;
    }
    const target = answer as UploadTarget;
    setPhase("uploading");
    setSent({ loaded: 0, total: file.size });
    const xhr = new XMLHttpRequest();
    request.current = xhr;
    xhr.open("PUT", target.uploadUrl);
    for (const [name, value] of Object.entries(target.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) =>
      setSent({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onload = () => {
      request.current = null;
      if (xhr.status >= 200 && xhr.status < 300) {
        setPhase("starting");
        start.submit({ intent: "dry-run", source, fileUrl: target.fileUrl }, { method: "post" });
      } else {
        setPhase("choosing");
        setUploadError(
          t("importNew.nothingImported", {
            reason: problemDetail(xhr.responseText) ?? t("importNew.refused", { status: String(xhr.status) }),
          }),
        );
      }
    };
    xhr.onerror = () => {
      request.current = null;
      setPhase("choosing");
      setUploadError(t("importNew.unreachable"));
    };
    xhr.send(file);
  }, [prepare.data, prepare.state, phase, file, source, start, t, words]);

  useEffect(() => () => request.current?.abort(), []);

  // A dry run that could not be started comes back as a form failure (a started one moves to its page).
  useEffect(() => {
    if (phase === "starting" && start.state === "idle" && isFailure(start.data)) {
      setPhase("choosing");
      setUploadError(failureMessage(start.data, words));
    }
  }, [phase, start.state, start.data, words]);

  const inlineError = fileError ?? uploadError;
  const busy = phase !== "choosing";
  const percent = sent.total > 0 ? Math.round((sent.loaded / sent.total) * 100) : 0;

  return (
    <BlockStack gap="400">
      <Card>
        <BlockStack gap="300">
          <InlineStack align="space-between" blockAlign="start" gap="200">
            <BlockStack gap="100">
              <Text as="h2" variant="headingMd">
                {t("importNew.step2")}
              </Text>
              <Text as="p">{words.rich("importNew.source", { source: <strong>{FORMATS[source].label}</strong> })}</Text>
            </BlockStack>
            <Button onClick={() => navigate("/app/imports/new")} disabled={busy}>
              {t("importNew.changeSource")}
            </Button>
          </InlineStack>
          <SourceDescription source={source} />
        </BlockStack>
      </Card>
      <Card>
        <BlockStack gap="300">
          <DropZone
            id="import-file"
            label={t("importNew.fileField")}
            accept=".csv,text/csv"
            type="file"
            allowMultiple={false}
            disabled={busy}
            error={Boolean(fileError)}
            onDrop={onDrop}
          >
            {file ? (
              <Box padding="400">
                <BlockStack gap="100" inlineAlign="center">
                  <Text as="p" fontWeight="semibold">
                    {file.name}
                  </Text>
                  <Text as="p" tone="subdued">
                    {formatBytes(file.size, words)}
                  </Text>
                </BlockStack>
              </Box>
            ) : (
              <DropZone.FileUpload actionTitle={t("importNew.chooseFile")} actionHint={t("importNew.dropHint")} />
            )}
          </DropZone>
          {inlineError ? <InlineError fieldID="import-file" message={inlineError} /> : null}
          {phase === "uploading" || phase === "starting" ? (
            <BlockStack gap="100">
              <Text as="p" id="upload-progress-label">
                {phase === "uploading"
                  ? t("importNew.uploading", {
                      sent: formatBytes(sent.loaded, words),
                      total: formatBytes(sent.total, words),
                    })
                  : t("importNew.startingDryRun")}
              </Text>
              <ProgressBar
                progress={phase === "starting" ? 100 : percent}
                tone="primary"
                size="small"
                ariaLabelledBy="upload-progress-label"
              />
            </BlockStack>
          ) : null}
          <Text as="p" tone="subdued">
            {t("importNew.nextDryRun")}
          </Text>
          <InlineStack align="end">
            <Button variant="primary" onClick={beginUpload} disabled={!file || busy} loading={busy}>
              {t("importNew.upload")}
            </Button>
          </InlineStack>
        </BlockStack>
      </Card>
    </BlockStack>
  );
}

export const ErrorBoundary = transferPageErrorBoundary("importNew.error");
