// The merchant's own code: a form handler that opens the checkout. Plain JavaScript, as a
// merchant would write it. ?key=… in the address overrides the page's public key, and
// ?reference=… sets the order's reference (the same one reopens the same payment), and
// ?locale=, ?theme= and ?accent= pass the checkout's look (see the README).
const form = document.getElementById('pay-form');
const events = document.getElementById('events');
window.shopEvents = [];

function record(name, detail) {
  window.shopEvents.push({ name, detail });
  const item = document.createElement('li');
  item.dataset.event = name;
  item.textContent = `${name}: ${JSON.stringify(detail)}`;
  events.append(item);
}

// The order as our server knows it (from the service's webhook), once it has heard: paid,
// partly paid (the customer sent part, and this shop accepts partial payments), or not yet.
async function showOrder(reference) {
  const line = document.getElementById('order');
  line.hidden = false;
  line.textContent = `Order ${reference}: waiting for the payment service to tell our server…`;
  for (let i = 0; i < 40; i++) {
    const reply = await fetch(`/orders/${encodeURIComponent(reference)}`);
    const order = reply.ok ? await reply.json() : undefined;
    if (order && (order.paid || order.partlyPaid || order.problem)) {
      const part = order.partlyPaid;
      line.dataset.state = order.paid ? 'paid' : part ? 'partly paid' : 'problem';
      line.textContent = order.paid
        ? `Order ${reference}: paid.`
        : part
          ? `Order ${reference}: partly paid, ${part.amountPaid} of ${part.actualAmount} ${part.coin}, accepted.`
          : `Order ${reference}: not paid (${order.problem}).`;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  line.textContent = `Order ${reference}: our server has not heard from the payment service yet.`;
}

function payWithService(event) {
  event.preventDefault();
  const data = new FormData(form);
  const params = new URLSearchParams(location.search);
  const key = params.get('key') || form.dataset.key;
  try {
    ServiceCheckout({
      key,
      amount: data.get('amount'),
      currency: data.get('currency'),
      name: data.get('name'),
      email: data.get('email'),
      acceptPartialPayment: data.get('partial') === 'on',
      reference: params.get('reference') || undefined,
      locale: params.get('locale') || undefined,
      theme: params.get('theme') || undefined,
      accent: params.get('accent') || undefined,
      metadata: { items: ['beans-1kg'] },
      onSuccess: (payment) => {
        record('success', { reference: payment.reference, status: payment.status, amountPaid: payment.amountPaid });
        void showOrder(payment.reference);
      },
      onError: (error) => record('error', { code: error.code, message: error.message }),
      onClose: (info) => record('close', info),
    });
  } catch (error) {
    record('thrown', { message: error.message });
  }
}

form.addEventListener('submit', payWithService);

// The other way in: our server creates the payment (with its secret key and its own
// amount), and the page opens the checkout on that payment's reference.
document.getElementById('pay-server').addEventListener('click', async () => {
  const data = new FormData(form);
  const response = await fetch('/orders', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: data.get('amount'), currency: data.get('currency'), email: data.get('email') }),
  });
  const order = await response.json();
  if (!response.ok) return record('error', { message: order.message });
  ServiceCheckout({
    key: new URLSearchParams(location.search).get('key') || form.dataset.key,
    amount: order.amount,
    currency: order.currency,
    reference: order.reference,
    email: data.get('email'),
    onSuccess: (payment) => record('success', { reference: payment.reference, status: payment.status, amountPaid: payment.amountPaid }),
    onError: (error) => record('error', { code: error.code, message: error.message }),
    onClose: (info) => record('close', info),
  });
});
