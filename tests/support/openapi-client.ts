import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import createClient from "openapi-fetch";
import type { paths } from "../../api-types/openapi";
import { BASE_URL } from "./http";

// The app proxy signature lives with the scripts, which sign proxy requests too (scripts/bench/soak/run.ts).
export { signedProxyPath } from "../../scripts/lib/app-proxy";

type App = { request: (input: Request | string, init?: RequestInit) => Response | Promise<Response> };

/**
 * Checks real responses against the document the app serves: the status must be documented for the
 * operation, and a JSON body must match its schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 */
export class OpenApiValidator {
  private ajv = new Ajv2020({ strict: false, allErrors: true });
  private operations: Array<{ method: string; pattern: RegExp; pointer: string; responses: Record<string, unknown> }> =
    [];

  constructor(document: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, "openapi");
    for (const [template, operations] of Object.entries(document.paths)) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
      for (const [method, operation] of Object.entries(operations)) {
        const pointer = `openapi#/paths/${template.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}`;
        this.operations.push({
          method: method.toUpperCase(),
          pattern: new RegExp(`^${source}$`),
          pointer,
          responses: operation.responses,
        });
      }
    }
  }

  static async load(app: App): Promise<OpenApiValidator> {
    return new OpenApiValidator(await (await app.request(`${BASE_URL}/openapi.json`)).json());
  }

  async check(method: string, url: string, response: Response): Promise<void> {
    const path = new URL(url).pathname.replace(/^\/(proxy\/)?v1/, "");
    // A concrete path is matched before a templated one (`/imports/upload` before `/imports/{jobId}`).
    const matching = this.operations.filter((candidate) => candidate.pattern.test(path));
    const concrete = matching.filter((candidate) => !candidate.pointer.includes("{"));
    const operation = (concrete.length > 0 ? concrete : matching).find((candidate) => candidate.method === method);
    if (!operation) return; // 404/405 for paths the document does not list
    const status = String(response.status);
    if (!(status in operation.responses)) {
      throw new Error(`${method} ${path} answered ${status}, which the OpenAPI document does not list`);
    }
    if (response.status === 204) return;
    const declared = (operation.responses as Record<string, { content?: object }>)[status];
    if (!declared?.content) {
      // A response documented without a body (e.g. 202) must come without one.
      if ((await response.clone().text()).length > 0) throw new Error(`${method} ${path} ${status} has a body`);
      return;
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!;
    const schemaRef = `${operation.pointer}/responses/${status}/content/${type.replaceAll("/", "~1")}/schema`;
    const validate = this.ajv.getSchema(schemaRef) ?? this.ajv.compile({ $ref: schemaRef });
    const body = await response.clone().json();
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} ${status} does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      );
    }
  }
}

/** The typed client of tests: openapi-fetch over the in-process app, every response checked. */
export function apiClient(app: App, validator: OpenApiValidator, headers: Record<string, string> = {}) {
  return createClient<paths>({
    baseUrl: `${BASE_URL}/v1`,
    headers,
    fetch: async (request: Request) => {
      const response = await app.request(request);
      await validator.check(request.method, request.url, response);
      return response;
    },
  });
}

/** A raw call (for bad inputs the typed client would not let us write), still checked. */
export async function rawCall(app: App, validator: OpenApiValidator, path: string, init: RequestInit = {}) {
  const url = `${BASE_URL}${path}`;
  const response = await app.request(url, init);
  await validator.check(init.method ?? "GET", url, response);
  return response;
}
