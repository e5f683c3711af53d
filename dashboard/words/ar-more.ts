// لوحة التحكم بالعربية، الجزء الثاني: كلمات الشاشات غير المالية (يحمّل words.ts الجزأين معًا).
export default {
  // الدفعة ومبالغها المستردة.
  Created: 'أُنشئت', 'Transfer of {amount}': 'تحويل {amount}', 'seen on the chain, confirming': 'شوهد على السلسلة، قيد التأكيد', 'received and counted': 'استُلم واحتُسب',
  'left the chain (its block was replaced)': 'خرج من السلسلة (استُبدلت كتلته)', 'arrived after the payment closed (not counted)': 'وصل بعد إغلاق الدفعة (لم يُحتسب)',
  'in another token (not counted)': 'بعملة أخرى (لم يُحتسب)', 'too small to count': 'أصغر من أن يُحتسب', ' (block {block})': ' (الكتلة {block})',
  'Paid in full': 'مدفوعة بالكامل', 'Settled with what arrived': 'سُوّيت بما وصل', 'Quote expired': 'انتهى عرض السعر', 'Swept {amount} to the payout address': 'نُقل {amount} إلى عنوان الدفع',
  'Event {type} told to the webhook ({state})': 'أُبلغ الـ webhook بالحدث {type} ({state})', 'no webhook URL yet': 'لا يوجد عنوان webhook بعد', 'Resend {type}': 'أعد إرسال {type}',
  'Delivery attempt: {answer}': 'محاولة تسليم: {answer}', 'answered {status}': 'أجاب {status}', 'no answer': 'لا إجابة', 'Payment {reference}': 'الدفعة {reference}',
  'Queued: the event will be delivered again.': 'في الانتظار: سيُسلَّم الحدث مرة أخرى.', 'All payments': 'كل المدفوعات', Status: 'الحالة', Price: 'السعر', Asked: 'المطلوب', Customer: 'العميل',
  'no name': 'بلا اسم', 'not given': 'غير محدد', 'Deposit address': 'عنوان الإيداع', 'Quote ends': 'ينتهي عرض السعر', Timeline: 'التسلسل الزمني', Payment: 'الدفعة',
  'Refund {id} canceled: its amount is back in the balance.': 'أُلغي الاسترداد {id}: عاد مبلغه إلى الرصيد.', 'The customer, by the claim link': 'العميل، عبر رابط المطالبة',
  'Cancel refund {id}': 'إلغاء الاسترداد {id}', 'expected an amount of {coin} above 0, at most {decimals} decimals, such as 1.5': 'المتوقع مبلغ من {coin} أكبر من 0، بحد أقصى {decimals} منازل عشرية، مثل 1.5',
  'Check the amount.': 'تحقق من المبلغ.', 'Refund of {amount} {coin} waiting for the customer: give them the claim link below (shown this once).': 'استرداد {amount} {coin} بانتظار العميل: أعطه رابط المطالبة أدناه (يظهر هذه المرة فقط).',
  'Refund of {amount} {coin} ready: the treasury sends it.': 'استرداد {amount} {coin} جاهز: ترسله الخزينة.', Refund: 'استرداد', 'How much': 'كم',
  'All that arrived and is not refunded yet': 'كل ما وصل ولم يُسترد بعد', 'An amount': 'مبلغ محدد', Reason: 'السبب', 'The customer\u2019s wallet address': 'عنوان محفظة العميل',
  'Send the customer a claim link': 'أرسل للعميل رابط مطالبة', 'The customer\u2019s 0x address on the payment\u2019s network.': 'عنوان 0x الخاص بالعميل على شبكة الدفعة.',
  'Claim link': 'رابط المطالبة', 'Copy the claim link': 'انسخ رابط المطالبة', Refunds: 'المبالغ المستردة', 'Start a refund from its payment\u2019s page.': 'ابدأ الاسترداد من صفحة دفعته.',
  'Waiting for the customer\u2019s address': 'بانتظار عنوان العميل', 'Ready to send': 'جاهز للإرسال', Sent: 'أُرسل', Confirmed: 'مؤكد', Canceled: 'ملغى',
} as Record<string, string>;
