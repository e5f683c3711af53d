// Fragments of one feature's store that another feature reads or writes in its own transaction,
// put together here (where the service is composed) and handed in as ports: no feature imports
// another's store (server/tests/boundaries.test.ts).
import { actionsSince } from '../audit/store.ts';
import { dropSignInLinks, endSessions, isOwnerEmail, ownerLogin, setOwnerLogin } from '../dashboard/login-store.ts';
import type { EmailReads } from '../email/store.ts';
import { forgetFactorsOf, handFactorsOver, handStepUpTriesOver } from '../factors/store.ts';
import { businessName, fullKeysOf, handKeysOver, lockMerchant, narrowKeys } from '../merchants/account-store.ts';
import { customerContact } from '../payments/list-store.ts';
import { membersOf } from '../team/store.ts';
import type { TeamPorts } from '../team/use-cases.ts';

/** What the e-mails read of the merchants', the dashboard's, the team's and the payments' rows. */
export const emailReads: EmailReads = { businessName, ownerLogin, membersOf, customerContact };

/** What a team change writes of the merchants' keys, the owner's login and sessions, the second factors and the audit log. */
export const teamPorts: TeamPorts = {
  lockMerchant,
  narrowKeys,
  fullKeysOf,
  handKeysOver,
  ownerLogin,
  setOwnerLogin,
  isOwnerEmail,
  endSessions,
  dropSignInLinks,
  forgetFactorsOf,
  handFactorsOver,
  handStepUpTriesOver,
  actionsSince,
};
