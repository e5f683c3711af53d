// Words and places: the dashboard in English (its source's words), French or Arabic (right to
// left). The language is the member's choice (the picker; kept in this browser's localStorage,
// as a member has no field for it yet), else the browser's. A catalog (words/fr.ts, fr-more.ts and fr-setup.ts,
// ar.ts, ar-more.ts and ar-setup.ts: English text to its translation) is three chunks of its own, fetched when its language is chosen, so
// the first load carries none. Numbers and dates are Intl's, in the language shown.
import { signal } from '@preact/signals';

export const LANGS = { en: 'English', fr: 'Français', ar: 'العربية' };
export type Lang = keyof typeof LANGS;
const KEY = 'dashboard-language';

export const lang = signal<Lang>('en');
let words: Record<string, string> = {};

/** `text` in the language shown, `{name}`s filled from `values`; a component that calls it is drawn again when the language changes. */
export const t = (text: string, values?: Record<string, unknown>): string =>
  (lang.value && (words[text] ?? text)).replace(/\{(\w+)\}/g, (_, name: string) => String(values?.[name]));

/** Shows the dashboard in `chosen`, its catalog fetched first; `keep`: the member chose it (remembered in this browser). */
export async function speak(chosen: Lang, keep?: boolean): Promise<void> {
  // Kept before its words arrive: a page left at once (a link, a reload) opens in the choice.
  if (keep) localStorage.setItem(KEY, chosen);
  // Three chunks a language (the money screens' words; the payments, products and links'; the developers, events and settings'), fetched together.
  const parts =
    chosen === 'en'
      ? []
      : await Promise.all(
          chosen === 'fr'
            ? [import('./words/fr.ts'), import('./words/fr-more.ts'), import('./words/fr-setup.ts')]
            : [import('./words/ar.ts'), import('./words/ar-more.ts'), import('./words/ar-setup.ts')],
        );
  words = Object.assign({}, ...parts.map((m) => m.default));
  document.documentElement.lang = chosen;
  document.documentElement.dir = chosen === 'ar' ? 'rtl' : 'ltr';
  lang.value = chosen;
}

/** The member's choice in this browser, else the browser's first language we speak, else English. */
export const preferred = (): Lang =>
  [localStorage.getItem(KEY), ...navigator.languages].map((l) => l?.slice(0, 2)).find((l): l is Lang => !!l && l in LANGS) ?? 'en';
