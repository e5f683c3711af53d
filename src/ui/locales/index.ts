// The words of each language beside English, as the service serves them
// (GET /checkout/locales/<lang>.json, built to dist/locales/). Not part of the browser bundle: the checkout fetches
// the one it needs.
import { ar } from './ar.ts';
import { fr } from './fr.ts';

export const LOCALES: Record<string, object> = { fr, ar };
