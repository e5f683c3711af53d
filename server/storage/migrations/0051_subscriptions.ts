// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Subscriptions from ordinary wallets (issue 51), owned by server/subscriptions/. A plan is a
// price in one coin on one chain (base units) for a number of periods of an interval; a
// subscription is a customer's wallet on a plan, which approved the service's charging address
// for price × periods. Each period's charge is its own row, unique per (subscription, period):
// written, and claimed, before anything is broadcast, so no period is charged twice whatever
// instance or tick asks. A charge is an ordinary payment (`reference`), credited by the watcher.
export default `
  CREATE TABLE IF NOT EXISTS subscription_plans (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    name text NOT NULL,
    coin text NOT NULL,
    chain_id integer NOT NULL,
    token text NOT NULL,
    decimals integer NOT NULL,
    price numeric(78,0) NOT NULL CHECK (price > 0),
    period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'year')),
    periods integer NOT NULL CHECK (periods > 0),
    created_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS subscription_plans_owner ON subscription_plans (merchant_id, mode, created_ms DESC, id DESC);
  CREATE TABLE IF NOT EXISTS subscriptions (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    plan_id uuid NOT NULL REFERENCES subscription_plans (id),
    wallet text NOT NULL,
    spender text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'active', 'past_due', 'canceled')),
    start_ms bigint NOT NULL,
    charged integer NOT NULL DEFAULT 0,
    next_ms bigint,
    failures integer NOT NULL DEFAULT 0,
    canceled_ms bigint,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS subscriptions_owner ON subscriptions (merchant_id, mode, created_ms DESC, id DESC);
  CREATE INDEX IF NOT EXISTS subscriptions_due ON subscriptions (next_ms) WHERE status <> 'canceled';
  CREATE TABLE IF NOT EXISTS subscription_charges (
    subscription_id uuid NOT NULL REFERENCES subscriptions (id),
    period integer NOT NULL,
    reference text NOT NULL,
    amount numeric(78,0) NOT NULL,
    state text NOT NULL CHECK (state IN ('due', 'sending', 'sent', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    tx_hash text,
    error text,
    claimed_by text,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (subscription_id, period)
  );
`;
