/** What a soak is asked to do and what it reports (run.ts runs it, report.ts judges and prints it). */
export interface SoakOptions {
  /** A migrated, empty PostgreSQL database the soak may fill. */
  databaseUrl: string;
  /** A Redis key prefix nothing else uses. */
  redisPrefix: string;
  /** Where the processes keep uploads and reports (local storage driver), shared by all four. */
  storageDir: string;
  /** How long the mixed load runs. */
  durationSeconds: number;
  /** Shoppers spread over the 3 shops. */
  shoppers: number;
  /** Storefront toggles a second, all shops and modes together. */
  toggleRate: number;
  /** Storefront wishlist reads a second. */
  storefrontReadRate: number;
  /** Merchant reads (private key) a second, all shops together. */
  merchantReadRate: number;
  /** CSV imports during the load, at even intervals, and data rows in each file. */
  imports: number;
  importRows: number;
  /** Upper bound of the drain after the load; the soak fails when it is not drained by then. */
  drainTimeoutSeconds: number;
  rssSampleMs?: number;
  /**
   * RATE_LIMIT_PRIVATE_PER_MINUTE of the processes (the app's default, 600, when unset). The probe sends 10%
   * more than the limit in one burst that must end within a window; a lower limit keeps the burst short on
   * a machine too loaded to answer 660 requests in 45 s. Merchant reads stay far below it.
   */
  privateRateLimit?: number;
  /** The bare references driven at the same rates afterwards (0: no baseline). */
  baselineSeconds?: number;
  progress?: (line: string) => void;
}

export interface KindResult {
  name: string;
  sent: number;
  shed: number;
  latencies: number[];
  statuses: Record<string, number>;
  seconds: number;
}

export interface RateWindow {
  bucket: "shop" | "shopper";
  limit: number;
  sent: number;
  accepted: number;
  refused: number;
  other: number;
  /**
   * Accepted == limit, the remaining counts of the accepted answers are exactly limit-1 .. 0, every other
   * answer a 429 with a Retry-After. Null (inconclusive) when an answer was neither 200 nor 429 (a 5xx of an
   * overloaded machine cannot say whether it was counted), or when the burst took so long that it may have
   * run into the next window.
   */
  exact: boolean | null;
  seconds: number;
}

export interface ReceiverReport {
  name: string;
  behaviour: string;
  shop: string;
  events: number;
  received: number;
  missing: number;
  attempts: number;
  failuresInjected: number;
  duplicates: number;
  badSignatures: number;
}

export interface ProcessRss {
  name: string;
  samples: Array<{ t: number; mb: number }>;
  firstQuarterMb: number;
  lastQuarterMb: number;
  growthPercent: number;
  maxMb: number;
}

export interface ImportReport {
  shop: string;
  rows: number;
  imported: number | null;
  skipped: number | null;
  itemsFound: number;
  status: string;
  seconds: number;
  right: boolean;
}

export interface Goal {
  name: string;
  met: boolean;
  detail: string;
}

export interface SoakReport {
  options: Omit<SoakOptions, "progress">;
  kinds: KindResult[];
  baseline: KindResult[];
  rateWindows: RateWindow[];
  receivers: ReceiverReport[];
  events: number;
  imports: ImportReport[];
  drainSeconds: number | null;
  /**
   * The most deliveries seen owed (`WebhookDeliveryDue`) at a moment when nothing was left to relay and no
   * queue held a job: owed rows for deliveries already made (0 when the log ends every row it should).
   */
  owedWhileIdle: number;
  unfinishedJobs: number;
  rss: ProcessRss[];
  goals: Goal[];
}
