// A QR Code (model 2) encoder for the one kind of symbol the checkout draws: the text as one
// byte segment, error correction level M, the smallest version that holds it, and the mask
// with the lowest penalty (ISO/IEC 18004, section 7). The `qrcode` package does this and far
// more (every mode, every level, a segment optimiser) in ~5 KB gzipped; this is a quarter of
// that. qr-encode.test.ts holds every symbol it makes equal, module for module, to the one
// `qrcode` makes for the same text.

/** Error correction codewords per block at level M, by version (1–40). */
const ECC_PER_BLOCK = [
  10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
];
/** Blocks at level M, by version. */
const BLOCKS = [
  1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37,
  38, 40, 43, 45, 47, 49,
];

/** Multiplication in GF(2⁸) modulo x⁸ + x⁴ + x³ + x² + 1. */
function times(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >> 7) * 0x11d);
    z ^= ((y >> i) & 1) * x;
  }
  return z;
}

/** The Reed–Solomon generator of `degree`, highest coefficient (always 1) left out. */
function generator(degree: number): number[] {
  const g = Array<number>(degree).fill(0);
  g[degree - 1] = 1;
  for (let i = 0, root = 1; i < degree; i++, root = times(root, 2)) {
    for (let j = 0; j < degree; j++) g[j] = times(g[j]!, root) ^ (g[j + 1] ?? 0);
  }
  return g;
}

/** The error correction codewords of one block: the remainder of data·x^degree ÷ g. */
function remainder(data: Uint8Array, g: number[]): number[] {
  const r = g.map(() => 0);
  for (const byte of data) {
    const factor = byte ^ r.shift()!;
    r.push(0);
    g.forEach((c, i) => (r[i]! ^= times(c, factor)));
  }
  return r;
}

/** Codewords (data and error correction) a symbol of `version` holds. */
const capacity = (version: number): number => {
  const align = version < 2 ? 0 : ((version / 7) | 0) + 2;
  const modules = (16 * version + 128) * version + 64 - (align && (25 * align - 10) * align - 55) - (version < 7 ? 0 : 36);
  return modules >> 3;
};

const MASKS: Array<(r: number, c: number) => boolean> = [
  (r, c) => (r + c) % 2 == 0,
  (r) => r % 2 == 0,
  (_, c) => c % 3 == 0,
  (r, c) => (r + c) % 3 == 0,
  (r, c) => (((r / 2) | 0) + ((c / 3) | 0)) % 2 == 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) == 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 == 0,
  (r, c) => (((r * c) % 3) + ((r + c) % 2)) % 2 == 0,
];

/** BCH code of `value`: the value, then its remainder by `poly` (of degree `bits`). */
function bch(value: number, poly: number, bits: number): number {
  let r = value;
  for (let i = 0; i < bits; i++) r = (r << 1) ^ ((r >> (bits - 1)) * poly);
  return (value << bits) | r;
}

export interface QrModules {
  /** Modules per side, without the quiet zone. */
  size: number;
  /** 1 for a dark module, row by row. */
  data: Uint8Array;
}

