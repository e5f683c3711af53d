// Every setting's default is written once (server/service/settings.ts): startService applies that
// schema, the environment is read into it, no other file falls back to a value of its own, a
// wrong variable is named, and docs/operating.md's table says the same defaults.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../service/app.ts';
import { configFromEnv, ENVIRONMENT } from '../service/config.ts';
import { fromRoot } from '../service/paths.ts';
import { CommandSettings, Fields, SETTINGS_SHAPE, settings } from '../service/settings.ts';

const ROOT = fromRoot('');

/** Production files of the service (no tests, no test helpers). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return /^(tests|testing)$/.test(name) ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

/** Code without its comments (a comment may say what a default is). */
const uncommented = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const code = (file: string) => uncommented(readFileSync(join(ROOT, file), 'utf8'));

/**
 * `x.quoteSeconds ?? 900`, `env.HOST || '127.0.0.1'`, `config.port ?? DEFAULT_PORT`: a setting
 * falling back to a value of the code's own. (A template built from other values, such as the
 * listening address, is not a default; nor is an empty string standing for none.)
 */
function fallbacks(text: string, names: string[]): string[] {
  const pattern = new RegExp(`\\b(${names.join('|')})\\b\\)?\\s*(\\?\\?|\\|\\|)\\s*(-?\\d|'[^']|"[^"]|true\\b|false\\b|\\[|\\{|[A-Z][A-Z0-9_]{2,}\\b)`, 'g');
  return [...uncommented(text).matchAll(pattern)].map((m) => m[0]);
}

describe('settings: every default once', () => {
  const names = [...Object.keys(SETTINGS_SHAPE), ...Object.keys(ENVIRONMENT)];

  it('the check finds a setting falling back to a default of its own (it can fail)', () => {
    expect(names).toContain('quoteSeconds');
    expect(names).toContain('HOST');
    // What app.ts and config.ts held before: each default written a second time.
    const before =
      "const quoteMs = (options.quoteSeconds ?? 900) * 1000;\nconst host = env.HOST || '127.0.0.1';\nconst port = config.port ?? 4010; // a comment: x.jobs ?? 1\nconst r = options.webhookRetryMs ?? DEFAULT_RETRY.baseMs;";
    expect(fallbacks(before, names)).toEqual(['quoteSeconds ?? 9', "HOST || '1", 'port ?? 4', 'webhookRetryMs ?? DEFAULT_RETRY']);
    expect(sources('server').length).toBeGreaterThan(100);
  });

  it('no file but settings.ts gives a setting a default of its own', () => {
    const offenders = sources('server')
      .filter((file) => file !== 'server/service/settings.ts')
      .flatMap((file) => fallbacks(readFileSync(join(ROOT, file), 'utf8'), names).map((found) => `${file}: ${found}`));
    expect(offenders).toEqual([]);
    // The constants that held defaults beside the schema are gone.
    for (const gone of ['DEFAULT_RETRY', 'DEFAULT_RATES', 'DEFAULT_WITHDRAWAL_DAILY_LIMIT', 'ACCOUNT_LOCKOUT_FAILURES']) {
      expect(sources('server').filter((file) => code(file).includes(gone))).toEqual([]);
    }
  });

  it("the environment's defaults are the schema's, but for the command's port and data directory", () => {
    const library = Fields.parse({});
    const command = configFromEnv({});
    const differ = Object.keys({ ...library, ...command }).filter(
      (key) => key !== 'rates' && JSON.stringify((library as Record<string, unknown>)[key]) !== JSON.stringify((command as Record<string, unknown>)[key]),
    );
    expect(differ.sort()).toEqual(['dataDir', 'port', 'stateDir']);
    expect({ ...command, rates: undefined }).toMatchObject({ ...CommandSettings.parse({}), rates: undefined });
    expect({ ...command.rates, providers: undefined }).toEqual({ ...library.rates, providers: undefined });
    expect(command.rates.providers.map((p) => p.name)).toEqual(library.rates.providers.map((p) => p.name));
    // An unset variable is the schema's default; a set one replaces it.
    expect(configFromEnv({ QUOTE_SECONDS: '60', NEW_DESTINATION_DELAY_SECONDS: '0' })).toMatchObject({ quoteSeconds: 60, newDestinationDelayMs: 0 });
    expect(configFromEnv({ NEW_DESTINATION_DELAY_SECONDS: '90' }).newDestinationDelayMs).toBe(90_000);
  });

  let api: Service | undefined;
  afterAll(() => api?.close());

  it("startService runs on the schema's defaults when given none", async () => {
    api = await startService({ jobs: false });
    const d = settings({});
    expect(api.parts.config).toMatchObject({
      quoteMs: d.quoteSeconds * 1000,
      longPoll: d.longPoll,
      sandbox: d.sandbox,
      distDir: d.distDir,
      retry: { baseMs: d.webhookRetryMs, capMs: d.webhookRetryCapMs, windowMs: d.webhookRetryWindowMs },
      loopbackWebhooks: false,
      trustProxies: d.trustProxies,
    });
    expect(api.parts.destinations.delayMs).toBe(d.newDestinationDelayMs);
    expect(api.parts.changes.limits).toEqual({ perKey: d.maxLongPollsPerKey, perReference: d.maxLongPollsPerReference, total: d.maxLongPolls });
    // The figures themselves, as the operator's page states them (and the next test holds the page to).
    expect(d).toMatchObject({
      quoteSeconds: 900,
      webhookRetryMs: 5000,
      webhookTimeoutMs: 10_000,
      jobIntervalMs: 1000,
      sweepIntervalMs: 60_000,
      withdrawalDailyLimit: '10000',
      host: '127.0.0.1',
      port: 0,
    });
    // A default that follows another setting: the demo brings its merchant and loopback webhooks.
    expect(settings({ demo: true })).toMatchObject({ loopbackWebhooks: true, merchants: [{ id: expect.any(String) }] });
    expect(settings({ demo: true, loopbackWebhooks: false }).loopbackWebhooks).toBe(false);
  }, 120_000);

  it('a wrong option is refused, naming it', () => {
    expect(() => settings({ quoteSeconds: -1 })).toThrow(/^startService: quoteSeconds: expected a whole number of at least 0, received -1/);
    expect(() => settings({ linkCheckoutsPerMinute: { perLink: 1.5 } })).toThrow(/linkCheckoutsPerMinute\.perLink: expected a whole number/);
  });
});

