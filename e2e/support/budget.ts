/**
 * dist/checkout.js's budget, everything included, as `gzip -9 -c dist/checkout.js | wc -c`.
 * DEVELOPERS.md set 26,000; issue 13 lowers it as bytes come off (24,603 when this was set;
 * the aim is 24,000). The bundle test holds it; the bench prints it.
 */
export const BUNDLE_BUDGET = 25_000;
