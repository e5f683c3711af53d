// The payment link page's own script: totals in integer cents, then one call to the
// service for a payment, then the checkout widget on that payment's reference.
(function () {
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

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.textContent = '';
    const fields = Object.fromEntries(new FormData(form));
    const response = await fetch(`/pay/${encodeURIComponent(data.slug)}/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...fields, quantities: quantities() }),
    });
    const answer = await response.json();
    if (!response.ok) {
      problem.textContent = answer.message;
      return;
    }
    let paid = false;
    ServiceCheckout({
      key: answer.key,
      amount: answer.amount,
      currency: answer.currency,
      reference: answer.reference,
      email: fields.email,
      onSuccess: () => (paid = true),
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