describe('settings from the environment', () => {
  it('a wrong value stops the start naming its variable', () => {
    const free = new Set(['HOST', 'DATA_DIR', 'TREASURY_KEY_FILE', 'TEST_TREASURY_KEY_FILE', 'SEED_DEMO_MERCHANT']);
    const checked = Object.keys(ENVIRONMENT).filter((name) => !free.has(name));
    expect(checked.length).toBeGreaterThan(20);
    for (const name of checked) {
      expect(() => configFromEnv({ [name]: 'not a value' }), name).toThrow(new RegExp(`^${name}: `));
    }
    expect(() => configFromEnv({ QUOTE_SECONDS: '5' })).toThrow('QUOTE_SECONDS: expected a whole number from 10 to 86400, received "5"');
    expect(() => configFromEnv({ SANDBOX: 'yes' })).toThrow('SANDBOX: expected true or false, received "yes"');
    expect(() => configFromEnv({ NEW_DESTINATION_DELAY_SECONDS: '1.5' })).toThrow(/^NEW_DESTINATION_DELAY_SECONDS: expected a whole number from 0 to 2592000/);
  });
});

describe('docs/operating.md: the table of settings', () => {
  const page = readFileSync(fromRoot('docs/operating.md'), 'utf8');
  const rows = page
    .split('\n')
    .filter((line) => /^\| `[A-Z_]+`/.test(line))
    .flatMap((line) => {
      const [variables, defaults] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
      const names = variables.split(', ').map((v) => v.replace(/`/g, ''));
      const values = defaults.split(', ');
      return names.map((name, i) => ({ name, value: names.length === values.length ? values[i] : defaults }));
    });
  /** How the page may write a default: `900`, or for a time in ms, 5 s, 1 h, 3 days. */
  const forms = (value: unknown, name: string): string[] => {
    const shown = [`\`${value}\``];
    if (typeof value === 'number' && /_MS$/.test(name) && value > 0) {
      for (const [unit, ms] of [
        ['days', 86_400_000],
        ['h', 3_600_000],
        ['s', 1000],
      ] as const)
        if (value % ms === 0) shown.push(`${value / ms} ${unit}`);
    }
    return shown;
  };

  it('lists every variable the service reads, and no other', () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.map((r) => r.name).sort()).toEqual([...Object.keys(ENVIRONMENT), 'SERVICE_URL', 'LOG_LEVEL'].sort());
  });

  it("gives each variable the schema's default", () => {
    const defaults = CommandSettings.parse({}) as Record<string, unknown>;
    let compared = 0;
    for (const { name, value } of rows) {
      const entry = ENVIRONMENT[name];
      const given = entry && defaults[entry.setting];
      if (given === undefined || typeof given === 'object' || typeof given === 'function') continue;
      const shown = entry.seconds ? (given as number) / 1000 : given;
      expect(
        forms(shown, name).some((form) => value.includes(form)),
        `${name}: the page says ${value}, the schema ${shown}`,
      ).toBe(true);
      compared++;
    }
    expect(compared).toBeGreaterThan(15);
  });
});
