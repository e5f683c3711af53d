// A balance's lines (GET /api/v1/balances): Balances shows them, the money screens choose a coin from them.
import * as z from 'zod/mini';
import { int, text } from '../../contract/fields.ts';

export const Line = z.object({ coin: text, chain_id: int, network: text, available: text, reserved: text, pending: text });
export const Lines = z.object({ data: z.array(Line) });
export type Line = z.infer<typeof Line>;
