// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 48: a step-up opens the one request it was asked for, once, not every stepped-up route
// for five minutes: the session keeps the digest of that request (mode, method, path and body)
// beside the time of the proof, and the request takes it with one conditional UPDATE. A person
// with a second factor signs in in two steps: the password opens a session that waits for the
// factor (awaiting_factor) and serves nothing else until it is proved.
export default `
  ALTER TABLE dashboard_sessions ADD COLUMN IF NOT EXISTS stepped_up_for text;
  ALTER TABLE dashboard_sessions ADD COLUMN IF NOT EXISTS awaiting_factor boolean NOT NULL DEFAULT false;
`;
