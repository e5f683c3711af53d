// A secret file of the state directory (the operator token, the secrets key) when two
// processes start on a new directory at once: the one that links the file second reads the
// first one's, never fails with EEXIST (CI's run of stop 63 failed so: two instances on one
// PostgreSQL started together on a fresh clone) and never keeps a secret of its own that the
// file does not hold. The other process is played by a maker that, while this one makes its
// secret, writes the file as the other would. (The secrets key goes through the same
// secretFile; its code had caught EEXIST already, but could read the other's file empty.)
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorToken, readTokenFile } from '../../service/operator-token.ts';
import { readSecretFile, secretFile } from '../secret-file.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'service-secret-file-'));
  dirs.push(dir);
  return dir;
}

describe('a secret file of the state directory', () => {
  it('is made once, the owner’s only, in a directory made for it, and read back the same', () => {
    const dir = join(tempDir(), 'new');
    const file = join(dir, 'secret');
    expect(secretFile(file, () => 'first')).toBe('first');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretFile(file, () => 'second')).toBe('first');
    expect(readdirSync(dir)).toEqual(['secret']); // no partial file left beside it
  });

  it('made by another process while this one made its own: theirs, for both', () => {
    const dir = tempDir();
    const file = join(dir, 'secret');
    const mine = secretFile(file, () => {
      writeFileSync(file, 'theirs\n', { mode: 0o600 });
      return 'mine';
    });
    expect(mine).toBe('theirs');
    expect(readFileSync(file, 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it('the operator token, made by another instance at the same moment: the other’s', () => {
    const dir = tempDir();
    const theirs = 'op_' + 'x'.repeat(43);
    const token = operatorToken(undefined, dir, () => {
      writeFileSync(join(dir, 'operator-token'), theirs + '\n', { mode: 0o600 });
      return 'op_' + 'y'.repeat(43);
    });
    expect(token).toBe(theirs);
    expect(operatorToken(undefined, dir)).toBe(theirs);
    expect(readdirSync(dir)).toEqual(['operator-token']);
  });

  it("the operator's commands find no token where the state directory is no directory, and say so themselves", () => {
    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, 'x');
    expect(readTokenFile(notADir)).toBeUndefined(); // ENOTDIR: the command's own words follow, not a stat error
  });

  it('is refused when others may read it, with the file named and the value never shown', () => {
    const file = join(tempDir(), 'secret');
    writeFileSync(file, 'a-secret-value\n', { mode: 0o600 });
    chmodSync(file, 0o644);
    expect(() => readSecretFile(file)).toThrow(`${file}: others may read it (mode 644); make it the owner's only with chmod 600 ${file}`);
    let message = '';
    try {
      secretFile(file, () => 'x');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('chmod 600');
    expect(message).not.toContain('a-secret-value');
  });
});
