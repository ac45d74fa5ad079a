import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { AdminLocale } from "./locales";
import { createTranslator, type Translator } from "./translate";

const I18nContext = createContext<Translator>(createTranslator("en"));

/** The admin's language for every page below (app.tsx provides it from the layout's loader). */
export function I18nProvider({ locale, children }: { locale: AdminLocale; children: ReactNode }) {
  const translator = useMemo(() => createTranslator(locale), [locale]);
  return <I18nContext.Provider value={translator}>{children}</I18nContext.Provider>;
}

export const useI18n = () => useContext(I18nContext);
