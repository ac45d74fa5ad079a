/**
 * Money in minor units (the alerts' prices, decision 050; the conversions' amounts, decision 052): the
 * platform's decimal strings are turned into integers once, with the currency's own number of digits, and
 * back for webhook payloads; the emails format them with Intl from the same number of digits.
 */

const digitsByCurrency = new Map<string, number>();

/** How many minor units the currency has (2 for EUR, 0 for JPY, 3 for KWD), as Intl knows it. */
export function currencyDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(currency, digits ?? 2);
  }
  return digits ?? 2;
}

/**
 * A decimal amount ("12.5", "1234.50") in minor units, exactly (no floating point), rounded half up past the
 * currency's digits; null for what is not an amount, or not one exactly: past 2^53 minor units (15 digits of
 * dinars are 10^18 fils), a number is no longer exact, nor, past 2^63, a database's 64-bit integer.
 */
export function toMinorUnits(amount: string | null | undefined, currency: string): number | null {
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(String(amount ?? "").trim());
  if (!match) return null;
  const digits = currencyDigits(currency);
  const fraction = (match[2] ?? "").padEnd(digits + 1, "0");
  const minor = Number(match[1]) * 10 ** digits + Number(fraction.slice(0, digits) || "0");
  const rounded = Number(fraction[digits]) >= 5 ? minor + 1 : minor;
  return Number.isSafeInteger(rounded) ? rounded : null;
}

/** The minor units as a decimal string ("1250" EUR -> "12.50"), for webhook payloads and Flow. */
export function fromMinorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}

/**
 * The minor units as an exact decimal string ("-1250" EUR -> "-12.50"), by digits, not by float division: the
 * admin's figures and its CSV downloads.
 */
export function exactDecimal(minor: number, currency: string): Intl.StringNumericLiteral {
  const digits = currencyDigits(currency);
  const whole = BigInt(Math.trunc(minor));
  const sign = whole < 0n ? "-" : "";
  const text = (whole < 0n ? -whole : whole).toString().padStart(digits + 1, "0");
  return (
    digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`
  ) as Intl.StringNumericLiteral;
}

/**
 * Minor units shown as money in the reader's language (1250 EUR in fr: "12,50 €"). Intl formats the exact
 * decimal string, so no amount is rounded through a float.
 */
export function formatMoney(minor: number, currency: string, locale: string): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(exactDecimal(minor, currency));
}
