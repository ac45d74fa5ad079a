import { pino, type Logger } from "pino";
import { getEnv } from "./env.server";

/**
 * One structured logger for web and worker. Secrets never reach the log: the redact list covers
 * credentials in headers and the fields that carry secrets in our own objects.
 */
export const logger: Logger = pino({
  level: getEnv().LOG_LEVEL,
  base: { service: process.env.SERVICE_ROLE ?? "web" },
  redact: {
    paths: [
      "req.headers.authorization",
      "req.headers.cookie",
      "req.headers['x-service-public-key']",
      "headers.authorization",
      "*.secret",
      "*.privateKey",
      "*.accessToken",
      "secret",
      "privateKey",
      "accessToken",
    ],
    censor: "[redacted]",
  },
});
