/**
 * The storefront configuration a theme or headless client needs to render the heart button and the
 * wishlist page: texts in the shopper's best locale, and the shop's rules
 * (docs/decisions/010-storefront-writes.md, "Storefront configuration").
 */
import { negotiateLocale } from "~/lib/negotiate-locale";
import { getShopSettings } from "~/services/shops/shops.server";

export const DEFAULT_STRINGS: Record<string, Record<string, string>> = {
  en: {
    add: "Add to wishlist",
    remove: "Remove from wishlist",
    saved: "Saved to your wishlist",
    removed: "Removed from your wishlist",
    empty: "Your wishlist is empty",
    title: "Wishlist",
    share: "Share wishlist",
    linkCopied: "Link copied",
    sharedTitle: "Shared wishlist",
    loginToSave: "Log in to save items",
  },
  fr: {
    add: "Ajouter à la liste d'envies",
    remove: "Retirer de la liste d'envies",
    saved: "Ajouté à votre liste d'envies",
    removed: "Retiré de votre liste d'envies",
    empty: "Votre liste d'envies est vide",
    title: "Liste d'envies",
    share: "Partager la liste",
    linkCopied: "Lien copié",
    sharedTitle: "Liste d'envies partagée",
    loginToSave: "Connectez-vous pour enregistrer des articles",
  },
  de: {
    add: "Zur Wunschliste hinzufügen",
    remove: "Von der Wunschliste entfernen",
    saved: "Auf Ihrer Wunschliste gespeichert",
    removed: "Von Ihrer Wunschliste entfernt",
    empty: "Ihre Wunschliste ist leer",
    title: "Wunschliste",
    share: "Wunschliste teilen",
    linkCopied: "Link kopiert",
    sharedTitle: "Geteilte Wunschliste",
    loginToSave: "Melden Sie sich an, um Artikel zu speichern",
  },
  es: {
    add: "Añadir a la lista de deseos",
    remove: "Quitar de la lista de deseos",
    saved: "Guardado en tu lista de deseos",
    removed: "Quitado de tu lista de deseos",
    empty: "Tu lista de deseos está vacía",
    title: "Lista de deseos",
    share: "Compartir lista",
    linkCopied: "Enlace copiado",
    sharedTitle: "Lista de deseos compartida",
    loginToSave: "Inicia sesión para guardar artículos",
  },
};

const FALLBACK_LOCALE = "en";

export async function getStorefrontConfig({
  shopId,
  acceptLanguage,
  customerLoggedIn,
}: {
  shopId: string;
  acceptLanguage: string;
  customerLoggedIn: boolean;
}) {
  const settings = await getShopSettings({ shopId });
  const available = [...new Set([...Object.keys(DEFAULT_STRINGS), ...Object.keys(settings.strings)])];
  const locale = negotiateLocale(acceptLanguage, available, FALLBACK_LOCALE);
  const language = locale.split("-")[0]!;
  const strings = {
    ...DEFAULT_STRINGS[FALLBACK_LOCALE],
    ...DEFAULT_STRINGS[language],
    ...DEFAULT_STRINGS[locale],
    ...settings.strings[language],
    ...settings.strings[locale],
  };
  return {
    locale,
    strings,
    guestEnabled: settings.guestEnabled,
    shareEnabled: settings.shareEnabled,
    multipleLists: settings.multipleLists,
    maxLists: settings.maxListsPerOwner,
    sharePath: settings.sharePath,
    customerLoggedIn,
    proxyPath: "/apps/service",
    apiVersion: "v1",
  };
}
