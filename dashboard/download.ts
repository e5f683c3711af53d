// Downloads an answer (the CSV exports of Payments and Balances) as a file: out of api.ts, so
// the first load does not carry it (the role-following navigation needed those bytes).
import { readAnswer } from '../contract/answer.ts';
import { mode } from './api.ts';

/** Downloads an answer (the CSV export) as a file: fetched with the session, saved from a blob. */
export async function download(path: string, filename: string): Promise<void> {
  const response = await fetch(path, { headers: { 'x-mode': mode.value }, credentials: 'same-origin' });
  if (!response.ok) readAnswer(`GET ${path}`, response.status, await response.text());
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
