// The dashboard's words: every text a screen passes to t() as a literal, and every
// word of the lists it passes through t() (the navigation, the states, the bank fields, the
// payment statuses, the link kinds, the settlement choices), has its
// French and Arabic in dashboard/words/, each translation with the same {placeholders}.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import frMoney from '../../../dashboard/words/fr.ts';
import frMore from '../../../dashboard/words/fr-more.ts';
import arMoney from '../../../dashboard/words/ar.ts';
import arMore from '../../../dashboard/words/ar-more.ts';
import { PERMISSIONS } from '../../../contract/team.ts';
import frSetup from '../../../dashboard/words/fr-setup.ts';
import arSetup from '../../../dashboard/words/ar-setup.ts';
import { fromRoot } from '../../service/paths.ts';

// A language's three chunks, as words.ts merges them; a word in two would be said twice.
const fr = { ...frMoney, ...frMore, ...frSetup };
const ar = { ...arMoney, ...arMore, ...arSetup };
const read = (path: string) => readFileSync(fromRoot(path), 'utf8');
const sources = ['dashboard/App.tsx', 'dashboard/format.ts', ...readdirSync(fromRoot('dashboard/screens')).map((f) => `dashboard/screens/${f}`)];
const unquote = (literal: string) => JSON.parse(`"${literal.replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string;
/** The literals given to t(), and the words of the lists the screens translate by t(LIST[x]). */
function translated(): string[] {
  const words = new Set<string>();
  for (const path of sources) {
    const text = read(path);
    for (const m of text.matchAll(/\bt\('((?:\\.|[^'\\])*)'/g)) words.add(unquote(m[1]!));
    for (const list of (
      {
        'dashboard/App.tsx': ['SCREENS'],
        'dashboard/screens/money.tsx': ['STATES'],
        'dashboard/screens/Payouts.tsx': ['LABELS'],
        'dashboard/screens/Payment.tsx': ['TRANSFER_STATES'],
        'dashboard/format.ts': ['STATUS_WORDS'],
        'dashboard/screens/Links.tsx': ['KINDS', 'TYPES'],
        'dashboard/screens/Events.tsx': ['STATES'],
        'dashboard/screens/Settlement.tsx': ['CHOICES'],
      } as Record<string, string[]>
    )[path] ?? []) {
      const body = new RegExp(`const ${list}[^=]*=\\s*([\\[{][\\s\\S]*?[\\]}])(?: as const)?;`).exec(text)?.[1];
      // A tuple's words follow its key (['wallet', label, words]); an object's follow a colon. A
      // screen's permission (SCREENS' last) is a name, not a word.
      if (body)
        for (const m of body.matchAll(/(?:,\s*|:\s*)'((?:\\.|[^'\\])*)'/g)) if (!(PERMISSIONS as readonly string[]).includes(m[1]!)) words.add(unquote(m[1]!));
    }
  }
  // History's titles and columns are given as props and translated inside it.
  for (const path of sources)
    for (const m of read(path).matchAll(/(?:title|columns)=\{?\[?((?:'[^']*',?\s*)+)/g)) for (const w of m[1]!.matchAll(/'([^']*)'/g)) words.add(w[1]!);
  return [...words];
}
const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the dashboard in French and Arabic', () => {
  it('has every word the screens translate, with the same placeholders', () => {
    const words = translated();
    expect(words.length).toBeGreaterThan(90);
    for (const [name, catalog] of [
      ['fr', fr],
      ['ar', ar],
    ] as const) {
      expect(
        words.filter((w) => !(w in catalog)),
        `${name}: missing`,
      ).toEqual([]);
      for (const [english, said] of Object.entries(catalog)) expect(holes(said), `${name}: ${english}`).toEqual(holes(english));
    }
    expect(Object.keys(fr).sort()).toEqual(Object.keys(ar).sort());
    for (const [name, ...chunks] of [
      ['fr', frMoney, frMore, frSetup],
      ['ar', arMoney, arMore, arSetup],
    ] as const) {
      const keys = chunks.flatMap((chunk) => Object.keys(chunk));
      expect(
        keys.filter((w, i) => keys.indexOf(w) !== i),
        `${name}: in two chunks`,
      ).toEqual([]);
    }
  });
});
