/**
 * The admin's pages, declared once: the title a page carries for assistive technology (the document title
 * and the page's one `h1`, both read by screen readers inside the admin's frame, where App Bridge's title
 * bar is drawn outside it). Keyed by Remix route id; the layout (app.tsx) and the root's meta read it, so a
 * page needs no code of its own for either.
 */
interface AdminPage {
  title: string;
}

export const ADMIN_PAGES: Record<string, AdminPage> = {
  "routes/app._index": { title: "Wishlist" },
  "routes/app.analytics": { title: "Analytics" },
  "routes/app.lists._index": { title: "Lists" },
  "routes/app.lists.$id": { title: "List" },
  "routes/app.settings": { title: "Settings" },
  "routes/app.keys": { title: "API keys" },
  "routes/app.webhooks._index": { title: "Webhooks" },
  "routes/app.webhooks.$id": { title: "Webhook endpoint" },
  "routes/app.imports._index": { title: "Imports" },
  "routes/app.imports.new": { title: "New import" },
  "routes/app.imports.$jobId": { title: "Import" },
  "routes/app.exports": { title: "Exports" },
  "routes/app.privacy": { title: "Privacy requests" },
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
export function documentTitle(matches: ReadonlyArray<{ id: string }>): string {
  const page = currentAdminPage(matches);
  return !page || page.title === "Wishlist" ? "Wishlist" : `${page.title} · Wishlist`;
}
