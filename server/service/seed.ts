// What a new service starts with: the sandbox's demo merchant (its keys are public, in the
// README, so scripts and docs keep working) and a small catalogue: its products and their
// prices in test mode, listed on its dashboard's Products screen and offered to its links' carts.
import type { MerchantSeed } from '../merchants/store.ts';
import type { ProductStore } from '../products/store.ts';

export const DEMO_MERCHANT: MerchantSeed = {
  id: '2b1f6c3e-8d4a-4f7e-9c1b-5a6d7e8f9a0b',
  businessName: 'Harbour Coffee Roasters',
  businessEmail: 'orders@harbour-coffee.example',
  businessLogo: '',
  keys: {
    test: { publicKey: 'pk_test_harbour0demo0key', secretKey: 'sk_test_harbour0demo0secret' },
    live: { publicKey: 'pk_live_harbour0demo0key', secretKey: 'sk_live_harbour0demo0secret' },
  },
  webhookSecrets: { test: 'whsec_harbour0demo0webhook0secret0test', live: 'whsec_harbour0demo0webhook0secret0live' },
};

/** The catalogue's prices, by fixed ids so the demo can print them and docs can cite them. */
export const DEMO_PRICES = {
  beansUsd: '6f1c2a9e-3b7d-4c1a-9e2f-000000000001',
  beansNgn: '6f1c2a9e-3b7d-4c1a-9e2f-000000000002',
  mugUsd: '6f1c2a9e-3b7d-4c1a-9e2f-000000000003',
} as const;

/** The demo merchant's test-mode products, each with its prices by their fixed ids; made once (a start again changes nothing). */
export async function seedCatalogue(products: ProductStore, nowMs: number): Promise<void> {
  const owner = { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' as const };
  await products.seed(
    owner,
    { id: '0b9e5d1a-7c3f-4e2b-8a6d-000000000001', name: 'Single-origin beans, 1 kg', description: 'Washed Ethiopian Yirgacheffe, roasted this week.' },
    [
      { id: DEMO_PRICES.beansUsd, currency: 'USD', amount: '24.50' },
      { id: DEMO_PRICES.beansNgn, currency: 'NGN', amount: '38000.00' },
    ],
    nowMs,
  );
  await products.seed(
    owner,
    { id: '0b9e5d1a-7c3f-4e2b-8a6d-000000000002', name: 'Enamel mug', description: 'Speckled blue, 350 ml.' },
    [{ id: DEMO_PRICES.mugUsd, currency: 'USD', amount: '12.00' }],
    nowMs,
  );
}
