// Paying with one signature: what the relay checks of an EIP-3009
// TransferWithAuthorization before it spends any gas on it. The customer signs a transfer of
// exactly what is due, to the payment's own deposit address, on the payment's chain; the relay
// only brings it on chain, and the watcher credits the transfer like any other (since `to` is
// signed, whoever sends it pays this payment's address and nothing else).
import {
  BaseError,
  HttpRequestError,
  TimeoutError,
  WebSocketRequestError,
  encodeFunctionData,
  hashDomain,
  isAddressEqual,
  parseAbi,
  parseSignature,
  size,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { Conflict, invalidField, Unavailable } from '../domain/errors.ts';
import type { Network, Token } from './networks.ts';

/** The calls of EIP-3009 the relay makes or reads, with both signature forms (USDC v2.2 takes bytes; every version v, r, s). */
export const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function balanceOf(address owner) view returns (uint256)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** A signed TransferWithAuthorization, as the customer's wallet made it. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** What the authorization must pay: the payment's chain, token, deposit address and what is still due. */
export interface RelayTarget {
  chainId: number;
  token: Address;
  address: Address;
  due: bigint;
}

/** Time left before validBefore that a relay still takes: time to be mined (a block or two, and a re-price). */
export const RELAY_MARGIN_SECONDS = 30n;
/** The token's EIP-712 domain, as configured (`"eip3009": { "name", "version" }`), on this network. */
export function authorizationDomain(network: Network, token: Token) {
  if (!token.eip3009) throw new Error(`${token.symbol} on chain ${network.chainId} does not sign (no eip3009 in its network file)`);
  return { name: token.eip3009.name, version: token.eip3009.version, chainId: network.chainId, verifyingContract: token.address };
}

/** The call that brings the authorization on chain: v, r, s for a key's 65-byte signature (every USDC version takes it), the bytes otherwise (ERC-1271). */
export function relayCallData(a: TransferAuthorization): Hex {
  const head = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
  if (size(a.signature) === 65) {
    const { r, s, v, yParity } = parseSignature(a.signature);
    return encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [...head, Number(v ?? BigInt(27 + yParity)), r, s] });
  }
  return encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [...head, a.signature] });
}

/**
 * Everything checked before any gas is spent, cheapest first; each refusal names its field
 * (400), a nonce already used on the chain is a 409. The chain is asked: the token's domain
 * (its DOMAIN_SEPARATOR against the configured one), the signature (a key's, or a contract
 * wallet's through ERC-1271 / ERC-6492, by viem's verifyTypedData), the nonce
 * (authorizationState), the payer's balance, and last the call itself, simulated from `relayer`.
 */
export async function checkAuthorization(
  rpc: PublicClient,
  network: Network,
  target: RelayTarget,
  chainId: number,
  a: TransferAuthorization,
  nowSeconds: bigint,
  relayer: Address,
): Promise<void> {
  if (chainId !== target.chainId || chainId !== network.chainId)
    throw invalidField('chain_id', `expected ${target.chainId}, the payment's chain, received ${chainId}`);
  const token = network.tokens.find((t) => isAddressEqual(t.address, target.token));
  if (!token?.eip3009)
    throw invalidField(
      'authorization',
      `${token?.symbol ?? target.token} on chain ${network.chainId} takes no signed transfer (EIP-3009): pay with a transfer`,
    );
  if (!isAddressEqual(a.to, target.address)) throw invalidField('authorization.to', `expected the payment's deposit address ${target.address}`);
  if (a.value !== target.due) throw invalidField('authorization.value', `expected ${target.due} (what is due, in base units), received ${a.value}`);
  if (a.validBefore <= nowSeconds + RELAY_MARGIN_SECONDS)
    throw invalidField('authorization.validBefore', `expired, or too close to expiring to be mined (at least ${RELAY_MARGIN_SECONDS} s from now)`);
  if (a.validAfter >= nowSeconds) throw invalidField('authorization.validAfter', 'not valid yet');
  const domain = authorizationDomain(network, token);
  const separator = await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'DOMAIN_SEPARATOR' });
  if (
    separator !==
    hashDomain({
      domain: { ...domain, chainId: BigInt(domain.chainId) },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    })
  ) {
    throw new Error(
      `${token.symbol} on chain ${network.chainId}: the configured eip3009 domain (${domain.name}, ${domain.version}) is not the token's DOMAIN_SEPARATOR`,
    );
  }
  const { signature, ...message } = a;
  const signed = await rpc.verifyTypedData({
    address: a.from,
    domain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
    signature,
  });
  if (!signed) throw invalidField('signature', `not a TransferWithAuthorization signed by ${a.from} for this token on chain ${network.chainId}`);
  if (await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'authorizationState', args: [a.from, a.nonce] })) {
    throw new Conflict('authorization.nonce: used or canceled on the chain already', [
      { field: 'authorization.nonce', message: 'used or canceled on the chain already' },
    ]);
  }
  const balance = await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'balanceOf', args: [a.from] });
  if (balance < a.value) throw invalidField('authorization.from', `holds ${balance} of ${token.symbol}, less than ${a.value}`);
  try {
    await rpc.call({ account: relayer, to: token.address, data: relayCallData(a) });
  } catch (error) {
    // The node not answering is no refusal of the token's: a 503, sent again later.
    if (error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError))
      throw new Unavailable(`the node of ${network.name} did not answer the relay's simulation; send the same signature again shortly`);
    throw invalidField('authorization', `the token refuses it: ${(error as Error).message.split('\n')[0]}`);
  }
}
