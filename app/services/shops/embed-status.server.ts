import { getEnv } from "~/env.server";
import { adminGraphql } from "~/services/platform/admin-api.server";

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

interface ThemesResult {
  themes: {
    nodes: Array<{
      id: string;
      name: string;
      files: { nodes: Array<{ body: { content?: string } }> };
    }>;
  };
}

export type EmbedState = "enabled" | "disabled" | "not_added" | "no_main_theme";

/** settings_data.json may open with a comment block written by the theme editor. */
function parseThemeSettings(content: string): {
  current?: { blocks?: Record<string, { type?: string; disabled?: boolean }> };
} {
  const withoutComment = content.replace(/^\s*\/\*[\s\S]*?\*\//, "");
  try {
    return JSON.parse(withoutComment);
  } catch {
    return {};
  }
}

/**
 * Whether the app embed is on in the shop's published theme. App embeds live in
 * `current.blocks` of config/settings_data.json with a type `shopify://apps/<app>/blocks/<handle>/<uuid>`.
 */
export async function getEmbedStatus({ shopDomain }: { shopDomain: string }) {
  const { themes } = await adminGraphql<ThemesResult>({ shopDomain, query: MAIN_THEME_SETTINGS });
  const theme = themes.nodes[0];
  const editorUrl =
    `https://${shopDomain}/admin/themes/current/editor?context=apps` +
    `&activateAppId=${encodeURIComponent(`${getEnv().SHOPIFY_API_KEY}/${APP_EMBED_HANDLE}`)}`;
  const checkedAt = new Date();
  if (!theme) return { enabled: false, state: "no_main_theme" as EmbedState, theme: null, editorUrl, checkedAt };

  const settings = parseThemeSettings(theme.files.nodes[0]?.body.content ?? "{}");
  const block = Object.values(settings.current?.blocks ?? {}).find((candidate) =>
    candidate.type?.includes(`/blocks/${APP_EMBED_HANDLE}/`),
  );
  const state: EmbedState = !block ? "not_added" : block.disabled ? "disabled" : "enabled";
  return { enabled: state === "enabled", state, theme: { id: theme.id, name: theme.name }, editorUrl, checkedAt };
}
