import { getEnv } from "~/env.server";
import { AppError, toProblemDocument } from "./problems";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/**
 * The single mapper from errors to HTTP: an AppError becomes its problem document; anything else is
 * an unexpected failure, answered as a generic 500 with no internals (the caller logs it).
 */
export function problemResponse(error: unknown, instance?: string): Response {
  const appError = error instanceof AppError ? error : new AppError("internal-error");
  const body = toProblemDocument(appError, getEnv().SHOPIFY_APP_URL, instance);
  return new Response(JSON.stringify(body), {
    status: appError.status,
    headers: { ...appError.headers, "Content-Type": PROBLEM_CONTENT_TYPE },
  });
}
