// The customer's refund claim page: server-rendered in the checkout's three languages
// (English, French, Arabic right to left), every value escaped. The claim link's token is in
// the URL's fragment, which browsers never send: the page's script (server/hosted/assets/
// refund.js) reads it and asks the service for the refund, then for the address's check, then
// for the claim, after the customer confirms the address, the network and the coin.
import { headTags } from '../hosted/page-head.ts';

export const CLAIM_LANGS = ['en', 'fr', 'ar'] as const;
export type ClaimLang = (typeof CLAIM_LANGS)[number];

/** The page's words; {business}, {amount}, {coin}, {network} are filled in by its script. */
export const CLAIM_WORDS: Record<ClaimLang, Record<string, string>> = {
  en: {
    title: 'Your refund',
    loading: 'Looking up your refund…',
    intro: '{business} is sending you back {amount} {coin} on the {network} network.',
    address: 'Your wallet address',
    hint: 'An address on {network} that can receive {coin}, starting with 0x. Use an exchange’s deposit address only if that exchange accepts {coin} on {network}.',
    next: 'Continue',
    check: 'Check before you confirm',
    sendTo: '{amount} {coin} on {network} will be sent to:',
    warn: 'A refund sent to a wrong address cannot be taken back.',
    confirm: 'Confirm and send',
    change: 'Change the address',
    done: 'Your refund is on its way',
    doneText: '{amount} {coin} will reach {address} on {network} within a few minutes.',
    bad: 'Enter a wallet address: 0x followed by 40 letters and digits.',
    checksum: 'This address has a typing mistake (its capital letters do not match). Copy it again from your wallet.',
    ours: 'This address belongs to the payment service, not to you. Enter your own wallet’s address.',
    missing: 'This refund link is not complete. Open the whole link you were sent.',
    notFound: 'This refund link is not valid. Ask the merchant for a new one.',
    used: 'This refund link was used already, or canceled. Ask the merchant if you did not claim it.',
    expired: 'This refund link has expired. Ask the merchant for a new one.',
    offline: 'We could not reach the payment service. Check your connection and try again.',
    failed: 'Something went wrong on our side. Please try again in a moment.',
  },
  fr: {
    title: 'Votre remboursement',
    loading: 'Recherche de votre remboursement…',
    intro: '{business} vous rembourse {amount} {coin} sur le réseau {network}.',
    address: 'L’adresse de votre portefeuille',
    hint: 'Une adresse sur {network} qui peut recevoir des {coin}, commençant par 0x. N’utilisez l’adresse de dépôt d’une plateforme d’échange que si elle accepte les {coin} sur {network}.',
    next: 'Continuer',
    check: 'Vérifiez avant de confirmer',
    sendTo: '{amount} {coin} sur {network} seront envoyés à :',
    warn: 'Un remboursement envoyé à une mauvaise adresse ne peut pas être récupéré.',
    confirm: 'Confirmer et envoyer',
    change: 'Modifier l’adresse',
    done: 'Votre remboursement est en route',
    doneText: '{amount} {coin} arriveront à {address} sur {network} d’ici quelques minutes.',
    bad: 'Saisissez une adresse de portefeuille : 0x suivi de 40 lettres et chiffres.',
    checksum: 'Cette adresse contient une faute de frappe (ses majuscules ne correspondent pas). Copiez-la à nouveau depuis votre portefeuille.',
    ours: 'Cette adresse appartient au service de paiement, pas à vous. Saisissez l’adresse de votre propre portefeuille.',
    missing: 'Ce lien de remboursement est incomplet. Ouvrez le lien entier qui vous a été envoyé.',
    notFound: 'Ce lien de remboursement n’est pas valide. Demandez-en un nouveau au commerçant.',
    used: 'Ce lien de remboursement a déjà été utilisé, ou annulé. Contactez le commerçant si ce n’était pas vous.',
    expired: 'Ce lien de remboursement a expiré. Demandez-en un nouveau au commerçant.',
    offline: 'Impossible de joindre le service de paiement. Vérifiez votre connexion et réessayez.',
    failed: 'Un problème est survenu de notre côté. Réessayez dans un instant.',
  },
  ar: {
    title: 'استرداد أموالك',
    loading: 'جارٍ البحث عن استردادك…',
    intro: 'يُعيد إليك {business} مبلغ {amount} {coin} على شبكة {network}.',
    address: 'عنوان محفظتك',
    hint: 'عنوان على شبكة {network} يستقبل {coin}، يبدأ بـ 0x. لا تستخدم عنوان إيداع منصة تداول إلا إذا كانت تقبل {coin} على {network}.',
    next: 'متابعة',
    check: 'تحقق قبل التأكيد',
    sendTo: 'سيُرسل {amount} {coin} على {network} إلى:',
    warn: 'لا يمكن استعادة مبلغ مُرسل إلى عنوان خاطئ.',
    confirm: 'تأكيد وإرسال',
    change: 'تغيير العنوان',
    done: 'استردادك في الطريق',
    doneText: 'سيصل {amount} {coin} إلى {address} على {network} خلال دقائق.',
    bad: 'أدخل عنوان محفظة: 0x يليه 40 حرفًا ورقمًا.',
    checksum: 'في هذا العنوان خطأ في الكتابة (الأحرف الكبيرة لا تتطابق). انسخه مجددًا من محفظتك.',
    ours: 'هذا العنوان تابع لخدمة الدفع وليس لك. أدخل عنوان محفظتك.',
    missing: 'رابط الاسترداد هذا غير مكتمل. افتح الرابط كاملًا كما أُرسل إليك.',
    notFound: 'رابط الاسترداد هذا غير صالح. اطلب رابطًا جديدًا من التاجر.',
    used: 'استُخدم رابط الاسترداد هذا من قبل، أو أُلغي. تواصل مع التاجر إن لم تكن أنت من استخدمه.',
    expired: 'انتهت صلاحية رابط الاسترداد هذا. اطلب رابطًا جديدًا من التاجر.',
    offline: 'تعذّر الوصول إلى خدمة الدفع. تحقق من اتصالك وحاول مجددًا.',
    failed: 'حدث خطأ من جهتنا. حاول مجددًا بعد لحظة.',
  },
};

