// The few web-platform globals the contract uses, which every runtime it runs on has (browsers,
// Node 20+, Deno, workers): declared here so that the contract's own type check can leave out
// both the DOM library and Node's types, and so cannot lean on either by accident.
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
  readonly host: string;
  readonly pathname: string;
  readonly username: string;
  readonly password: string;
  readonly href: string;
}
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
