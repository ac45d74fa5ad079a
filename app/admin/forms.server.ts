/**
 * Forms of the admin pages: parsed with the same zod schemas as the /v1 API, and every failure (a zod
 * issue, a domain error from a service) turned into what the page shows inline: a message per field and
 * one for the form. Unexpected errors are not caught here: the route's error boundary shows them.
 */
import { z } from "zod";
import "~/lib/zod-messages";
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
  throw error;
}

/** Runs an action's work; a validation or domain failure becomes a FormFailure for the page. */
export async function runForm<T>(work: () => Promise<T>): Promise<T | FormFailure> {
  try {
    return await work();
  } catch (error) {
    return formFailure(error);
  }
}