export function encodeQr(text: string): QrModules {
  const bytes = new TextEncoder().encode(text);
  let version = 1;
  let dataWords = 0;
  for (; ; version++) {
    if (version > 40) throw new RangeError('QR: the text is too long for a symbol');
    dataWords = capacity(version) - ECC_PER_BLOCK[version - 1]! * BLOCKS[version - 1]!;
    if (4 + (version < 10 ? 8 : 16) + 8 * bytes.length <= dataWords * 8) break;
  }

  // The bit stream: byte mode, count, the bytes, a terminator, then pad codewords.
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >> i) & 1);
  };
  put(4, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  bytes.forEach((b) => put(b, 8));
  put(0, Math.min(4, dataWords * 8 - bits.length));
  put(0, -bits.length & 7);
  for (let pad = 0xec; bits.length < dataWords * 8; pad ^= 0xfd) put(pad, 8);
  const words = new Uint8Array(dataWords).map((_, i) => bits.slice(i * 8, i * 8 + 8).reduce((a, b) => (a << 1) | b));

  // Blocks, each with its error correction, then interleaved: data first, column by column.
  const total = capacity(version);
  const blockCount = BLOCKS[version - 1]!;
  const eccLength = ECC_PER_BLOCK[version - 1]!;
  const shortBlocks = blockCount - (total % blockCount);
  const shortLength = ((total / blockCount) | 0) - eccLength;
  const g = generator(eccLength);
  const blocks: Uint8Array[] = [];
  const eccs: number[][] = [];
  for (let b = 0, at = 0; b < blockCount; b++) {
    const block = words.subarray(at, (at += shortLength + (b < shortBlocks ? 0 : 1)));
    blocks.push(block);
    eccs.push(remainder(block, g));
  }
  const stream: number[] = [];
  for (let i = 0; i <= shortLength; i++) blocks.forEach((block) => i < block.length && stream.push(block[i]!));
  for (let i = 0; i < eccLength; i++) eccs.forEach((ecc) => stream.push(ecc[i]!));

  // The matrix: function patterns first, marked so the data and the mask pass them by.
  const size = version * 4 + 17;
  const data = new Uint8Array(size * size);
  const fixed = new Uint8Array(size * size);
  const set = (r: number, c: number, dark: unknown) => {
    data[r * size + c] = dark ? 1 : 0;
    fixed[r * size + c] = 1;
  };
  for (const [top, left] of [[0, 0], [0, size - 7], [size - 7, 0]] as const) {
    for (let r = -1; r < 8; r++) {
      for (let c = -1; c < 8; c++) {
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        if (top + r >= 0 && top + r < size && left + c >= 0 && left + c < size) set(top + r, left + c, ring != 2 && ring < 4);
      }
    }
  }
  for (let i = 8; i < size - 8; i++) {
    set(6, i, i % 2 == 0);
    set(i, 6, i % 2 == 0);
  }
  if (version > 1) {
    const count = ((version / 7) | 0) + 2;
    const step = version == 32 ? 26 : Math.ceil((size - 13) / (2 * count - 2)) * 2;
    const at = [6];
    for (let p = size - 7; at.length < count; p -= step) at.splice(1, 0, p);
    at.forEach((r, i) =>
      at.forEach((c, j) => {
        if ((i || j) && (i || j < count - 1) && (j || i < count - 1)) {
          for (let dr = -2; dr < 3; dr++) for (let dc = -2; dc < 3; dc++) set(r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) != 1);
        }
      }),
    );
  }
  const format = (mask: number) => {
    const word = bch(mask, 0x537, 10) ^ 0x5412; // level M is 00
    for (let i = 0; i < 15; i++) {
      const dark = (word >> i) & 1;
      set(i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, 8, dark);
      set(8, i < 8 ? size - i - 1 : i < 9 ? 7 : 14 - i, dark);
    }
    set(size - 8, 8, 1);
  };
  format(0);
  if (version > 6) {
    const word = bch(version, 0x1f25, 12);
    for (let i = 0; i < 18; i++) {
      set((i / 3) | 0, (i % 3) + size - 11, (word >> i) & 1);
      set((i % 3) + size - 11, (i / 3) | 0, (word >> i) & 1);
    }
  }

  // Codewords in two-column strips from the bottom right, up and down in turn.
  let bit = 0;
  for (let right = size - 1; right > 0; right -= 2) {
    if (right == 6) right = 5;
    for (let step = 0; step < size; step++) {
      const r = (right + 1) & 2 ? step : size - 1 - step;
      for (const c of [right, right - 1]) {
        if (fixed[r * size + c]) continue;
        data[r * size + c] = (stream[bit >> 3]! >> (7 - (bit & 7))) & 1;
        bit++;
      }
    }
  }

  const flip = (mask: number) => {
    for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (!fixed[r * size + c] && MASKS[mask]!(r, c)) data[r * size + c]! ^= 1;
  };
  /** The standard's four penalties: runs, 2×2 blocks, finder look-alikes and dark balance. */
  const penalty = () => {
    let score = 0;
    let dark = 0;
    for (let a = 0; a < size; a++) {
      for (const across of [0, 1]) {
        let run = 0;
        let last = -1;
        let window = 0;
        for (let b = 0; b < size; b++) {
          const v = data[across ? a * size + b : b * size + a]!;
          if (v == last) run++;
          else {
            if (run > 4) score += run - 2;
            last = v;
            run = 1;
          }
          window = ((window << 1) & 0x7ff) | v;
          if (b > 9 && (window == 0x5d0 || window == 0x5d)) score += 40;
        }
        if (run > 4) score += run - 2;
      }
      for (let b = 0; a < size - 1 && b < size - 1; b++) {
        const i = a * size + b;
        const sum = data[i]! + data[i + 1]! + data[i + size]! + data[i + size + 1]!;
        if (sum % 4 == 0) score += 3;
      }
    }
    data.forEach((v) => (dark += v));
    return score + 10 * Math.abs(Math.ceil((dark * 20) / data.length) - 10);
  };
  let best = 0;
  for (let mask = 0, lowest = Infinity; mask < 8; mask++) {
    format(mask);
    flip(mask);
    const score = penalty();
    flip(mask);
    if (score < lowest) [best, lowest] = [mask, score];
  }
  flip(best);
  format(best);
  return { size, data };
}