/** The page's language: `?lang=` first, else the browser's first of ours, else English. */
export function claimLang(query: string | null, acceptLanguage: string | undefined): ClaimLang {
  if (query && (CLAIM_LANGS as readonly string[]).includes(query)) return query as ClaimLang;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if ((CLAIM_LANGS as readonly string[]).includes(tag)) return tag as ClaimLang;
  }
  return 'en';
}

const esc = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function claimPage(lang: ClaimLang): string {
  const w = CLAIM_WORDS[lang];
  const other = CLAIM_LANGS.filter((l) => l !== lang);
  const names: Record<ClaimLang, string> = { en: 'English', fr: 'Français', ar: 'العربية' };
  return `<!doctype html>
<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
  <meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc(w.title!)}</title>
  ${headTags(w.title!, true)}
  <link rel="stylesheet" href="/refund/assets/refund.css">
</head>
<body>
  <main>
    <nav aria-label="Language"><ul class="langs">${other.map((l) => `<li><a href="?lang=${l}" lang="${l}" hreflang="${l}" data-lang>${names[l]}</a></li>`).join('')}</ul></nav>
    <h1>${esc(w.title!)}</h1>
    <p id="status" role="status" aria-live="polite">${esc(w.loading!)}</p>
    <form id="address-form" novalidate hidden>
      <label for="address">${esc(w.address!)}</label>
      <input id="address" name="address" dir="ltr" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="hint problem">
      <p id="hint" class="hint"></p>
      <p id="problem" class="problem" role="alert"></p>
      <button type="submit">${esc(w.next!)}</button>
    </form>
    <section id="confirm" hidden aria-labelledby="confirm-title">
      <h2 id="confirm-title" tabindex="-1">${esc(w.check!)}</h2>
      <p id="send-to"></p>
      <p><code id="checked" dir="ltr"></code></p>
      <p class="warn">${esc(w.warn!)}</p>
      <p id="confirm-problem" class="problem" role="alert"></p>
      <button type="button" id="confirm-button">${esc(w.confirm!)}</button>
      <button type="button" id="change" class="secondary">${esc(w.change!)}</button>
    </section>
    <section id="done" hidden aria-labelledby="done-title">
      <h2 id="done-title" tabindex="-1">${esc(w.done!)}</h2>
      <p id="done-text"></p>
    </section>
  </main>
  <script type="application/json" id="claim-words">${json(w)}</script>
  <script src="/refund/assets/refund.js"></script>
</body>
</html>`;
}
