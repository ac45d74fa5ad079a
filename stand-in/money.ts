/**
 * Money in the stand-in, in integer minor units (cents) from end to end: prices are read from the catalogue's
 * decimals as text, never through a float, and a price in the shopper's presentment currency is converted
 * per unit with integer (BigInt) arithmetic and one documented rounding (half up to the minor unit). The
 * storefront's Ajax API, its cart and checkout, and the orders' REST bodies all use these.
 */

const DECIMAL = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** Minor units of a decimal amount ("24", "24.5", "24.50" -> 2450), read as text: no float is involved. */
export function minorUnits(amount: string): number {
  const match = DECIMAL.exec(amount.trim());
  if (!match) throw new Error(`Not an amount: ${amount}`);
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** An amount in minor units as the REST resources write money: a decimal string with two places ("24.50"). */
export function decimalOf(minor: number): string {
  if (!Number.isSafeInteger(minor)) throw new Error(`Not an amount in minor units: ${minor}`);
  const sign = minor < 0 ? "-" : "";
  const units = Math.abs(minor);
  return `${sign}${(units - (units % 100)) / 100}.${String(units % 100).padStart(2, "0")}`;
}

/**
 * The currencies a shopper may pay in, besides the shop's, each with the fixed rate the stand-in uses: how
 * many units of it one unit of the shop's currency buys, as a fraction (EUR at 9/10 of USD: $10.00 is
 * €9.00). Only a USD shop (every stand-in shop unless its `currency` says otherwise) offers one.
 */
export const PRESENTMENT_RATES: Record<string, Record<string, { numerator: bigint; denominator: bigint }>> = {
  USD: { EUR: { numerator: 9n, denominator: 10n } },
};

/** The currencies the storefront's footer offers: the shop's first. */
export const presentmentCurrencies = (shopCurrency: string) => [
  shopCurrency,
  ...Object.keys(PRESENTMENT_RATES[shopCurrency] ?? {}),
];

/**
 * A unit price in the shop's currency (minor units) in `currency`: times the rate, rounded half up to the
 * minor unit, in integer (BigInt) arithmetic. The same currency is the same amount.
 */
export function toPresentment(minor: number, shopCurrency: string, currency: string): number {
  if (currency === shopCurrency) return minor;
  const rate = PRESENTMENT_RATES[shopCurrency]?.[currency];
  if (!rate) throw new Error(`The stand-in has no rate from ${shopCurrency} to ${currency}`);
  // floor((minor * n / d) + 1/2) = floor((2 * minor * n + d) / (2 * d)) for non-negative amounts.
  return Number((2n * BigInt(minor) * rate.numerator + rate.denominator) / (2n * rate.denominator));
}

const SYMBOLS: Record<string, string> = { USD: "$", EUR: "€", GBP: "£", CAD: "CA$", JPY: "¥" };

/** An amount as the storefront's pages print it: "$24.50", "€22.05" (the code where no symbol is known). */
export const formatMoney = (minor: number, currency: string) =>
  `${SYMBOLS[currency] ?? `${currency} `}${decimalOf(minor)}`;
