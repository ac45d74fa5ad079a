/**
 * The stand-in admin's page shell: the document, its styles, and the dark header every admin page of the
 * stand-in shows (shop name, what part of the admin it is, and links to the stand-in's own tools).
 */
import type { Context } from "hono";

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A link in the header to one of the stand-in's own tools (the mailbox, the Flow triggers received). */
export interface HeaderLink {
  href: string;
  label: string;
}

/** The header of a stand-in admin page; `extra` is markup placed after the badge (the admin's language picker). */
export function adminHeader({
  shopName,
  badge,
  links = [],
  extra = "",
}: {
  shopName: string;
  badge: string;
  links?: HeaderLink[];
  extra?: string;
}) {
  const nav = links.length
    ? `<nav class="admin-links" aria-label="Stand-in tools">${links
        .map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`)
        .join("")}</nav>`
    : "";
  return `<header class="admin-top">
        <span class="admin-logo" aria-hidden="true">◆</span>
        <span class="admin-shop">${escapeHtml(shopName)}</span>
        <span class="admin-badge">${escapeHtml(badge)}</span>
        ${nav}${extra}
      </header>`;
}

export function html(title: string, body: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLES}</style>
</head>
<body>
${body}
</body>
</html>`;
}

const STYLES = `
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/20px -apple-system, BlinkMacSystemFont, "San Francisco", "Segoe UI", Roboto, sans-serif; color: #303030; background: #f1f1f1; }
  .admin-top { height: 56px; display: flex; align-items: center; gap: 12px; padding: 0 16px; background: #1a1a1a; color: #e3e3e3; }
  .admin-logo { color: #95bf47; font-size: 20px; }
  .admin-shop { font-weight: 650; }
  .admin-locale { display: flex; align-items: center; gap: 6px; font-size: 12px; }
  .admin-badge { margin-left: auto; font-size: 12px; padding: 2px 8px; border-radius: 8px; background: #303030; }
  .admin-save-bar { position: fixed; top: 0; left: 0; right: 0; height: 56px; z-index: 10; display: flex; align-items: center; padding: 0 16px; background: #1a1a1a; color: #fff; }
  .admin-save-bar[hidden] { display: none; }
  .admin-save-bar.shake { animation: shake .4s; }
  @keyframes shake { 25% { transform: translateX(-6px); } 75% { transform: translateX(6px); } }
  .admin-save-bar__label { font-weight: 650; }
  .admin-save-bar .admin-actions { margin-left: auto; }
  .admin-loading { position: fixed; top: 56px; left: 0; right: 0; height: 3px; background: #005bd3; z-index: 5; }
  .admin-loading[hidden] { display: none; }
  .admin-body { display: flex; min-height: calc(100vh - 56px); }
  .admin-nav { width: 240px; flex: none; padding: 12px 8px; background: #ebebeb; }
  .admin-nav ul { list-style: none; margin: 0; padding: 0 0 0 12px; }
  .admin-nav a { display: block; padding: 6px 8px; border-radius: 8px; color: #303030; text-decoration: none; font-weight: 550; }
  .admin-nav a[aria-current="page"] { background: #fafafa; color: #1a1a1a; font-weight: 650; }
  .admin-nav a:hover { background: #f7f7f7; }
  .admin-nav a:focus-visible, .admin-button:focus-visible { outline: 2px solid #005bd3; outline-offset: 1px; }
  .admin-main { flex: 1; display: flex; flex-direction: column; min-width: 0; }
  .admin-title-bar { display: flex; align-items: center; gap: 8px; min-height: 52px; padding: 8px 20px; }
  .admin-title-bar h1 { margin: 0; font-size: 20px; line-height: 28px; font-weight: 700; }
  .admin-actions { display: inline-flex; gap: 8px; margin-left: auto; }
  .admin-button { display: inline-block; border-radius: 8px; padding: 6px 12px; font: inherit; font-weight: 550; cursor: pointer; border: 1px solid #c9c9c9; background: #fff; color: #303030; text-decoration: none; }
  .admin-button--primary { background: #303030; color: #fff; border-color: #303030; }
  .admin-button--critical { color: #8e0b21; }
  .admin-button--primary.admin-button--critical { background: #c70a24; color: #fff; border-color: #c70a24; }
  .admin-button:disabled { opacity: .55; cursor: default; }
  .admin-save-bar .admin-button { background: #303030; color: #fff; border-color: #616161; }
  .admin-save-bar .admin-button--primary { background: #fff; color: #303030; }
  #app-frame { flex: 1; width: 100%; min-height: 640px; border: 0; }
  .admin-toasts { position: fixed; bottom: 24px; left: 50%; transform: translateX(-50%); display: flex; flex-direction: column; gap: 8px; z-index: 20; }
  .admin-toast { padding: 10px 16px; border-radius: 10px; background: #1a1a1a; color: #fff; font-weight: 550; box-shadow: 0 8px 16px rgba(0,0,0,.2); }
  .admin-toast--error { background: #8e1f0b; }
  .editor { max-width: 720px; margin: 24px auto; padding: 0 16px; }
  .editor h1 { font-size: 20px; }
  .editor-card { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 0 rgba(0,0,0,.07); display: flex; flex-direction: column; gap: 12px; align-items: flex-start; }
  .editor-toggle { display: flex; gap: 8px; align-items: center; font-weight: 650; }
  .editor-hint { margin: 0; color: #616161; }
  .admin-links { display: flex; gap: 12px; }
  .admin-links a { color: #e3e3e3; font-size: 12px; }
  .wide { max-width: 1100px; }
  .admin-table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 12px; overflow: hidden; }
  .admin-table th, .admin-table td { text-align: left; padding: 8px 12px; border-bottom: 1px solid #ebebeb; vertical-align: top; }
  .admin-table th { font-weight: 650; background: #fafafa; }
  .admin-table code, .admin-table pre { font: 12px/16px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-all; margin: 0; }
  .inline-form { display: inline-flex; gap: 6px; align-items: center; margin: 0 12px 6px 0; }
  .inline-form input { width: 96px; font: inherit; padding: 4px 6px; border: 1px solid #c9c9c9; border-radius: 6px; }
  .status-ok { color: #0c5132; font-weight: 650; }
  .status-bad { color: #8e0b21; font-weight: 650; }
  .order-list { display: flex; flex-direction: column; gap: 16px; margin-top: 16px; }
  .order-list h2 { margin: 0; font-size: 16px; }
  .charge-terms { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
  .charge-terms dt { font-weight: 650; }
  .charge-terms dd { margin: 0; }
  .mail-frame { width: 100%; min-height: 640px; border: 1px solid #ebebeb; border-radius: 12px; background: #fff; }
`;

/**
 * A POST of a stand-in admin page (`/store/<store>/<page>`) that sends the app a webhook: JSON (`{ webhook }`, or
 * 422 `{ error }`) for a caller that accepts it, else back to the page, with the error in its address.
 */
export async function answerAdminAction<Shop>(
  c: Context,
  { shop, page }: { shop: Shop | undefined; page: string },
  run: (shop: Shop) => Promise<unknown>,
) {
  const store = c.req.param("store")!;
  const json = (c.req.header("accept") ?? "").includes("application/json");
  if (!shop) return json ? c.json({ error: "No such shop" }, 404) : c.text("No such shop", 404);
  try {
    const webhook = await run(shop);
    return json ? c.json({ webhook }) : c.redirect(`/store/${store}/${page}`, 303);
  } catch (error) {
    const text = (error as Error).message;
    return json
      ? c.json({ error: text }, 422)
      : c.redirect(`/store/${store}/${page}?error=${encodeURIComponent(text)}`, 303);
  }
}
