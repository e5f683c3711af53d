// multipart/form-data through busboy (a well-kept parser, not ours): text fields and files,
// each part by its own name, with limits on parts, field sizes and the file's size.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { Invalid, TooLarge } from '../domain/errors.ts';

export interface FormFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface Form {
  fields: Map<string, string>;
  files: Map<string, FormFile>;
}

export function readMultipart(req: IncomingMessage, limits: { fileBytes: number; fieldBytes: number }): Promise<Form> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: limits.fileBytes, fieldSize: limits.fieldBytes, files: 1, fields: 40, parts: 41 } });
    } catch {
      reject(new Invalid('Request body must be multipart/form-data with a boundary'));
      return;
    }
    const form: Form = { fields: new Map(), files: new Map() };
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
      req.unpipe(parser);
      req.resume(); // drain what is left without keeping it
      reject(failure);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new TooLarge(`${name}: longer than ${limits.fieldBytes} bytes`));
      else form.fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new TooLarge(`${name}: the file is larger than ${limits.fileBytes} bytes`)));
      stream.on('close', () => {
        if (!failure) form.files.set(name, { filename: info.filename ?? '', contentType: info.mimeType, data: Buffer.concat(chunks) });
      });
    });
    parser.on('partsLimit', () => fail(new TooLarge('Too many form parts')));
    parser.on('filesLimit', () => fail(new Invalid('One file at most: cover_photo')));
    parser.on('fieldsLimit', () => fail(new TooLarge('Too many form fields')));
    parser.on('error', (error: Error) => fail(new Invalid(`The multipart form is malformed: ${error.message}`)));
    parser.on('close', () => {
      if (!failure) resolve(form);
    });
    req.on('aborted', () => fail(new Invalid('The client went away before the body ended')));
    req.pipe(parser);
  });
}
