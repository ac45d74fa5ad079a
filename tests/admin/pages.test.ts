import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN_PAGES, documentTitle } from "~/admin/pages";
import { createTranslator } from "~/i18n/translate";
import { ROOT } from "../../scripts/lib/databases";

// Admin pages: route files under app/routes named app.* (not the layout, app.tsx) that render a page.
const pageRoutes = readdirSync(path.join(ROOT, "app/routes"))
  .filter((file) => file.startsWith("app.") && file.endsWith(".tsx") && file !== "app.tsx")
  .filter((file) => /export default function/.test(readFileSync(path.join(ROOT, "app/routes", file), "utf8")))
  .map((file) => `routes/${file.replace(/\.tsx$/, "")}`);

describe("the admin's page registry (issue 25, finding 11)", () => {
  it("names every admin page, so each has a document title and an h1", () => {
    expect(pageRoutes.length).toBeGreaterThan(10);
    expect(pageRoutes.filter((id) => !ADMIN_PAGES[id])).toEqual([]);
  });

  it("titles a document by its deepest admin page, and any other document as the app", () => {
    const en = createTranslator("en");
    expect(documentTitle([{ id: "root" }, { id: "routes/app" }, { id: "routes/app.lists._index" }], en)).toBe(
      "Lists · Wishlist",
    );
    expect(documentTitle([{ id: "root" }, { id: "routes/app" }, { id: "routes/app._index" }], en)).toBe("Wishlist");
    expect(documentTitle([{ id: "root" }, { id: "routes/auth.login" }], en)).toBe("Wishlist");
  });

  it("titles a document in the admin's language (finding 13)", () => {
    const de = createTranslator("de");
    expect(documentTitle([{ id: "root" }, { id: "routes/app" }, { id: "routes/app.privacy" }], de)).toBe(
      "Datenschutzanfragen · Wishlist",
    );
  });
});
