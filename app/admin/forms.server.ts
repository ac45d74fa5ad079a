/**
 * Forms of the admin pages: parsed with the same zod schemas as the /v1 API, and every failure (a zod
 * issue, a domain error from a service, a database that is busy or away) turned into what the page shows
 * inline: a message per field and one for the form. Unexpected errors are not caught here: the route's error boundary shows them.
 */
import { z } from "zod";
import "~/lib/zod-messages";
import { isDatabaseBusy, isDatabaseUnavailable } from "~/data/database.server";
import { isDomainError } from "~/lib/domain-error";

export interface FormFailure {
  ok: false;
  /** Field path ("headlessOrigins.1") -> message. */
  fieldErrors: Record<string, string>;
  formError?: string;
}

export function formFailure(error: unknown): FormFailure {
  if (error instanceof z.ZodError) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of error.issues) {
      const field = issue.path.join(".") || "form";
      // A record key that fails its schema (a locale code of the storefront strings) says only "Invalid key in
      // record"; the key schema's own message says what a key must look like.
      fieldErrors[field] ??= issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    }
    return { ok: false, fieldErrors, formError: fieldErrors.form };
  }
  if (isDomainError(error)) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of error.issues ?? []) fieldErrors[issue.field] ??= issue.message;
    return { ok: false, fieldErrors, formError: error.message };
  }
  // The change was not made (a transaction commits whole or not at all): the page keeps what the merchant
  // entered, and says to save again.
  if (isDatabaseBusy(error)) {
    return {
      ok: false,
      fieldErrors: {},
      formError: "The app is busy and nothing was saved. Save again in a few seconds.",
    };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      ok: false,
      fieldErrors: {},
      formError: "The app's database cannot be reached and nothing was saved. Save again in a minute.",
    };
  }
  throw error;
}

/**
 * The body of an action, as the page sends it: a form (`readForm`) or JSON (`readJson`). A body that is
 * neither (another content type, broken multipart, text that is not JSON) is the client's mistake: a 400,
 * not an unexpected error (a 500 whose stack is logged, at any merchant's will). A connection closed
 * mid-body stays what it is.
 */
export const readForm = (request: Request): Promise<FormData> =>
  readBody(() => request.formData(), TypeError, "a form (application/x-www-form-urlencoded or multipart)");

export const readJson = (request: Request): Promise<unknown> => readBody(() => request.json(), SyntaxError, "JSON");

/** The body as `read` parses it; the error parsing throws for a body that is not `expected` is a 400. */
async function readBody<T>(read: () => Promise<T>, unreadable: ErrorConstructor, expected: string): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof unreadable) {
      throw new Response(`The request body could not be read as ${expected}.`, { status: 400 });
    }
    throw error;
  }
}

/** Runs an action's work; a validation or domain failure becomes a FormFailure for the page. */
export async function runForm<T>(work: () => Promise<T>): Promise<T | FormFailure> {
  try {
    return await work();
  } catch (error) {
    return formFailure(error);
  }
}
