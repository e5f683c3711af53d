// Issue 48 review (5): a business name is every e-mail's sender, so it carries no link and no
// invisible character. The first check let through a bare host name, an IPv4 address, links in
// full-width letters or with an ideographic full stop, and direction and zero-width marks.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { businessName } from './fields.ts';

const accepted = (v: string) => z.safeParse(businessName as never, v).success;

describe('a business name', () => {
  it('refuses anything that reads as a host name or an address, however written', () => {
    for (const name of [
      'Acme - account locked, sign in at acme-billing.com',
      'Acme 192.168.10.5/login',
      'Acme 10.0.0.1',
      'Acme ｗｗｗ．evil．com／login',
      'Acme evil．com',
      'Acme evil。com',
      'Acme evil｡com',
      'Acme EVIL.COM',
      'Acme https://evil.com',
      'Acme münchen-shop.de',
    ])
      expect(accepted(name), JSON.stringify(name)).toBe(false);
  });

  it('refuses invisible format characters: direction marks, zero-width spaces and joiners out of place, the BOM', () => {
    for (const name of [
      'Acme\u200f\u200eLRM/RLM',
      'Acme\u061cALM',
      'Acme\u200bzero',
      'Acme\u2060width',
      'Acme\ufeff',
      'Acme\u200d',
      'Acme \u00ad',
      'ev\u200bil\u200b.com',
    ]) {
      expect(accepted(name), JSON.stringify(name)).toBe(false);
    }
  });

  it('keeps ordinary names, with their punctuation and scripts', () => {
    for (const name of [
      'Keyed Goods & Co. (Lyon)',
      'Acme Coffee',
      'J. P. Smith & Sons',
      'St. Louis Bakery',
      'Café Zürich',
      'Ｔｏｋｙｏ Ramen',
      'Demo Store',
      'متجر الأمل',
      'نان\u200cآوری',
      '株式会社テスト',
      'Shop No. 5',
      'v2.0 Labs',
    ]) {
      expect(accepted(name), JSON.stringify(name)).toBe(true);
    }
  });
});
