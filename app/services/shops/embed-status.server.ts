import { getEnv } from "~/env.server";
import { isDomainError } from "~/lib/domain-error";
import { adminGraphql, PlatformUnavailable, present } from "~/services/platform/admin-api.server";

/** Handle of the app embed block in extensions/wishlist-theme (blocks/app-embed.liquid). */
export const APP_EMBED_HANDLE = "app-embed";

const MAIN_THEME_SETTINGS = `#graphql
  query WishlistEmbedStatus {
    themes(first: 1, roles: [MAIN]) {
      nodes {
        id
        name
        files(filenames: ["config/settings_data.json"], first: 1) {
          nodes { body { ... on OnlineStoreThemeFileBodyText { content } } }
        }
      }
    }
  }`;

export type EmbedState = "enabled" | "disabled" | "not_added" | "no_main_theme";

const THEME_GID = /^gid:\/\/shopify\/OnlineStoreTheme\/(\d+)$/;

/**
 * The published theme as the API names platform objects: its numeric id as a decimal string (the form the
 * REST Admin API, the theme editor's URLs and `theme.id` in Liquid use), with the GraphQL gid kept beside
 * it. A gid of another shape cannot be turned into that id: it is treated as an unusable platform answer
 * (`platform_unavailable`), never passed on half converted.
 */
function publishedTheme(theme: { id: string; name: string }) {
  const numericId = THEME_GID.exec(theme.id)?.[1];
  if (!numericId) {
    throw new PlatformUnavailable(
      `The platform named the published theme with an unexpected id (${theme.id}).`,
      "errors",
      {
        transient: false,
      },
    );
  }
  return { id: numericId, gid: theme.id, name: theme.name };
}

/** settings_data.json may open with a comment block written by the theme editor. */
function parseThemeSettings(content: string): {
  current?: { blocks?: Record<string, { type?: unknown; disabled?: boolean } | null> };
} {
  const withoutComment = content.replace(/^\s*\/\*[\s\S]*?\*\//, "");
  try {
    return JSON.parse(withoutComment);
  } catch {
    return {};
  }
}

const EMBED_TYPE = /^shopify:\/\/apps\/([^/]+)\/blocks\/([^/]+)\/([^/]+)$/;

/**
 * Whether a block type is our app embed: `shopify://apps/<app handle>/blocks/app-embed/<extension id>`,
 * with our app's handle (SHOPIFY_APP_HANDLE, `handle` in shopify.app.toml) and, when
 * SHOPIFY_WISHLIST_THEME_ID is set, our theme extension's id. Other apps' embeds often share the block
 * handle `app-embed`, so the handle alone never decides.
 */
export function isOurEmbed(type: unknown): boolean {
  if (typeof type !== "string") return false;
  const match = EMBED_TYPE.exec(type);
  if (!match) return false;
  const [, appHandle, blockHandle, extensionId] = match;
  const env = getEnv();
  if (appHandle !== env.SHOPIFY_APP_HANDLE || blockHandle !== APP_EMBED_HANDLE) return false;
  return !env.SHOPIFY_WISHLIST_THEME_ID || extensionId!.toLowerCase() === env.SHOPIFY_WISHLIST_THEME_ID.toLowerCase();
}

/**
 * The theme editor of the published theme with our app embed switched on, ready to save, as a link inside
 * the platform's admin: App Bridge opens `shopify://admin/...` links there, around the embedded app.
 */
export function embedActivationAdminLink(): string {
  const apiKey = encodeURIComponent(getEnv().SHOPIFY_API_KEY);
  return `shopify://admin/themes/current/editor?context=apps&activateAppId=${apiKey}/${APP_EMBED_HANDLE}`;
}

/**
 * Whether the app embed is on in the shop's published theme. App embeds live in
 * `current.blocks` of config/settings_data.json with a type `shopify://apps/<app>/blocks/<handle>/<uuid>`.
 */
export async function getEmbedStatus({ shopDomain }: { shopDomain: string }) {
  const { themes } = await adminGraphql({ shopDomain, query: MAIN_THEME_SETTINGS });
  const theme = present(themes, "the shop's themes").nodes[0];
  const editorUrl =
    `https://${shopDomain}/admin/themes/current/editor?context=apps` +
    `&activateAppId=${encodeURIComponent(`${getEnv().SHOPIFY_API_KEY}/${APP_EMBED_HANDLE}`)}`;
  const checkedAt = new Date();
  if (!theme) return { enabled: false, state: "no_main_theme" as EmbedState, theme: null, editorUrl, checkedAt };

  const settings = parseThemeSettings(present(theme.files, "the theme's files").nodes[0]?.body.content ?? "{}");
  const blocks = Object.values(settings.current?.blocks ?? {}).filter((candidate) => isOurEmbed(candidate?.type));
  // A theme may hold our embed twice (pasted settings): it is on if any copy is.
  const state: EmbedState =
    blocks.length === 0 ? "not_added" : blocks.some((block) => block?.disabled !== true) ? "enabled" : "disabled";
  return { enabled: state === "enabled", state, theme: publishedTheme(theme), editorUrl, checkedAt };
}

export type EmbedStatus = Awaited<ReturnType<typeof getEmbedStatus>>;

/**
 * The embed status for a page that shows it beside other things: when the platform cannot be asked (not
 * reachable, or the shop's token missing or refused), why not, instead of an error.
 */
export async function getEmbedStatusOrReason({
  shopDomain,
}: {
  shopDomain: string;
}): Promise<{ status: EmbedStatus; unavailable: null } | { status: null; unavailable: string }> {
  try {
    return { status: await getEmbedStatus({ shopDomain }), unavailable: null };
  } catch (error) {
    if (isDomainError(error, "platform_unavailable") || isDomainError(error, "platform_not_connected")) {
      return { status: null, unavailable: error.message };
    }
    throw error;
  }
}
