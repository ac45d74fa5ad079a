import type { MessageKey, Translator } from "~/i18n/translate";

/** The guides the app serves at /help/<guide> (docs/<guide>.md, app/admin/help-guides.server.ts). */
export const HELP_GUIDES = ["admin", "storefront", "webhooks", "imports", "privacy", "plans", "deploy"] as const;
export type HelpGuide = (typeof HELP_GUIDES)[number];

/**
 * The admin's pages, declared once: the title a page carries for assistive technology (the document title
 * and the page's one `h1`, both read by screen readers inside the admin's frame, where App Bridge's title
 * bar is drawn outside it), as a message of the admin's catalogue, and the guide (and section) its help link
 * opens. Keyed by Remix route id; the layout (app.tsx) and the root read it, so a page needs no code of its
 * own for any of them.
 */
interface AdminPage {
  title: MessageKey;
  help: { guide: HelpGuide; section?: string };
}

export const ADMIN_PAGES: Record<string, AdminPage> = {
  "routes/app._index": { title: "page.home", help: { guide: "admin", section: "home" } },
  "routes/app.analytics": { title: "page.analytics", help: { guide: "admin", section: "analytics" } },
  "routes/app.insights": { title: "page.insights", help: { guide: "admin", section: "insights" } },
  "routes/app.lists._index": { title: "page.lists", help: { guide: "admin", section: "lists" } },
  "routes/app.lists.$id": { title: "page.list", help: { guide: "admin", section: "lists" } },
  "routes/app.settings": { title: "page.settings", help: { guide: "storefront" } },
  "routes/app.alerts": { title: "page.alerts", help: { guide: "admin", section: "alerts" } },
  "routes/app.keys": { title: "page.keys", help: { guide: "admin", section: "api-keys" } },
  "routes/app.webhooks._index": { title: "page.webhooks", help: { guide: "webhooks" } },
  "routes/app.webhooks.$id": {
    title: "page.webhook",
    help: { guide: "webhooks", section: "delivery-rules-and-retry-schedule" },
  },
  "routes/app.imports._index": { title: "page.imports", help: { guide: "imports", section: "in-the-admin" } },
  "routes/app.imports.new": { title: "page.newImport", help: { guide: "imports", section: "formats" } },
  "routes/app.imports.$jobId": { title: "page.import", help: { guide: "imports", section: "job-states" } },
  "routes/app.exports": { title: "page.exports", help: { guide: "imports", section: "exporting" } },
  "routes/app.privacy": { title: "page.privacy", help: { guide: "privacy" } },
  "routes/app.plan": { title: "page.plan", help: { guide: "plans", section: "for-merchants" } },
};

/** The page of the deepest matched route that is an admin page, if any. */
export function currentAdminPage(matches: ReadonlyArray<{ id: string }>): AdminPage | undefined {
  for (let index = matches.length - 1; index >= 0; index--) {
    const page = ADMIN_PAGES[matches[index]!.id];
    if (page) return page;
  }
  return undefined;
}

/** The document title: the page's, then the app's name ("Lists · Wishlist"; Home is "Wishlist"). */
export function documentTitle(matches: ReadonlyArray<{ id: string }>, { t }: Pick<Translator, "t">): string {
  const page = currentAdminPage(matches);
  return !page || page.title === "page.home" ? t("app.name") : `${t(page.title)} · ${t("app.name")}`;
}

/** Where a page's help link leads: the served guide, at the page's section. */
export function helpHref(help: AdminPage["help"]): string {
  return `/help/${help.guide}${help.section ? `#${help.section}` : ""}`;
}
