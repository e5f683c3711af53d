/**
 * dist/checkout.js's budget, everything included, as `gzip -9 -c dist/checkout.js | wc -c`.
 * DEVELOPERS.md set 26,000, later lowered to 24,000 (23,980 when this was set; the
 * aim is 20,000). The bundle test holds it; the bench prints it. Only ever lower it.
 */
export const BUNDLE_BUDGET = 24_000;
