// Every word an e-mail says, in English: the model the other languages follow (as the
// checkout's src/ui/text.ts). `{name}` is filled in by rules.ts, escaped for the HTML part.
// Each e-mail has a subject, its lines (paragraphs), and, where it has one, its button.

import type { SecurityChange } from '../../contract/events.ts';

export const LANGUAGES = ['en', 'fr', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

const en = {
  greeting: 'Hello,',
  signature: '{business}, through its payment service',
  notMe: 'If this was not you, sign in and choose "Sign out everywhere", then change your password.',
  ignore: 'If you were not expecting this e-mail, you can ignore it.',
  testMode: '(test mode)',
  invitation: {
    subject: "You are invited to {business}'s team",
    lines: ["You are invited to join {business}'s team as {role}.", 'The link works once, for a week, and only with this e-mail address.'],
    button: 'Join the team',
  },
  sign_in_link: {
    subject: 'Your sign-in link for {business}',
    lines: [
      "Here is a one-time link to sign in to {business}'s dashboard and choose a new password.",
      'It works once, for 24 hours; earlier links no longer work.',
    ],
    button: 'Sign in',
  },
  new_device: {
    subject: 'A new sign-in to {business}',
    lines: ['Your account at {business} was signed in to from a browser it had not seen before, at {time} (UTC).'],
    button: 'Open the dashboard',
  },
  payment_received: {
    subject: 'Payment received: {amount} {coin} {mode}',
    lines: ['{business} received a payment of {amount} {coin} ({fiat} {currency}), reference {reference}.'],
    button: 'See the payment',
  },
  payout_sent: {
    subject: 'Bank payout paid: {fiat} {currency}',
    lines: ["{business}'s bank payout of {fiat} {currency} ({amount} {coin}), reference {reference}, was paid."],
    button: 'See the payouts',
  },
  withdrawal_sent: {
    subject: 'Withdrawal sent: {amount} {coin} {mode}',
    lines: ["{business}'s withdrawal of {amount} {coin} on chain {chain} was sent."],
    button: 'See the balances',
  },
  destination_pending: {
    subject: 'A new {what} is waiting: {business}',
    lines: [
      'A new {what} was added to {business}. Money goes there only from {effective} (UTC).',
      'If nobody on your team asked for it, cancel it in the dashboard before then, and roll your secret keys.',
    ],
    button: 'Review the change',
  },
  refund_link: {
    subject: '{business} is refunding you {amount} {coin}',
    lines: ['{business} is refunding your payment {reference}: {amount} {coin}.', 'Follow the link to say which wallet the refund goes to. It works once.'],
    button: 'Claim the refund',
  },
  refund_receipt: {
    subject: 'Your refund from {business}: {amount} {coin}',
    lines: ['{business} sent your refund of {amount} {coin} on chain {chain} for the payment {reference}.', 'Transaction: {tx}'],
    button: '',
  },
  factor_changed: {
    subject: 'Your second factors changed: {business}',
    lines: ['{change} on your account at {business}, at {time} (UTC).'],
    button: 'Review your security',
  },
  security_changed: {
    subject: 'A security change at {business}',
    lines: ['{change} at {business}, at {time} (UTC).', '{detail}'],
    button: 'Open the dashboard',
  },
  changes: {
    passkey_added: 'A passkey was added',
    totp_added: 'An authenticator app was added',
    factor_removed: 'A second factor was removed',
    recovery_codes: 'New recovery codes were made',
    recovery_code_used: 'A recovery code was used to confirm a sign-in',
    key_created: 'A restricted key was made',
    key_revoked: 'A restricted key was revoked',
    role_changed: "A member's role was changed",
    member_removed: 'A member was removed',
    key_rolled: 'The secret key was rolled',
    step_up_locked: 'Second-factor confirmation was locked after too many wrong tries',
    step_up_unlocked: 'Second-factor confirmation was unlocked',
    support_limit: "The support role's refund limit was changed",
  },
  what: { payout_address: 'payout address', bank_account: 'bank account', withdrawal_address: 'withdrawal address' },
  roles: { admin: 'an admin', finance: 'finance', developer: 'a developer', support: 'support', viewer: 'a viewer' },
};

export type Words = typeof en;
// Every security change an event tells has its words (contract/events.ts).
void (en.changes satisfies Record<SecurityChange, string>);
export type EmailKind = Exclude<keyof Words, 'greeting' | 'signature' | 'notMe' | 'ignore' | 'testMode' | 'what' | 'roles' | 'changes'>;

const fr: Words = {
  greeting: 'Bonjour,',
  signature: '{business}, par son service de paiement',
  notMe: "Si ce n'était pas vous, connectez-vous, choisissez « Se déconnecter partout », puis changez votre mot de passe.",
  ignore: "Si vous n'attendiez pas cet e-mail, vous pouvez l'ignorer.",
  testMode: '(mode test)',
  invitation: {
    subject: "Vous êtes invité(e) dans l'équipe de {business}",
    lines: [
      "Vous êtes invité(e) à rejoindre l'équipe de {business} en tant que {role}.",
      'Le lien fonctionne une fois, pendant une semaine, et seulement avec cette adresse e-mail.',
    ],
    button: "Rejoindre l'équipe",
  },
  sign_in_link: {
    subject: 'Votre lien de connexion à {business}',
    lines: [
      'Voici un lien à usage unique pour vous connecter au tableau de bord de {business} et choisir un nouveau mot de passe.',
      'Il fonctionne une fois, pendant 24 heures ; les liens précédents ne fonctionnent plus.',
    ],
    button: 'Se connecter',
  },
  new_device: {
    subject: 'Nouvelle connexion à {business}',
    lines: ['Votre compte chez {business} a été ouvert depuis un navigateur inconnu, le {time} (UTC).'],
    button: 'Ouvrir le tableau de bord',
  },
  payment_received: {
    subject: 'Paiement reçu : {amount} {coin} {mode}',
    lines: ['{business} a reçu un paiement de {amount} {coin} ({fiat} {currency}), référence {reference}.'],
    button: 'Voir le paiement',
  },
  payout_sent: {
    subject: 'Virement bancaire payé : {fiat} {currency}',
    lines: ['Le virement bancaire de {business} de {fiat} {currency} ({amount} {coin}), référence {reference}, a été payé.'],
    button: 'Voir les virements',
  },
  withdrawal_sent: {
    subject: 'Retrait envoyé : {amount} {coin} {mode}',
    lines: ['Le retrait de {business} de {amount} {coin} sur la chaîne {chain} a été envoyé.'],
    button: 'Voir les soldes',
  },
  destination_pending: {
    subject: 'Nouveau {what} en attente : {business}',
    lines: [
      "Un nouveau {what} a été ajouté à {business}. L'argent n'y ira qu'à partir du {effective} (UTC).",
      "Si personne de votre équipe ne l'a demandé, annulez-le dans le tableau de bord d'ici là, et renouvelez vos clés secrètes.",
    ],
    button: 'Examiner le changement',
  },
  refund_link: {
    subject: '{business} vous rembourse {amount} {coin}',
    lines: [
      '{business} rembourse votre paiement {reference} : {amount} {coin}.',
      'Suivez le lien pour indiquer le portefeuille qui recevra le remboursement. Il fonctionne une fois.',
    ],
    button: 'Recevoir le remboursement',
  },
  refund_receipt: {
    subject: 'Votre remboursement de {business} : {amount} {coin}',
    lines: ['{business} a envoyé votre remboursement de {amount} {coin} sur la chaîne {chain} pour le paiement {reference}.', 'Transaction : {tx}'],
    button: '',
  },
  factor_changed: {
    subject: 'Vos seconds facteurs ont changé : {business}',
    lines: ['{change} sur votre compte chez {business}, le {time} (UTC).'],
    button: 'Vérifier votre sécurité',
  },
  security_changed: {
    subject: 'Un changement de sécurité chez {business}',
    lines: ['{change} chez {business}, le {time} (UTC).', '{detail}'],
    button: 'Ouvrir le tableau de bord',
  },
  changes: {
    key_created: 'Une clé restreinte a été créée',
    key_revoked: 'Une clé restreinte a été révoquée',
    role_changed: "Le rôle d'un membre a été modifié",
    member_removed: 'Un membre a été retiré',
    key_rolled: 'La clé secrète a été renouvelée',
    step_up_locked: "La confirmation par second facteur a été bloquée après trop d'essais erronés",
    step_up_unlocked: 'La confirmation par second facteur a été débloquée',
    support_limit: 'La limite de remboursement du rôle support a été modifiée',
    passkey_added: "Une clé d'accès a été ajoutée",
    totp_added: "Une application d'authentification a été ajoutée",
    factor_removed: 'Un second facteur a été retiré',
    recovery_codes: 'De nouveaux codes de secours ont été créés',
    recovery_code_used: 'Un code de secours a été utilisé pour confirmer une connexion',
  },
  what: { payout_address: 'adresse de versement', bank_account: 'compte bancaire', withdrawal_address: 'adresse de retrait' },
  roles: { admin: 'administrateur', finance: 'finance', developer: 'développeur', support: 'support', viewer: 'lecteur' },
};

const ar: Words = {
  greeting: 'مرحبًا،',
  signature: '{business}، عبر خدمة الدفع الخاصة به',
  notMe: 'إن لم تكن أنت، فسجّل الدخول واختر «تسجيل الخروج من كل مكان»، ثم غيّر كلمة المرور.',
  ignore: 'إن لم تكن تنتظر هذه الرسالة، يمكنك تجاهلها.',
  testMode: '(وضع الاختبار)',
  invitation: {
    subject: 'أنت مدعو إلى فريق {business}',
    lines: ['أنت مدعو للانضمام إلى فريق {business} بدور {role}.', 'يعمل الرابط مرة واحدة، لمدة أسبوع، ومع عنوان البريد هذا فقط.'],
    button: 'الانضمام إلى الفريق',
  },
  sign_in_link: {
    subject: 'رابط تسجيل الدخول إلى {business}',
    lines: ['هذا رابط لمرة واحدة لتسجيل الدخول إلى لوحة {business} واختيار كلمة مرور جديدة.', 'يعمل مرة واحدة، لمدة 24 ساعة؛ الروابط السابقة لم تعد تعمل.'],
    button: 'تسجيل الدخول',
  },
  new_device: {
    subject: 'تسجيل دخول جديد إلى {business}',
    lines: ['تم تسجيل الدخول إلى حسابك في {business} من متصفح لم يُرَ من قبل، في {time} (UTC).'],
    button: 'فتح اللوحة',
  },
  payment_received: {
    subject: 'تم استلام دفعة: {amount} {coin} {mode}',
    lines: ['استلم {business} دفعة بقيمة {amount} {coin} ({fiat} {currency})، المرجع {reference}.'],
    button: 'عرض الدفعة',
  },
  payout_sent: {
    subject: 'تم دفع التحويل البنكي: {fiat} {currency}',
    lines: ['تم دفع التحويل البنكي لـ {business} بقيمة {fiat} {currency} ({amount} {coin})، المرجع {reference}.'],
    button: 'عرض التحويلات',
  },
  withdrawal_sent: {
    subject: 'تم إرسال السحب: {amount} {coin} {mode}',
    lines: ['تم إرسال سحب {business} بقيمة {amount} {coin} على السلسلة {chain}.'],
    button: 'عرض الأرصدة',
  },
  destination_pending: {
    subject: '{what} جديد في الانتظار: {business}',
    lines: [
      'أُضيف {what} جديد إلى {business}. لن تذهب الأموال إليه إلا ابتداءً من {effective} (UTC).',
      'إن لم يطلبه أحد من فريقك، فألغِه من اللوحة قبل ذلك، وجدّد مفاتيحك السرية.',
    ],
    button: 'مراجعة التغيير',
  },
  refund_link: {
    subject: '{business} يعيد إليك {amount} {coin}',
    lines: ['يعيد {business} مبلغ دفعتك {reference}: {amount} {coin}.', 'اتبع الرابط لتحديد المحفظة التي يذهب إليها المبلغ. يعمل مرة واحدة.'],
    button: 'استلام المبلغ',
  },
  refund_receipt: {
    subject: 'المبلغ المعاد من {business}: {amount} {coin}',
    lines: ['أرسل {business} المبلغ المعاد {amount} {coin} على السلسلة {chain} عن الدفعة {reference}.', 'المعاملة: {tx}'],
    button: '',
  },
  factor_changed: {
    subject: 'تغيّرت عوامل التحقق الثانية لديك: {business}',
    lines: ['{change} في حسابك لدى {business}، في {time} (UTC).'],
    button: 'مراجعة الأمان',
  },
  security_changed: {
    subject: 'تغيير أمني لدى {business}',
    lines: ['{change} لدى {business}، في {time} (UTC).', '{detail}'],
    button: 'فتح لوحة التحكم',
  },
  changes: {
    key_created: 'أُنشئ مفتاح مقيّد',
    key_revoked: 'أُلغي مفتاح مقيّد',
    role_changed: 'تغيّر دور عضو',
    member_removed: 'أُزيل عضو',
    key_rolled: 'جُدّد المفتاح السري',
    step_up_locked: 'أُقفل التأكيد بالعامل الثاني بعد محاولات خاطئة كثيرة',
    step_up_unlocked: 'فُتح التأكيد بالعامل الثاني',
    support_limit: 'تغيّر حد الاسترداد لدور الدعم',
    passkey_added: 'أُضيف مفتاح مرور',
    totp_added: 'أُضيف تطبيق مصادقة',
    factor_removed: 'أُزيل عامل تحقق ثانٍ',
    recovery_codes: 'أُنشئت رموز استرداد جديدة',
    recovery_code_used: 'استُخدم رمز استرداد لتأكيد تسجيل دخول',
  },
  what: { payout_address: 'عنوان دفع', bank_account: 'حساب بنكي', withdrawal_address: 'عنوان سحب' },
  roles: { admin: 'مسؤول', finance: 'المالية', developer: 'مطوّر', support: 'الدعم', viewer: 'مشاهد' },
};

export const WORDS: Record<Language, Words> = { en, fr, ar };

/** The language asked for when it is one of ours, English otherwise. */
export const languageOf = (wanted: string | null | undefined): Language => {
  const tag = (wanted ?? '').split('-')[0]!.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(tag) ? (tag as Language) : 'en';
};
