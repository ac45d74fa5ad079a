import { getEnv } from "~/env.server";
import { AppError, problemTypeUrl, PROBLEM_TYPES, type ProblemFieldError } from "~/lib/problems";

/** The RFC 9457 document of a problem, as every edge of the API answers with it. */
interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: ProblemFieldError[];
  [extension: string]: unknown;
}

function toProblemDocument(error: AppError, baseUrl: string, instance?: string): ProblemDocument {
  const { title, status } = PROBLEM_TYPES[error.slug];
  return {
    ...error.extensions,
    type: problemTypeUrl(baseUrl, error.slug),
    title,
    status,
    ...(error.detail ? { detail: error.detail } : {}),
    ...(instance ? { instance } : {}),
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

const PROBLEM_CONTENT_TYPE = "application/problem+json";

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
