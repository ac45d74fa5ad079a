/**
 * The API description as the web process serves it at /openapi.json: the real HTTP app answers the request
 * in-process (no database is touched), with the origin the committed documents are generated for.
 */
export async function servedOpenApiDocument<Document = Record<string, unknown>>(): Promise<Document> {
  process.env.SHOPIFY_APP_URL = "http://localhost:3000";
  process.env.LOG_LEVEL ??= "silent";
  // Imported after the environment is set: app modules read it when they load.
  const { createHttpApp } = await import("~/api/http-app.server");
  const app = createHttpApp({ remix: async () => new Response(null, { status: 404 }) });
  const response = await app.request("http://localhost:3000/openapi.json");
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  return (await response.json()) as Document;
}

/** The committed form of a document: what `npm run openapi` writes to docs/openapi.json. */
export const documentText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;
