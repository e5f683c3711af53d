// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// A send's e-mails once per send (issue 49): a withdrawal or refund a reorganisation took away
// and sent again at its recorded transaction is told completed (confirmed) a second time; its
// e-mail is keyed on the send and state (`once_key`, the SHA-256 of the key and the recipient:
// no address is kept once sent), and a second is not written (email/store.ts enqueue). Other
// e-mails have none (NULLs never conflict).
// The sweeper looks at final sweeps again while above the finalized block (chain/sweep-recheck.ts):
// `chain_transfers_sweep_final` serves that query (sweep-store.ts finalSweeps) by chain and
// block, so each look reads the recent sweeps only, not every transfer ever swept.
export default `
  ALTER TABLE emails ADD COLUMN IF NOT EXISTS once_key text;
  CREATE UNIQUE INDEX IF NOT EXISTS emails_once ON emails (once_key);
  CREATE INDEX IF NOT EXISTS chain_transfers_sweep_final ON chain_transfers (chain_id, swept_block)
    WHERE swept_hash IS NOT NULL AND sweep_final AND state <> 'orphaned';
`;
