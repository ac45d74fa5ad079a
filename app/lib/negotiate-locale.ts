/**
 * Locale negotiation shared by the storefront's texts and the admin's language: one home, below both.
 */
import { match } from "@formatjs/intl-localematcher";
import Negotiator from "negotiator";

/** The best available locale for an Accept-Language header (q-values honoured, best-fit matching). */
export function negotiateLocale(acceptLanguage: string, available: string[], fallback = "en"): string {
  const requested = new Negotiator({ headers: { "accept-language": acceptLanguage } })
    .languages()
    .filter((tag) => tag !== "*")
    .flatMap((tag) => {
      try {
        return [Intl.getCanonicalLocales(tag)[0]!];
      } catch {
        return []; // not a BCP 47 tag: ignored
      }
    });
  return match(requested, available, fallback, { algorithm: "best fit" });
}
