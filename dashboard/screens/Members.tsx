// Members: the owner and each member with their role. Invite by e-mail with a role
// (with e-mail on the link goes to that address only; off, it is shown once to pass on by
// hand), change a role, remove a member (their sessions end at once), hand ownership over, and
// require a second factor of every member, and (the owner) unlock a member's second factor
// locked by wrong tries. Each change asks for a second factor first
// (step-up, in either mode); the service checks every request itself (team.write).
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { request } from '../api.ts';
import { Field, Notes, useAct, useTitle } from './common.tsx';

const ROLES = ['admin', 'finance', 'developer', 'support', 'viewer'];
interface Member {
  id: string;
  email: string;
  role: string;
}

export function Members(_: { path?: string }) {
  useTitle('Members');
  const [members, setMembers] = useState<Member[]>();
  const [mine, setMine] = useState<{ required: boolean; owner: boolean }>();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('viewer');
  const [link, setLink] = useState<string | null>(null);
  const load = () =>
    Promise.all([
      request('/api/v1/members').then((a) => setMembers((a as { data: Member[] }).data)),
      request('/dashboard/api/factors').then((a) => setMine((a as { data: { required: boolean; owner: boolean } }).data)),
    ]);
  const { note, error, setError, act } = useAct(load);
  useEffect(() => void load().catch(setError), []);
  const call = (path: string, method: 'POST' | 'PATCH' | 'DELETE' | 'PUT', body?: unknown) => request(path, undefined, { method, body });
  // The value is read before any await: the event's target is gone by then.
  const change = (m: Member, to: string) =>
    act(() => call(`/api/v1/members/${m.id}`, 'PATCH', { role: to }).then(() => `${m.email} is now ${to}; their sessions ended.`));
  // Shown as chosen at once (the box is drawn from this state); refused, the service's own is read back.
  const require = (required: boolean) => {
    setMine({ owner: true, required });
    act(() =>
      call('/dashboard/api/factors/policy', 'PUT', { required }).then(
        () => 'Saved.',
        (e: unknown) => load().then(() => Promise.reject(e)),
      ),
    );
  };
  const invite = (e: Event) => {
    e.preventDefault();
    act(async () => {
      const { data } = (await call('/api/v1/members/invitations', 'POST', { email: email.trim(), role })) as { data: { link: string | null } };
      setLink(data.link);
      setEmail('');
      return data.link ? `E-mail is off: copy this link to ${email.trim()} by hand; it is shown this once.` : `Invitation e-mailed to ${email.trim()}.`;
    });
  };
  return (
    <section>
      <h1>Members</h1>
      <div class="scroll">
        <table>
          <caption>The team</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {members?.map((m) => (
              <tr key={m.id}>
                <th scope="row">{m.email}</th>
                <td>
                  {m.role === 'owner' ? (
                    'owner'
                  ) : (
                    <select
                      class="small"
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={(e) => change(m, (e.currentTarget as HTMLSelectElement).value)}
                    >
                      {ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  )}
                </td>
                <td>
                  {m.role !== 'owner' && (
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary small"
                        onClick={() => act(() => call(`/api/v1/members/${m.id}`, 'DELETE').then(() => `${m.email} removed; their sessions ended.`))}
                      >
                        Remove {m.email}
                      </button>
                      {mine?.owner && (
                        <button
                          type="button"
                          class="secondary small"
                          onClick={() =>
                            act(() =>
                              call(`/api/v1/members/${m.id}/ownership`, 'POST').then(() => (location.assign('/dashboard/sign-in'), 'Ownership handed over.')),
                            )
                          }
                        >
                          Make {m.email} the owner
                        </button>
                      )}
                      {mine?.owner && (
                        <button
                          type="button"
                          class="secondary small"
                          onClick={() =>
                            act(() => call('/dashboard/api/factors/unlock', 'POST', { member: m.id }).then((a) => (a as { message: string }).message))
                          }
                        >
                          Unlock second factor of {m.email}
                        </button>
                      )}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={invite}>
        <h2>Invite a member</h2>
        <Field id="invite-email" label="E-mail" type="email" value={email} onInput={setEmail} autocomplete="off" required />
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole((e.currentTarget as HTMLSelectElement).value)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </div>
        <button type="submit">Invite</button>
      </form>
      {link && (
        <p class="hash" id="invitation-link">
          {link}
        </p>
      )}
      {mine?.owner && (
        <label>
          <input type="checkbox" checked={mine.required} onChange={(e) => require((e.currentTarget as HTMLInputElement).checked)} /> Require a second factor of
          every member
        </label>
      )}
      <Notes note={note} error={error} />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Members;
