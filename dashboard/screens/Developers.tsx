// Developers: the public keys, the secret key rolled (shown once; the old one refused now or
// after a chosen delay), the webhook URL and its signing secret, rotated here.
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { RolledKey } from '../../contract/dashboard.ts';
import { nullable, text } from '../../contract/fields.ts';
import { mode, request, session, signOut } from '../api.ts';
import { useLocation } from 'preact-iso';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { when } from '../format.ts';
import { t } from '../words.ts';

/** The mode, said in the language shown. */
const modeWord = () => (mode.value === 'test' ? t('test') : t('live'));

export const Endpoint = z.object({
  data: z.object({ url: nullable<string>((v) => typeof v === 'string', 'text'), secret: text, previousSecretValidUntil: z.optional(text) }),
});
export const Rolled = z.object({ data: RolledKey });

export function Developers(_: { path?: string }) {
  useTitle(t('Developers'));
  const { route } = useLocation();
  const [endpoint, setEndpoint] = useState<z.infer<typeof Endpoint>['data'] | undefined>();
  const [url, setUrl] = useState('');
  const [showSecret, setShowSecret] = useState(false);
  const [rolled, setRolled] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [delay, setDelay] = useState('0');
  const { note, error, setError, act } = useAct();
  const load = useCallback(async () => {
    const answer = (await request('/api/v1/webhook', Endpoint)).data;
    setEndpoint(answer);
    setUrl(answer.url ?? '');
  }, [mode.value]);
  useEffect(() => {
    setRolled(undefined);
    setConfirming(false);
    void load().catch(setError);
  }, [load]);
  const publicKey = session.value?.publicKeys[mode.value] ?? '';
  return (
    <section>
      <h1>{t('Developers')}</h1>
      <Notes note={note} error={error} />
      <h2>{t('API keys ({mode})', { mode: modeWord() })}</h2>
      <dl class="facts">
        <dt>{t('Public key')}</dt>
        <dd class="hash" id="public-key">
          {publicKey}
        </dd>
        <dt>{t('Secret key')}</dt>
        <dd>{t('Shown only when made. Keep it on your server.')}</dd>
      </dl>
      <p>
        <a href="/dashboard/keys">Restricted keys</a>: secret keys that may do only what you choose.
      </p>
      {rolled && (
        <div class="card" role="region" aria-labelledby="new-key">
          <h3 id="new-key">{t('Your new {mode} secret key', { mode: modeWord() })}</h3>
          <p>{t('Copy it now: it is not shown again.')}</p>
          <p class="hash" id="rolled-key">
            {rolled}
          </p>
        </div>
      )}
      {confirming ? (
        <div class="card">
          <div class="field">
            <label for="revoke">{t('The old key stops working')}</label>
            <select id="revoke" value={delay} onChange={(e) => setDelay((e.currentTarget as HTMLSelectElement).value)}>
              <option value="0">{t('Now')}</option>
              <option value="3600">{t('In an hour')}</option>
              <option value="86400">{t('In a day')}</option>
              <option value="604800">{t('In a week')}</option>
            </select>
          </div>
          <button
            type="button"
            class="danger"
            onClick={() =>
              act(async () => {
                const made = (await request('/api/v1/keys/roll', Rolled, { method: 'POST', body: { revoke_old_after: Number(delay) } })).data;
                setRolled(made.secretKey);
                setConfirming(false);
                return made.oldKeyValidUntil
                  ? t('New key made; the old one works until {time}.', { time: when(made.oldKeyValidUntil) })
                  : t('New key made; the old one is refused now.');
              })
            }
          >
            {t('Roll the {mode} secret key', { mode: modeWord() })}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            {t('Cancel')}
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          {t('Roll secret key…')}
        </button>
      )}

      <h2>{t('Webhook ({mode})', { mode: modeWord() })}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await request('/api/v1/webhook', Endpoint, { method: 'PUT', body: { url: url.trim() } });
            await load();
            return t('Webhook URL saved.');
          });
        }}
        noValidate
      >
        <Field
          id="webhook-url"
          label={t('Webhook URL')}
          type="url"
          value={url}
          onInput={setUrl}
          hint={t('Where events are sent, such as https://shop.example.com/webhooks.')}
          error={fieldError(error, 'url')}
        />
        <button type="submit">{t('Save webhook URL')}</button>
      </form>
      {endpoint && (
        <dl class="facts">
          <dt>{t('Signing secret')}</dt>
          <dd class="hash">{showSecret ? endpoint.secret : '••••••••••••'}</dd>
          {endpoint.previousSecretValidUntil && (
            <>
              <dt>{t('Previous secret signs until')}</dt>
              <dd>{when(endpoint.previousSecretValidUntil)}</dd>
            </>
          )}
        </dl>
      )}
      <div class="actions">
        <button type="button" class="secondary" aria-pressed={showSecret} onClick={() => setShowSecret(!showSecret)}>
          {t('Show signing secret')}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            act(async () => {
              await request('/api/v1/webhook/rotate', Endpoint, { method: 'POST' });
              await load();
              return t('A new signing secret; the old one still signs for 24 hours.');
            })
          }
        >
          {t('Rotate signing secret')}
        </button>
      </div>

      <h2>{t('Sessions')}</h2>
      <button type="button" class="secondary" onClick={() => act(async () => (await signOut(true), route('/dashboard/sign-in'), ''))}>
        {t('Sign out everywhere')}
      </button>
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Developers;
