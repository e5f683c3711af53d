// The refund claim page's script (issue 35): the link's token is the URL's fragment (never
// sent to a server by the browser, nor kept in its logs); the refund it opens is asked for,
// the customer's address is checked by the service and shown back checksummed with the
// network and the coin, and only the customer's confirmation claims it.
(() => {
  const words = JSON.parse(document.getElementById('claim-words').textContent);
  const token = location.hash.slice(1);
  const status = document.getElementById('status');
  const form = document.getElementById('address-form');
  const input = document.getElementById('address');
  const problem = document.getElementById('problem');
  const confirmBox = document.getElementById('confirm');
  const confirmProblem = document.getElementById('confirm-problem');
  let refund;
  let checked;

  const fill = (text, extra) => text.replace(/\{(\w+)\}/g, (_, k) => String(extra?.[k] || refund[k] || ''));
  // Keep the fragment on the language links, so a customer can switch and go on.
  document.querySelectorAll('a[data-lang]').forEach((a) => (a.href = a.getAttribute('href') + location.hash));

  async function ask(path, body) {
    let response;
    try {
      response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch (error) {
      console.warn('The payment service could not be reached:', error);
      return { error: words.offline };
    }
    const answer = await response.json().catch(() => undefined);
    if (response.ok && answer) return { answer };
    // The service's message is for developers: the customer reads plain words.
    console.warn('Refused:', response.status, answer?.message);
    const code = answer?.code;
    const field = answer?.errors?.[0]?.field;
    const message = answer?.message || '';
    if (code === 'refund_link_used') return { error: words.used, final: true };
    if (code === 'refund_link_expired') return { error: words.expired, final: true };
    if (response.status === 404 || field === 'token') return { error: words.notFound, final: true };
    if (field === 'address') return { error: /checksum/.test(message) ? words.checksum : /treasury|deposit/.test(message) ? words.ours : words.bad };
    return { error: words.failed };
  }

  function stop(text) {
    status.textContent = text;
    status.className = 'problem';
    form.hidden = true;
    confirmBox.hidden = true;
  }

  function show(section, heading) {
    form.hidden = section !== form;
    confirmBox.hidden = section !== confirmBox;
    if (heading) heading.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.textContent = '';
    const value = input.value.trim();
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
      input.setAttribute('aria-invalid', 'true');
      problem.textContent = words.bad;
      input.focus();
      return;
    }
    const { answer, error, final } = await ask('/refund/claim', { token, address: value });
    if (final) return stop(error);
    if (error) {
      input.setAttribute('aria-invalid', 'true');
      problem.textContent = error;
      input.focus();
      return;
    }
    input.removeAttribute('aria-invalid');
    checked = answer.address;
    document.getElementById('send-to').textContent = fill(words.sendTo);
    document.getElementById('checked').textContent = checked;
    confirmProblem.textContent = '';
    show(confirmBox, document.getElementById('confirm-title'));
  });

  document.getElementById('change').addEventListener('click', () => {
    show(form);
    input.focus();
  });

  const confirmButton = document.getElementById('confirm-button');
  confirmButton.addEventListener('click', async () => {
    confirmButton.disabled = true;
    const { error, final } = await ask('/refund/claim', { token, address: checked, confirm: true });
    confirmButton.disabled = false;
    if (final) return stop(error);
    if (error) {
      confirmProblem.textContent = error;
      return;
    }
    confirmBox.hidden = true;
    status.textContent = '';
    document.getElementById('done-text').textContent = fill(words.doneText, { address: checked });
    document.getElementById('done').hidden = false;
    document.getElementById('done-title').focus();
  });

  (async function start() {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return stop(words.missing);
    const { answer, error } = await ask('/refund/details', { token });
    if (error) return stop(error);
    refund = answer;
    status.textContent = fill(words.intro);
    document.getElementById('hint').textContent = fill(words.hint);
    form.hidden = false;
  })();
})();
