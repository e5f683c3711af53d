// A donation link made from the dashboard's form (multipart: its fields as text, its cover photo
// a file): the link's common settings read from the form's bracketed names, and the photo kept
// only when its bytes are an image (a file is served as what it is, never as what the part says).
import type * as z from 'zod/mini';
import type { DonationLinkForm } from '../../contract/payment-links.ts';
import type { Account } from '../domain/account.ts';
import { invalidField } from '../domain/errors.ts';
import type { FormFile } from '../http/multipart.ts';
import { applyCommon, imageTypeOf, newLink, type Link } from './rules.ts';
import type { LinkStore } from './store.ts';

/** What making a donation link needs of the service. */
export interface DonationParts {
  links: Pick<LinkStore, 'addFile' | 'save'>;
  origin(): string;
  now(): number;
}

const bool = (value: 'true' | 'false' | undefined) => (value === undefined ? undefined : value === 'true');

export async function createDonationLink(
  service: DonationParts,
  account: Account,
  fields: z.output<typeof DonationLinkForm>,
  photo: FormFile | undefined,
): Promise<Link> {
  const link = newLink(account, 'donation', fields.title.trim(), service.now());
  applyCommon(
    link,
    {
      description: fields.description,
      options: { collect_phone: bool(fields['options[collect_phone]']) },
      action: {
        redirect: bool(fields['action[redirect]']),
        redirect_url: fields['action[redirect_url]'],
        success_message: fields['action[success_message]'],
        show_confirmation_page: bool(fields['action[show_confirmation_page]']),
      },
      social_links: { facebook: fields['social_links[facebook]'], twitter: fields['social_links[twitter]'], instagram: fields['social_links[instagram]'] },
      website_url: fields.website_url,
    },
    service.now(),
  );
  if (photo && photo.data.length > 0) {
    const type = imageTypeOf(photo.data);
    if (!type) throw invalidField('cover_photo', `expected a PNG, JPEG, GIF or WebP image, received ${photo.contentType.slice(0, 60)} that is not one`);
    const id = await service.links.addFile(account, type, photo.data, service.now());
    link.image = `${service.origin()}/files/${id}`;
  }
  await service.links.save(link);
  return link;
}
