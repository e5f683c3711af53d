// A wallet-settled refund sent from the merchant's own wallet. The service holds none
// of that money, so the refund names the one transfer that pays it: sent here by a browser
// wallet the page finds (EIP-6963, the way the checkout pays), or by a wallet app through its
// EIP-681 link or QR code, or any other way and then named by its transaction. The service
// finds the transfer on chain; this panel follows the refund until the network confirms it.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { int, text } from '../../contract/fields.ts';
import { payFromWallet, type FoundWallet } from '../../contract/wallet.ts';
import { mode, request, session } from '../api.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct } from './common.tsx';

export const Qr = z.object({ data: z.object({ size: int, path: text }) });
export const Status = z.object({ data: z.object({ status: text }) });

export default function WalletRefund({
  id,
  amount,
  coin,
  transfer,
  onChange,
}: {
  id: string;
  amount: string;
  coin: string;
  transfer: { uri: string; token: string; chain_id: number; to: string; amount: string; amount_base_units: string };
  onChange?: () => void;
}) {
  const [wallets, setWallets] = useState<FoundWallet[]>([]);
  const [qr, setQr] = useState<{ size: number; path: string }>();
  const [hash, setHash] = useState('');
  const [sent, setSent] = useState(false);
  const { note, error, act } = useAct(() => setSent(true));
  useEffect(() => {
    // Each wallet on the page announces itself when asked (EIP-6963).
    const announce = (e: Event) => {
      const { info, provider } = (e as CustomEvent).detail ?? {};
      if (typeof info?.name === 'string' && typeof provider?.request === 'function')
        setWallets((all) => (all.some((w) => w.provider === provider) ? all : [...all, { name: info.name.slice(0, 40), provider }]));
    };
    addEventListener('eip6963:announceProvider', announce);
    dispatchEvent(new Event('eip6963:requestProvider'));
    request(`/api/v1/refunds/${id}/qr`, Qr).then(
      (a) => setQr(a.data),
      () => undefined,
    );
    return () => removeEventListener('eip6963:announceProvider', announce);
  }, [id]);
  // Once sent, the refund is read every 2 s until the network confirms it (or it fails): each change redraws its list.
  useEffect(() => {
    if (!sent) return;
    let last = 'ready';
    const timer = setInterval(() => {
      request(`/api/v1/refunds/${id}`, Status).then(
        ({ data }) => {
          if (data.status !== last) (last = data.status), onChange?.();
          if (data.status === 'confirmed' || data.status === 'failed') clearInterval(timer);
        },
        () => undefined,
      );
    }, 2000);
    return () => clearInterval(timer);
  }, [sent, id]);
  const network = session.value?.networks[mode.value].find((n) => n.chainId === transfer.chain_id)?.name ?? `${transfer.chain_id}`;
  const pay = (wallet: FoundWallet) =>
    act(async () => {
      const tx = await payFromWallet(wallet.provider, transfer.chain_id, transfer.token, transfer.to, BigInt(transfer.amount_base_units));
      return t('Sent from {wallet}: transaction {tx}. The refund is confirmed once the network has it.', { wallet: wallet.name, tx });
    });
  const named = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await request(`/api/v1/refunds/${id}/transaction`, undefined, { method: 'POST', body: { tx_hash: hash.trim() } });
      return t('Transaction found: the refund is sent.');
    });
  };
  return (
    <section class="card" aria-labelledby={`wallet-${id}`}>
      <h3 id={`wallet-${id}`}>{t('Send {amount} {coin} from your wallet', { amount, coin })}</h3>
      <p>
        {t('To {address} on {network}. The service holds none of this money: the refund is this one transfer from your wallet.', {
          address: transfer.to,
          network,
        })}
      </p>
      {wallets.map((w) => (
        <button type="button" key={w.name} onClick={() => pay(w)}>
          {t('Pay with {wallet}', { wallet: w.name })}
        </button>
      ))}
      <p>
        <a href={transfer.uri}>{t('Open in a wallet app')}</a>
      </p>
      {qr && (
        <svg class="qr" viewBox={`-4 -4 ${qr.size + 8} ${qr.size + 8}`} role="img" aria-label={t('QR code of the refund\u2019s transfer')}>
          <path d={qr.path} />
        </svg>
      )}
      <form onSubmit={named} noValidate>
        <Field id={`tx-${id}`} label={t('Sent another way? Its transaction hash')} value={hash} onInput={setHash} error={fieldError(error, 'tx_hash')} />
        <button type="submit" class="secondary">
          {t('Name the transaction')}
        </button>
      </form>
      <Notes note={note} error={error} />
    </section>
  );
}
