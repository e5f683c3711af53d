// The tests' password cost: scrypt at N = 2^10 instead of the service's default 2^15
// (service/settings.ts, passwordHashCost), about 1/32 of the time a hash. Every member a test signs up
// and every sign-in paid ~0.5 s of a core at the default: 149 hashes, 64 s, in the 8 unit files
// that sign in. The tests of the hash itself (its default cost, NOBODY, two at once) keep the
// default. Never read by the service: only a test passes it to startService.
export const TEST_PASSWORD_HASH_COST = 10;

/** startService options for cheap password hashes. */
export const cheapPasswords = { passwordHashCost: TEST_PASSWORD_HASH_COST } as const;
