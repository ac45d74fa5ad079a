/**
 * The guides (docs/*.md) as the app serves them at /help/<guide>: bundled into the build (Vite `?raw`), so
 * they are there offline and in the production image, which holds no docs/ folder; rendered with marked.
 * Links between guides stay in /help; links into the repository (decision records, source files) are
 * not served and become their text; raw HTML in a guide is shown as text.
 */
import { escapeHtml } from "~/lib/html";
import { Marked, type Tokens } from "marked";
import { HELP_GUIDES, type HelpGuide } from "~/admin/pages";

const SOURCES = import.meta.glob<string>("../../docs/*.md", { query: "?raw", import: "default", eager: true });
const IMAGES = import.meta.glob<string>("../../docs/screenshots/*.png", {
  query: "?url",
  import: "default",
  eager: true,
});

export function isHelpGuide(name: string): name is HelpGuide {
  return (HELP_GUIDES as readonly string[]).includes(name);
}

/** GitHub's heading anchors ("Delivery rules and retry schedule" -> delivery-rules-and-retry-schedule). */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Where a link of a guide leads when served: another guide at /help, the web as is, else nowhere. */
function servedHref(href: string): string | null {
  if (/^(https?:|mailto:)/.test(href) || href.startsWith("#")) return href;
  if (href === "openapi.json" || href === "/openapi.json") return "/openapi.json";
  if (href.startsWith("/docs") || href.startsWith("/openapi.json")) return href;
  const guide = /^(?:\.\/)?([a-z-]+)\.md(#.*)?$/.exec(href);
  if (guide && isHelpGuide(guide[1]!)) return `/help/${guide[1]}${guide[2] ?? ""}`;
  return null;
}

export function renderGuide(guide: HelpGuide): { title: string; html: string } {
  const source = SOURCES[`../../docs/${guide}.md`];
  if (source === undefined) throw new Error(`docs/${guide}.md is not in the build`);
  const used = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(
        this: { parser: { parseInline(tokens: Tokens.Generic[]): string } },
        { tokens, depth, text }: Tokens.Heading,
      ) {
        const base = slug(text);
        const count = used.get(base) ?? 0;
        used.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { href, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        const target = servedHref(href);
        return target === null ? inner : `<a href="${escapeHtml(target)}">${inner}</a>`;
      },
      image({ href, text }: Tokens.Image) {
        const url = IMAGES[`../../docs/${href.replace(/^\.\//, "")}`];
        return url ? `<img src="${escapeHtml(url)}" alt="${escapeHtml(text)}">` : escapeHtml(text);
      },
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(text);
      },
    },
  });
  const title = /^# (.+)$/m.exec(source)?.[1] ?? guide;
  return { title, html: marked.parse(source, { async: false }) };
}
