// What a new service starts with: the sandbox's demo merchant (its keys are public, in the
// README, so scripts and docs keep working) and a small catalogue of prices for links.
import type { LinkStore } from './links/store.ts';
import type { MerchantSeed } from './merchants/store.ts';

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

export async function seedCatalogue(links: LinkStore): Promise<void> {
  const beans = { id: '0b9e5d1a-7c3f-4e2b-8a6d-000000000001', name: 'Single-origin beans, 1 kg', description: 'Washed Ethiopian Yirgacheffe, roasted this week.', coverPhoto: '' };
  const mug = { id: '0b9e5d1a-7c3f-4e2b-8a6d-000000000002', name: 'Enamel mug', description: 'Speckled blue, 350 ml.', coverPhoto: '' };
  await links.addPrice(beans, 'USD', '24.50', DEMO_PRICES.beansUsd);
  await links.addPrice(beans, 'NGN', '38000.00', DEMO_PRICES.beansNgn);
  await links.addPrice(mug, 'USD', '12.00', DEMO_PRICES.mugUsd);
}
