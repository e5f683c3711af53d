// The payment link page's own script: totals in integer cents, then one call to the
// service for a payment, then the checkout widget on that payment's reference.
(() => {
  const data = JSON.parse(document.getElementById('link-data').textContent);
  const form = document.getElementById('pay');
  if (!form) return; // an inactive link: nothing to pay
  const problem = document.getElementById('problem');
  const total = document.getElementById('total');

  const cents = (text) => {
    const [whole, fraction = ''] = String(text).split('.');
    return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  };
  const quantities = () => {
    const chosen = {};
    document.querySelectorAll('input[data-item]').forEach((input) => (chosen[input.dataset.item] = Number(input.value)));
    return chosen;
  };
  function showTotal() {
    if (!total || !data.cart.length) return;
    const chosen = quantities();
    const sum = data.cart.reduce((acc, item) => acc + cents(item.price.amount) * (chosen[item.id] ?? item.quantity), 0);
    total.textContent = `${Math.floor(sum / 100)}.${String(sum % 100).padStart(2, '0')} ${data.cart[0].price.currency}`;
  }
  document.querySelectorAll('input[data-item]').forEach((input) => input.addEventListener('input', showTotal));
  showTotal();

  // What a customer reads when the service refuses: plain words per field. The service's own
  // message is for developers, and goes to the console.
  const WORDS = {
    amount: 'Enter an amount such as 10 or 12.50.',
    currency: 'Choose a currency.',
    email: 'Enter an e-mail address such as ada@example.com.',
    quantities: 'Choose a quantity from 1 to 1000.',
  };
  function refusal(status, answer) {
    console.warn('The payment could not be started:', status, answer?.message);
    const fields = (answer?.errors || []).map((e) => WORDS[String(e.field).split('.')[0]]).filter(Boolean);
    if (fields.length) return [...new Set(fields)].join(' ');
    if (status === 409 || status === 404) return `This link cannot take payments at the moment. Please contact ${data.business}.`;
    return 'Something went wrong on our side. Please try again in a moment.';
  }

  // The e-mail is checked here first, by the service's own rule: a typo is told at once, by
  // the field, without a request.
  const email = form.elements.email;
  const emailOk = () => email.value.trim().length <= 254 && new RegExp(data.emailPattern).test(email.value.trim());
  email.addEventListener('input', () => {
    if (email.getAttribute('aria-invalid') === 'true' && emailOk()) {
      email.removeAttribute('aria-invalid');
      problem.textContent = '';
    }
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.textContent = '';
    if (!emailOk()) {
      email.setAttribute('aria-invalid', 'true');
      problem.textContent = WORDS.email;
      email.focus();
      return;
    }
    email.removeAttribute('aria-invalid');
    const fields = Object.fromEntries(new FormData(form));
    fields.email = email.value.trim();
    let response;
    let answer;
    try {
      response = await fetch(`/pay/${encodeURIComponent(data.slug)}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fields, quantities: quantities() }),
      });
      answer = await response.json().catch(() => undefined);
    } catch (error) {
      console.warn('The payment service could not be reached:', error);
      problem.textContent = 'We could not reach the payment service. Check your connection and try again.';
      return;
    }
    if (!response.ok || !answer) {
      problem.textContent = refusal(response.status, answer);
      return;
    }
    let paid = false;
    ServiceCheckout({
      key: answer.key,
      amount: answer.amount,
      currency: answer.currency,
      reference: answer.reference,
      email: fields.email,
      onSuccess: (payment) => {
        paid = true;
        // Paid: what was bought can no longer change here, and the reference is what the
        // customer quotes to the merchant.
        document.querySelectorAll('input[data-item], [form=pay]').forEach((input) => (input.disabled = true));
        document.getElementById('reference').textContent = payment.reference;
      },
      onClose: () => {
        if (!paid) return;
        if (data.action.redirect && /^https?:\/\//.test(data.action.redirectUrl)) {
          location.assign(data.action.redirectUrl);
        } else {
          form.hidden = true;
          document.getElementById('done').hidden = false;
        }
      },
    });
  });
})();
